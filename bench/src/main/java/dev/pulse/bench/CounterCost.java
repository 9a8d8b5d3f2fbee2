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
package dev.pulse.bench;

import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.Partial;
import dev.pulse.aggregate.Summary;
import dev.pulse.model.Datapoint;
import dev.pulse.model.MetricKind;
import dev.pulse.store.codec.PartialItems;
import dev.pulse.store.codec.RollupItems;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * What a cumulative counter's partials and rollups store beside a gauge's and a delta counter's: one series' minute
 * partials, hourly and daily items built with the real aggregator and item encoders (the items ingest and the
 * compactor write), their sizes by DynamoDB's rules ({@link ItemSize}) and the write units of one put each. The
 * simulated workloads of the cost benchmark send no cumulative series; this shows the difference per series.
 */
final class CounterCost {

    /** A Kinesis sequence number of the usual 56 digits: the partial's sort key holds it. */
    private static final String SEQUENCE = "49590338271490256608559692538361571095921575989136588898";

    private static final long DAY = CostBench.SIM_DAY;
    private static final long MINUTE = 60_000L;
    private static final long TTL = 86_400L * 3;

    enum Kind {
        GAUGE("gauge", null),
        /** The running totals of the cumulative kinds below, as every series was stored before: samples, no counter. */
        CUMULATIVE_AS_SAMPLES("cumulative, stored as samples", null),
        DELTA("delta counter", MetricKind.of(MetricKind.Type.COUNTER, MetricKind.Temporality.DELTA, "{request}")),
        CUMULATIVE_PROM(
                "cumulative, no start time",
                MetricKind.of(MetricKind.Type.COUNTER, MetricKind.Temporality.CUMULATIVE, "")),
        CUMULATIVE_OTLP(
                "cumulative, OTLP start time",
                MetricKind.of(MetricKind.Type.COUNTER, MetricKind.Temporality.CUMULATIVE, "{request}"));

        final String label;
        final MetricKind kind;

        Kind(String label, MetricKind kind) {
            this.label = label;
            this.kind = kind;
        }
    }

    /**
     * {partial bytes a series-hour, partial WRU a series-hour, hourly item bytes, its WRU, daily item bytes, its WRU}, over
     * a day of data; bytes as stored (with DynamoDB's 100 B an item).
     */
    static long[] measure(Kind kind, int perMinute) {
        SplittableRandom r = new SplittableRandom(26);
        Map<String, String> dims = Map.of("function", "svc-042-handler-0042", "region", "us-east-1");
        double total = 1_000_000;
        long start = (DAY - 86_400_000L) * 1_000_000;
        long partialBytes = 0;
        long partialWru = 0;
        long hourlyBytes = 0;
        long hourlyWru = 0;
        SortedMap<Integer, Summary> hours = new TreeMap<>();
        String seriesKey = null;
        for (int h = 0; h < 24; h++) {
            SortedMap<Integer, Summary> minutes = new TreeMap<>();
            for (int m = 0; m < 60; m++) {
                long minute = DAY + h * 3_600_000L + m * MINUTE;
                List<Datapoint> dps = new ArrayList<>();
                for (int k = 0; k < perMinute; k++) {
                    long ts = minute + (k * 60_000L + 30_000L) / perMinute;
                    double v = switch (kind) {
                        case GAUGE -> r.nextInt(100_000) / 100.0;
                        case DELTA -> r.nextInt(50);
                        default -> total += r.nextInt(50); // the same running totals for the three cumulative kinds
                    };
                    Datapoint dp = new Datapoint("lambda.invocations", dims, ts, v, "Count").withKind(kind.kind);
                    dps.add(kind == Kind.CUMULATIVE_OTLP ? dp.withStartNanos(start) : dp);
                }
                BatchAggregator agg = new BatchAggregator("shardId-000000000003");
                agg.addRecord(SEQUENCE, dps);
                Partial p = agg.partials().iterator().next();
                seriesKey = p.seriesKey();
                var item = PartialItems.partial(p, TTL, 1);
                partialBytes += ItemSize.stored(item);
                partialWru += ItemSize.writeUnits(ItemSize.of(item));
                Summary s = new Summary();
                s.merge(p.summary());
                minutes.put(m, s);
            }
            var hourly = RollupItems.hourly(seriesKey, DAY + h * 3_600_000L, minutes, TTL);
            hourlyBytes += ItemSize.stored(hourly);
            hourlyWru += ItemSize.writeUnits(ItemSize.of(hourly));
            Summary hour = new Summary();
            minutes.values().forEach(hour::merge);
            hours.put(h, hour);
        }
        var daily = RollupItems.daily(seriesKey, DAY, hours, TTL);
        return new long[] {
            partialBytes / 24,
            partialWru / 24,
            hourlyBytes / 24,
            hourlyWru / 24,
            ItemSize.stored(daily),
            ItemSize.writeUnits(ItemSize.of(daily))
        };
    }

    /** Lines for the report, and the figures into {@code values} as {@code counters.<kind>.<n>perMin.<what>}. */
    static List<String> lines(Map<String, Double> values) {
        List<String> out = new ArrayList<>();
        out.add(
                "stored bytes and write units of one series, a series-hour (60 partials, the hourly item) and a series-day"
                        + " (the daily item), by kind of series (CounterCost: the real aggregator and item encoders, DynamoDB's size rules):");
        out.add(String.format(
                Locale.ROOT,
                "  %-30s %9s %13s %10s %12s %10s %11s %9s",
                "series",
                "samples/min",
                "partials B/h",
                "WRU/h",
                "hourly B",
                "hourly WRU",
                "daily B",
                "daily WRU"));
        for (int perMinute : new int[] {1, 6}) {
            for (Kind k : Kind.values()) {
                long[] m = measure(k, perMinute);
                out.add(String.format(
                        Locale.ROOT,
                        "  %-30s %9d %13s %10d %12s %10d %11s %9d",
                        k.label,
                        perMinute,
                        Format.count(m[0]),
                        m[1],
                        Format.count(m[2]),
                        m[3],
                        Format.count(m[4]),
                        m[5]));
                String key = "counters." + k.name().toLowerCase(Locale.ROOT) + "." + perMinute + "perMin.";
                values.put(key + "partialBytesPerSeriesHour", (double) m[0]);
                values.put(key + "partialWruPerSeriesHour", (double) m[1]);
                values.put(key + "hourlyBytes", (double) m[2]);
                values.put(key + "hourlyWru", (double) m[3]);
                values.put(key + "dailyBytes", (double) m[4]);
                values.put(key + "dailyWru", (double) m[5]);
            }
        }
        return out;
    }

    private CounterCost() {}

    /** Prints the table: {@code java -cp ... dev.pulse.bench.CounterCost}. */
    public static void main(String[] args) {
        lines(new LinkedHashMap<>()).forEach(System.out::println);
    }
}
