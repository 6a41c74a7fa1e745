# The option parsing of memscope-bench's scripts (sourced by them, not run): one loop instead of one per script.
#
#   . "$(dirname "${BASH_SOURCE[0]}")/bench-args.sh"
#   bench_args '-n|--rounds=rounds --java=java --out=report --all-configs=all_configs:1' "$@"
#
# Each word of the first argument is an option's names (alternatives separated by |), =, and the variable it sets to
# the argument after it; VARIABLE:VALUE makes it a flag that sets VALUE; VARIABLE[] appends to the array VARIABLE (an
# option that may be given more than once). With a word `...`, the arguments that are not options are kept, in
# order, in the array bench_rest; without it they are an error. An unknown option, or an option missing its value,
# exits with status 2.
bench_args() {
  local words alts word opt target positional=0
  read -ra words <<< "$1" # read -a: no glob expansion of the words (NAME[] is a pattern to the shell)
  shift
  for word in "${words[@]}"; do
    [ "$word" = "..." ] && positional=1
  done
  bench_rest=()
  while [ $# -gt 0 ]; do
    target=""
    for word in "${words[@]}"; do
      [ "$word" = "..." ] && continue
      IFS='|' read -ra alts <<< "${word%%=*}"
      for opt in "${alts[@]}"; do
        if [ "$1" = "$opt" ]; then
          target="${word#*=}"
          break 2
        fi
      done
    done
    if [ -n "$target" ]; then
      case "$target" in
        *:*) printf -v "${target%%:*}" '%s' "${target#*:}"; shift ;;
        *)
          [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
          case "$target" in
            *'[]') eval "${target%'[]'}+=(\"\$2\")" ;;
            *) printf -v "$target" '%s' "$2" ;;
          esac
          shift 2 ;;
      esac
    elif [ "$positional" = 1 ] && [ "${1#-}" = "$1" ]; then
      bench_rest+=("$1")
      shift
    else
      echo "unknown argument $1" >&2
      exit 2
    fi
  done
}
