package dev.pulse.store.write;

/** Items could not be written before the deadline, or DynamoDB rejected them for good. */
public final class StoreException extends RuntimeException {

    private final transient WriteStats stats;

    public StoreException(String message, Throwable cause, WriteStats stats) {
        super(message, cause);
        this.stats = stats;
    }

    /** What was done before giving up: the metrics of a failed write still count. */
    public WriteStats stats() {
        return stats;
    }
}
