package dev.pulse.ingest;

import dev.pulse.store.WriteStats;

/**
 * The outcome of one batch.
 *
 * @param records        records in the batch
 * @param datapoints     valid datapoints aggregated
 * @param poisonRecords  records sent to the dead-letter queue
 * @param skippedEvents  log events that carried no metrics
 * @param partials       (series, minute) partial items built
 * @param alreadyStored  redelivered records at or below the shard's committed position, skipped
 * @param write          what the store did
 * @param failedSequence the batch's first sequence number, reported as the batch item failure when failed
 * @param failureReason  why the batch failed, or {@code null}
 * @param maxLagMillis   now minus the oldest record's arrival time
 */
public record IngestResult(int records, long datapoints, int poisonRecords, long skippedEvents, int partials,
        long alreadyStored, WriteStats write, String failedSequence, String failureReason, long maxLagMillis) {

    public boolean failed() {
        return failureReason != null;
    }
}
