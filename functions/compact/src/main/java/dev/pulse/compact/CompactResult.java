package dev.pulse.compact;

/**
 * The outcome of one stream batch.
 *
 * @param records        stream records in the batch
 * @param hours          (series, hour) rollups recomputed
 * @param days           (series, day) rollups recomputed
 * @param failedSequence the batch's first sequence number, reported when failed
 * @param failureReason  why the batch failed, or {@code null}
 */
public record CompactResult(int records, int hours, int days, String failedSequence, String failureReason) {

    public boolean failed() {
        return failureReason != null;
    }
}
