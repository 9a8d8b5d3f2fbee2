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
package dev.pulse.aggregate;

import dev.pulse.model.Datapoint;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pre-aggregates one batch into (series, minute) partials, in record order. Records must be added in
 * stream order: the first record to touch a (series, minute) names the partial, so the same records in
 * a retried batch produce the same keys.
 */
public final class BatchAggregator {

    private static final long MINUTE_MS = 60_000L;

    private record Key(String seriesKey, long minuteStart) {}

    private final String shardId;
    private final Map<Key, Partial> partials = new LinkedHashMap<>();
    private long datapoints;

    public BatchAggregator(String shardId) {
        this.shardId = shardId;
    }

    /** Adds every datapoint of one record (already validated) with that record's sequence number. */
    public void addRecord(String sequenceNumber, Iterable<Datapoint> dps) {
        for (Datapoint dp : dps) {
            String seriesKey = dp.seriesKey();
            long minute = Math.floorDiv(dp.timestamp(), MINUTE_MS) * MINUTE_MS;
            Partial agg = partials.computeIfAbsent(
                    new Key(seriesKey, minute),
                    k -> new Partial(seriesKey, dp.name(), dp.dims(), minute, shardId, sequenceNumber));
            if (dp.summary() != null) {
                agg.add(dp.summary(), dp.unit(), sequenceNumber);
            } else if (dp.kind() != null && dp.kind().isCumulativeCounter()) {
                agg.addCounterSample(dp.value(), dp.timestamp(), dp.startNanos(), dp.unit(), sequenceNumber);
            } else {
                agg.add(dp.value(), dp.unit(), sequenceNumber);
            }
            agg.kind(dp.kind());
            datapoints++;
        }
    }

    public Collection<Partial> partials() {
        return partials.values();
    }

    public long datapoints() {
        return datapoints;
    }
}
