package dev.pulse.dlq;

/** Poison records could not be sent to the dead-letter queue; the batch must fail so nothing is lost. */
public final class DeadLetterException extends RuntimeException {

    public DeadLetterException(String message, Throwable cause) {
        super(message, cause);
    }
}
