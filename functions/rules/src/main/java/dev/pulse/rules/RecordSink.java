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
package dev.pulse.rules;

import java.util.List;
import java.util.SortedMap;

/**
 * Where a recording rule's samples go before the next rule of its group runs (a later rule reads them, as in
 * Prometheus). A sample evaluated at {@code t} summarises the interval before {@code t}; it is stored at
 * {@code t - 30 s}, in the minute before {@code t}, so the rule's series read at {@code t} answers the rule's value
 * at {@code t}. In production: ingest's exactly-once path keyed by rule and evaluation time ({@link IngestRecordSink}).
 */
@FunctionalInterface
public interface RecordSink {

    /** Stores {@code samples} (each with {@code __name__} = the record name) evaluated at {@code evaluatedAt}. */
    void write(String ruleKey, long evaluatedAt, List<Recorded> samples) throws Exception;

    record Recorded(SortedMap<String, String> labels, double value) {}

    /**
     * The samples could not all be stored this time (throttled past the deadline, an outage): the evaluation of this
     * time is repeated, and what was stored is skipped then. Any other failure is the rule's error for this time.
     */
    final class NotStoredException extends Exception {

        private static final long serialVersionUID = 1L;

        public NotStoredException(String message) {
            super(message);
        }
    }
}
