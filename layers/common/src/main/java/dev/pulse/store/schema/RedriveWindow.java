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
package dev.pulse.store.schema;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How long after its arrival a record may still be redriven ({@link dev.pulse.config.PulseConfig#redriveWindow()}).
 * A record holds datapoints up to {@code ACCEPT_PAST_SECONDS} older than its arrival; past the window some of them
 * may belong to an hour whose minute partials expire before a builder lagging by its allowance rebuilds it, and the
 * builder never rebuilds such an hour (it resolves the mark and keeps the rollup), so the redriven data would reach
 * the table and never the rollup. The whole redrive is refused instead, before anything is read or written: the
 * redrive tool keeps the DLQ message, with this reason.
 *
 * <p>The retention rules make the window longer than {@code STREAM_RETENTION_HOURS}, so a record read back from
 * the stream is refused only when the stream keeps records longer than that setting says, or for a hand-made event.
 * Refusing depends on the clock, but it is all or nothing for the batch and writes nothing, so every attempt that
 * does store the batch stores exactly the same records.
 */
public final class RedriveWindow {

    private final Duration window;

    public RedriveWindow(Duration window) {
        this.window = window;
    }

    /** The window; records that arrived longer ago than this are refused. */
    public Duration window() {
        return window;
    }

    /**
     * Why the redrive of {@code records} at {@code nowMillis} is refused, naming its oldest record; {@code null} if
     * every record arrived within the window. Records without an arrival time are left to the decoder, which makes
     * them poison.
     */
    // aws-lambda-java-events types a Kinesis record's arrival time as java.util.Date: read once, as epoch millis.
    @SuppressWarnings("JavaUtilDate")
    public String refusal(List<KinesisEvent.KinesisEventRecord> records, long nowMillis) {
        KinesisEvent.Record oldest = null;
        for (KinesisEvent.KinesisEventRecord r : records) {
            KinesisEvent.Record k = r.getKinesis();
            if (k != null
                    && k.getApproximateArrivalTimestamp() != null
                    && (oldest == null
                            || k.getApproximateArrivalTimestamp().getTime()
                                    < oldest.getApproximateArrivalTimestamp().getTime())) {
                oldest = k;
            }
        }
        if (oldest == null) {
            return null;
        }
        long arrival = oldest.getApproximateArrivalTimestamp().getTime();
        Duration age = Duration.ofMillis(nowMillis - arrival);
        if (age.compareTo(window) <= 0) {
            return null;
        }
        return "redrive refused: record " + oldest.getSequenceNumber() + " arrived " + Instant.ofEpochMilli(arrival)
                + ", "
                + age.toSeconds() + " s ago, past the redrive window of " + window.toSeconds()
                + " s (PARTIAL_TTL_DAYS less"
                + " ACCEPT_PAST_SECONDS, an hour, COMPACT_GRACE_SECONDS, the mark settle time and a day of builder lag): its"
                + " datapoints may belong to hours whose minute partials expire before they can be rebuilt, so they would"
                + " never reach the rollups. Nothing was written and the DLQ message stays. The stream keeps records longer"
                + " than STREAM_RETENTION_HOURS says: set it to the stream's retention (the functions then require"
                + " PARTIAL_TTL_DAYS to cover it) so that records it holds can always be redriven";
    }
}
