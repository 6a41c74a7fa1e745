#!/usr/bin/env python3
"""Reads a memscope <pid>.events ring file (docs/formats/events.md, version 1) without any memscope code and
prints its events in the text format of `memscope events`, one per line:

    ts  tid  begin|end  name
    ts  tid  lifecycle|counter  name  value
    ts  tid  custom  name  type  value
    -   tid  lost  count

ts is nanoseconds since the producer's start (record timestamp minus the header's monotonic start).
Usage: read_events.py FILE
"""
import struct
import sys

MAGIC = b"MSEVENTS"
HEADER_BYTES = 4096
SLOT_HEADER_BYTES = 256
KINDS = {1: "begin", 2: "end", 3: "lifecycle", 4: "counter", 5: "custom"}
BUILTIN_TYPES = {0: "unit", 1: "int", 2: "long", 3: "span"}


def fail(offset, what):
    sys.exit("read_events.py: at offset %d: %s" % (offset, what))


def main(path):
    data = open(path, "rb").read()
    if len(data) < HEADER_BYTES:
        fail(0, "truncated")
    if data[0:8] != MAGIC:
        fail(0, "not a memscope events file")
    (version,) = struct.unpack_from("<I", data, 8)
    if version != 1:
        fail(8, "unsupported version %d" % version)
    start_mono, slot_count, ring_size, slot_header, names_cap = struct.unpack_from("<qIIII", data, 32)
    names_off, slots_off, file_size = struct.unpack_from("<QQQ", data, 56)
    names_used, ready = struct.unpack_from("<II", data, 84)
    if ready != 1 or slot_header != SLOT_HEADER_BYTES or len(data) < file_size:
        fail(84, "not ready or truncated")

    events, types = {}, dict(BUILTIN_TYPES)
    at = 0
    while at < names_used:
        off = names_off + at
        length, entry_kind, _event_kind, ident, type_id, name_len = struct.unpack_from("<HBBHHH", data, off)
        if length < 16 or length % 8 or at + length > names_used or 10 + name_len > length:
            fail(off, "bad names entry")
        name = data[off + 10: off + 10 + name_len].decode("utf-8")
        if entry_kind == 2:
            events[ident] = (name, type_id)
        elif entry_kind == 1:
            types[ident] = name
        else:
            fail(off + 2, "bad entry kind")
        at += length

    out = []
    shift = ring_size.bit_length() - 1
    for slot in range(slot_count):
        base = slots_off + slot * (SLOT_HEADER_BYTES + ring_size)
        (state,) = struct.unpack_from("<Q", data, base)
        if state >> 8 == 0:
            continue  # never used
        (tid,) = struct.unpack_from("<q", data, base + 8)
        head, head_seq = struct.unpack_from("<QQ", data, base + 64)
        (tail,) = struct.unpack_from("<Q", data, base + 128)
        if head_seq > 0:
            out.append("-\t%d\tlost\t%d" % (tid, head_seq))
        pos = head
        ring = base + SLOT_HEADER_BYTES
        while pos < tail:
            off = ring + (pos & (ring_size - 1))
            (word,) = struct.unpack_from("<Q", data, off)
            length, kind, ident, lap = word & 0xFFFF, (word >> 16) & 0xFF, (word >> 24) & 0xFFFF, word >> 40
            if lap != (pos >> shift) & 0xFFFFFF or length < 8 or length > 1024:
                fail(off, "bad record")
            pos += (length + 7) & ~7
            if kind == 0:
                continue
            (ts,) = struct.unpack_from("<q", data, off + 8)
            rel = ts - start_mono
            name, type_id = events.get(ident, ("#%d" % ident, 0))
            if kind in (1, 2):
                out.append("%d\t%d\t%s\t%s" % (rel, tid, KINDS[kind], name))
            elif kind in (3, 4):
                (value,) = struct.unpack_from("<q", data, off + 16)
                out.append("%d\t%d\t%s\t%s\t%d" % (rel, tid, KINDS[kind], name, value))
            elif kind == 5:
                payload = data[off + 16: off + length]
                tname = types.get(type_id, "#type%d" % type_id)
                if tname == "unit":
                    value = ""
                elif tname == "int":
                    value = str(struct.unpack_from("<i", payload)[0]) if len(payload) >= 4 else "?"
                elif tname == "long":
                    value = str(struct.unpack_from("<q", payload)[0]) if len(payload) >= 8 else "?"
                elif tname == "span":
                    value = "end" if payload[:1] == b"\x01" else "begin"
                else:
                    value = payload.hex()
                out.append("%d\t%d\tcustom\t%s\t%s\t%s" % (rel, tid, name, tname, value))
            else:
                fail(off, "bad record kind %d" % kind)
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main(sys.argv[1])
