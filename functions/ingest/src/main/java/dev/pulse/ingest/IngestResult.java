/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.pulse.ingest;

import dev.pulse.store.write.WriteStats;

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
 * @param failedSequence the record reported as the batch item failure: when failed, the first record the committed
 *                       position does not cover (or the record whose decoding threw); when the batch ended early,
 *                       the first record not stored, where Lambda resumes; else {@code null}
 * @param failureReason  why the batch failed, or {@code null}
 * @param maxLagMillis   now minus the oldest record's arrival time
 * @param endedEarly     why a batch that did not fail stored and committed only the records before
 *                       {@code failedSequence} (a per-batch limit, a record that failed, recovery), or {@code null}
 */
public record IngestResult(
        int records,
        long datapoints,
        int poisonRecords,
        long skippedEvents,
        int partials,
        long alreadyStored,
        WriteStats write,
        String failedSequence,
        String failureReason,
        long maxLagMillis,
        String endedEarly) {

    public IngestResult(
            int records,
            long datapoints,
            int poisonRecords,
            long skippedEvents,
            int partials,
            long alreadyStored,
            WriteStats write,
            String failedSequence,
            String failureReason,
            long maxLagMillis) {
        this(
                records,
                datapoints,
                poisonRecords,
                skippedEvents,
                partials,
                alreadyStored,
                write,
                failedSequence,
                failureReason,
                maxLagMillis,
                null);
    }

    public boolean failed() {
        return failureReason != null;
    }
}
