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
package dev.pulse.push;

import dev.pulse.metrics.MetricName;

/** The metrics PushFunction emits, once per invocation, as one EMF document (names in PascalCase). */
public enum PushMetric implements MetricName {
    /** Requests answered 2xx. */
    REQUESTS_ACCEPTED,
    /** Requests answered 4xx: bad payloads, over a limit, unsupported content. */
    REQUESTS_REFUSED,
    /** Requests answered 503 because their records could not all be put on the stream. */
    REQUESTS_UNAVAILABLE,
    /** Request bodies as sent (compressed). */
    BYTES_IN,
    /** Data points (OTLP) or samples (remote write) put on the stream. */
    DATAPOINTS_IN,
    /** Data points refused alone (a non-finite value, a time outside the accepted window, ...): not stored. */
    DATAPOINTS_REJECTED,
    /** Remote-write staleness markers: Prometheus' end-of-series signal, not a value; dropped. */
    STALE_MARKERS_DROPPED,
    /** Kinesis records put. */
    RECORDS_PUT,
    /** Entries PutRecords failed and were sent again. */
    PUT_RETRIES,
    /** Of those, failed for throughput (ProvisionedThroughputExceeded). */
    THROTTLES,
    COLD_START
}
