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

import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.Partial;
import dev.pulse.aggregate.Summary;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.model.Datapoint;
import dev.pulse.model.SeriesKey;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.PartialItems;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.MutableClock;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One test's world for the compactor: a fresh table in the test class's DynamoDB Local, partials and build
 * marks written the way ingest writes them (its item builders and {@link CompactMarks}), a clock that stands still,
 * and the rollups read back. The retention is the shortest the rules allow for a one-minute late window (partials
 * 3 days), so a run scans 3 days of compaction queue, not the default 17.
 */
final class CompactFixture {

    static final String SHARD = "shardId-000000000000";
    /** The hour the tests' data falls in, and its day. */
    static final long HOUR = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();

    static final long DAY = Instant.parse("2026-11-21T00:00:00Z").toEpochMilli();
    static final String SERIES = SeriesKey.of("latency", Map.of("service", "checkout"));
    private static final AtomicInteger TABLES = new AtomicInteger();

    final String table = "compact-" + TABLES.incrementAndGet();
    final DynamoDbClient reader;
    final DynamoDbAsyncClient dynamo;
    final MutableClock clock = new MutableClock(Instant.ofEpochMilli(HOUR));
    final PulseConfig config;
    final List<InvocationMetrics<CompactMetric>> runs = new ArrayList<>();

    CompactFixture(DynamoDbAsyncClient async, DynamoDbClient reader) {
        this.reader = reader;
        this.dynamo = async;
        LocalDynamoDb.createTable(reader, table);
        Map<String, String> env = new HashMap<>(TestConfig.acceptingPast(Duration.ofMinutes(1)));
        env.put("HOURLY_TTL_DAYS", "4");
        env.put("DAILY_TTL_DAYS", "30");
        this.config = TestConfig.of(table, "unused", env);
    }

    CompactService service() {
        return service(dynamo);
    }

    CompactService service(DynamoDbAsyncClient client) {
        return CompactFunction.service(config, client, clock);
    }

    /** One run at {@code at}, with a minute before its deadline (a run scans three days of compaction queue). */
    CompactResult run(CompactService service, Instant at) {
        clock.set(at);
        InvocationMetrics<CompactMetric> metrics = new InvocationMetrics<>(CompactMetric.class);
        runs.add(metrics);
        return service.build(Deadline.inMillis(60_000), metrics);
    }

    CompactResult run(Instant at) {
        return run(service(), at);
    }

    static Instant at(String iso) {
        return Instant.parse(iso);
    }

    /**
     * Writes one minute partial of {@link #SERIES} for minute {@code minute} (epoch ms), named by record
     * {@code firstRecord} and written by the attempt of {@code generation}, holding {@code values}; then sets its
     * hour and day marks at the clock's time, as an ingest attempt does (marks first in ingest; the order does not
     * matter to a builder that runs after both).
     */
    void ingest(long minute, long firstRecord, long generation, double... values) {
        BatchAggregator agg = new BatchAggregator(SHARD);
        List<Datapoint> dps = new ArrayList<>();
        for (double v : values) {
            dps.add(new Datapoint("latency", Map.of("service", "checkout"), minute + 1_000, v, "Milliseconds"));
        }
        agg.addRecord(KinesisRecords.sequence(firstRecord), dps);
        List<Partial> partials = new ArrayList<>(agg.partials());
        reader.putItem(b -> b.tableName(table)
                .item(PartialItems.partial(partials.get(0), config.partialTtl().toSeconds(), generation)));
        mark(partials);
    }

    /**
     * As {@link #ingest}, for a cumulative counter (OTLP cumulative monotonic sum): samples {@code values} at
     * {@code minute + secondOffsets[i]} seconds with OTLP start time {@code startNanos} (0 for none).
     */
    void ingestCounter(
            long minute, long firstRecord, long generation, long startNanos, long[] secondOffsets, double... values) {
        BatchAggregator agg = new BatchAggregator(SHARD);
        List<Datapoint> dps = new ArrayList<>();
        dev.pulse.model.MetricKind kind = dev.pulse.model.MetricKind.of(
                dev.pulse.model.MetricKind.Type.COUNTER, dev.pulse.model.MetricKind.Temporality.CUMULATIVE, "ms");
        for (int i = 0; i < values.length; i++) {
            dps.add(new Datapoint(
                            "latency",
                            Map.of("service", "checkout"),
                            minute + secondOffsets[i] * 1_000,
                            values[i],
                            "Milliseconds")
                    .withKind(kind)
                    .withStartNanos(startNanos));
        }
        agg.addRecord(KinesisRecords.sequence(firstRecord), dps);
        List<Partial> partials = new ArrayList<>(agg.partials());
        reader.putItem(b -> b.tableName(table)
                .item(PartialItems.partial(partials.get(0), config.partialTtl().toSeconds(), generation)));
        mark(partials);
    }

    /**
     * Writes the empty placeholder an attempt that sets a record aside leaves in the slot the record named (minute
     * {@code minute}, record {@code firstRecord}), under {@code generation}, as ingest writes it.
     */
    void tombstone(long minute, long firstRecord, long generation) {
        BatchAggregator agg = new BatchAggregator(SHARD);
        agg.addRecord(
                KinesisRecords.sequence(firstRecord),
                List.of(new Datapoint("latency", Map.of("service", "checkout"), minute + 1_000, 0, "Milliseconds")));
        Map<String, AttributeValue> item = new HashMap<>(PartialItems.partial(
                agg.partials().iterator().next(), config.partialTtl().toSeconds(), generation));
        SummaryAttributes.put(item, new Summary());
        item.remove(PartialItems.UNIT);
        reader.putItem(b -> b.tableName(table).item(item));
    }

    void mark(List<Partial> partials) {
        new CompactMarks(dynamo, table, 4, new Backoff(5, 100))
                .writeAll(
                        CompactMarks.marksFor(
                                partials,
                                config.hourlyTtl().toSeconds(),
                                config.dailyTtl().toSeconds()),
                        clock.millis(),
                        Deadline.inMillis(5_000))
                .join();
    }

    /** The hourly rollup item of {@link #SERIES} for the hour starting at {@code hour}, or null. */
    Map<String, AttributeValue> hourly(long hour) {
        return item(KeyScheme.hourlyPk(SERIES, hour), KeyScheme.hour(hour));
    }

    /** The daily rollup item of {@link #SERIES} for the day starting at {@code day}, or null. */
    Map<String, AttributeValue> daily(long day) {
        return item(KeyScheme.dailyPk(SERIES, day), KeyScheme.day(day));
    }

    Map<String, AttributeValue> item(String pk, String sk) {
        Map<String, AttributeValue> item = reader.getItem(b -> b.tableName(table)
                        .consistentRead(true)
                        .key(Map.of(KeyScheme.PK, AttributeValue.fromS(pk), KeyScheme.SK, AttributeValue.fromS(sk))))
                .item();
        return item == null || item.isEmpty() ? null : item;
    }

    /** A rollup's buckets (minute or hour number) as count / sum / min / max. */
    static Map<Integer, List<Double>> buckets(Map<String, AttributeValue> item, String level) {
        SortedMap<Integer, Summary> b = RollupItems.buckets(item, level);
        Map<Integer, List<Double>> out = new java.util.TreeMap<>();
        b.forEach((k, s) -> out.put(k, List.of((double) s.count(), s.sum(), s.min(), s.max())));
        return out;
    }

    static long version(Map<String, AttributeValue> item) {
        return Long.parseLong(item.get(RollupItems.VERSION).n());
    }

    long total(CompactMetric metric) {
        return runs.stream().mapToLong(m -> m.count(metric)).sum();
    }
}
