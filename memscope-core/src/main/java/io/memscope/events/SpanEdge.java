package io.memscope.events;

/** The value of a custom event of type {@link EventType#SPAN}. Encoded as one byte: 0 begin, 1 end. */
public enum SpanEdge {
    BEGIN,
    END
}
