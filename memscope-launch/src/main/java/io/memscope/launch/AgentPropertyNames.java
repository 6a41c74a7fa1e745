package io.memscope.launch;

/**
 * The agent properties ({@code VirtualMachine.getAgentProperties()}) the agent sets in the JVM it runs in and the
 * command line reads through the attach API. None starts with {@code io.memscope}, so the agent's shading (which
 * relocates such string constants) leaves them as they are.
 */
public final class AgentPropertyNames {
    /**
     * The recording of the capture running or last finished in this JVM, so that {@code memscope attach} and
     * {@code detach} find it.
     */
    public static final String RECORDING = "memscope.recording";
    /**
     * The one-line account of the last heap walk asked for with {@code command=paths} (its paths are in the
     * recording).
     */
    public static final String PATHS = "memscope.paths";
    /**
     * Why the capture started last in this JVM cannot write its recording (its folder could not be made or is not
     * trusted); absent when it can. {@code memscope attach} reads it to fail at once.
     */
    public static final String RECORDING_ERROR = "memscope.recordingError";

    private AgentPropertyNames() {
    }
}
