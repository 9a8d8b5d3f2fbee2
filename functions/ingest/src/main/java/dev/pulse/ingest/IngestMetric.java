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

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics IngestFunction emits, once per invocation, as one EMF document (names in PascalCase). */
public enum IngestMetric implements MetricName {
    RECORDS_IN,
    DATAPOINTS_IN,
    POISON_RECORDS,
    SKIPPED_EVENTS,
    ITEMS_WRITTEN,
    MARKS_WRITTEN,
    WRITE_RETRIES,
    THROTTLES,
    UNPROCESSED_ITEMS,
    BATCH_FAILURES,
    /** Redelivered records the shard's committed position already covers: skipped. */
    ALREADY_STORED_RECORDS,
    /** Pushed records with the content of a record stored before them (a client sent its request again): skipped. */
    RESENT_RECORDS,
    /** Attempts that found a newer attempt of their shard and failed without committing. */
    SUPERSEDED_ATTEMPTS,
    /** Records whose decoding or aggregation threw (an Error included): the batch stopped before them, not poison. */
    RECORD_FAILURES,
    /** Records sent to the DLQ after failing every attempt of them alone (also counted in PoisonRecords). */
    RECORDS_SET_ASIDE,
    /** Attempts that followed failed attempts at the same record and processed only part of their batch. */
    RECOVERY_ATTEMPTS,
    /** Batches that stored and committed their first records and asked Lambda to resume after them. */
    BATCHES_ENDED_EARLY,
    INGEST_LAG_MS {
        @Override
        public MetricUnit unit() {
            return MetricUnit.MILLISECONDS;
        }
    },
    COLD_START
}
