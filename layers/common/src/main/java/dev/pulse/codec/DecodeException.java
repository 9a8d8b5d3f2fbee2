package dev.pulse.codec;

/**
 * A record could not be decoded or one of its datapoints failed validation. The record is poison: it goes
 * to the dead-letter queue with {@link #getMessage()} as the reason and is never retried by itself.
 */
public class DecodeException extends Exception {

    public DecodeException(String reason) {
        super(reason, null, false, false);
    }

    public DecodeException(String reason, Throwable cause) {
        super(reason, cause, false, false);
    }
}
