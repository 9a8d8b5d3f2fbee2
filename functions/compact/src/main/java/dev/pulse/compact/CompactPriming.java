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
package dev.pulse.compact;

import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.pulse.aggregate.Summary;
import dev.pulse.config.PulseConfig;
import dev.pulse.snapstart.Priming;
import dev.pulse.snapstart.PrimingClients;
import dev.pulse.snapstart.PrimingContext;
import dev.pulse.snapstart.RuntimeSerialization;
import dev.pulse.store.codec.RollupItems;
import java.time.Clock;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.joda.time.DateTime;

/**
 * CompactFunction's SnapStart priming: a second {@link CompactHandler} with the production wiring on
 * {@link PrimingClients} and a throwaway EMF sink runs compaction runs (the due-index queries marshalled and answered in
 * memory with nothing due), and the rollup items of an hour and a day are built and read back without I/O. The
 * function's own handler, client and cold-start flag are not touched.
 */
final class CompactPriming extends Priming {

    /** One: a compaction run already scans every due-index partition of the retention window (thousands of queries). */
    static final int ROUNDS = 1;

    private final PulseConfig config;

    CompactPriming(PulseConfig config) {
        super("compact");
        this.config = config;
    }

    @Override
    protected int prime() throws Exception {
        int paths = primeCodecs() + primeRollups();
        try (PrimingClients clients = new PrimingClients()) {
            CompactHandler handler = CompactFunction.handler(
                    CompactFunction.service(config, clients.dynamoDb(), Clock.systemUTC()),
                    throwawayMetrics(),
                    config.safetyMarginMillis());
            PrimingContext context = new PrimingContext();
            for (int round = 0; round < ROUNDS; round++) {
                ScheduledEvent event = new ScheduledEvent();
                event.setId("snapstart-priming");
                event.setDetailType("Scheduled Event");
                event.setSource("aws.events");
                event.setTime(DateTime.now());
                event.setDetail(Map.of());
                CompactResult result = handler.handleRequest(event, context);
                if (result.stopped()) {
                    throw new IllegalStateException("priming compaction run stopped: " + result.stopReason());
                }
                if (RuntimeSerialization.roundTrip(ScheduledEvent.class, event)) {
                    RuntimeSerialization.write(CompactResult.class, result);
                }
                paths++;
            }
            recordRequests(clients);
        }
        return paths;
    }

    /** An hourly and a daily rollup item built and their buckets read back, as a build and a query do. */
    private static int primeRollups() {
        SortedMap<Integer, Summary> buckets = new TreeMap<>();
        for (int b = 0; b < 3; b++) {
            Summary s = new Summary();
            s.add(b + 1.0);
            s.add(b * 10.0);
            buckets.put(b, s);
        }
        long hour = 3_600_000L * 490_000;
        var hourly = RollupItems.hourly("pulse.priming{fn=compact}", hour, buckets, 3600);
        var daily = RollupItems.daily("pulse.priming{fn=compact}", hour - hour % 86_400_000L, buckets, 3600);
        if (RollupItems.buckets(hourly, RollupItems.MINUTES).size()
                        + RollupItems.buckets(daily, RollupItems.HOURS).size()
                != 6) {
            throw new IllegalStateException("rollup round trip");
        }
        return 2;
    }
}
