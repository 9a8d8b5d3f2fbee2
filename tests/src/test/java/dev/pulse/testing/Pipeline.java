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
package dev.pulse.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.compact.CompactFunction;
import dev.pulse.compact.CompactMetric;
import dev.pulse.compact.CompactResult;
import dev.pulse.compact.CompactService;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.IngestService;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.QueryFunction;
import dev.pulse.query.QueryHandler;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The write side of a stack on the emulators, wired as in production: a table (with the compaction queue index),
 * ingest into it (one warm container), and the scheduled compactor, all on a clock the test moves. Time
 * passes only when the test says so, so "the schedule fires", "the marks have settled" and "the hour has closed"
 * are steps of the test, not waits.
 */
public final class Pipeline implements AutoCloseable {

    private static final AtomicInteger TABLES = new AtomicInteger();

    public final String table;
    public final PulseConfig config;
    private final MutableClock clock;
    private final IngestService ingest;
    private final CompactService builder;
    private final DynamoDbClient reader = Emulators.dynamo().client();

    /** A stack accepting datapoints up to {@code acceptPast} old, the template's defaults otherwise. */
    public Pipeline(String prefix, Instant now, Duration acceptPast) {
        this(prefix, now, TestConfig.acceptingPast(acceptPast));
    }

    /** A stack with the template's defaults and {@code settings} (function environment variables) over them. */
    public Pipeline(String prefix, Instant now, Map<String, String> settings) {
        this.table = prefix + "-" + TABLES.incrementAndGet();
        this.clock = new MutableClock(now);
        // No stream: nothing reads it any more, and DynamoDB Local slows writes to a streamed table as it fills.
        LocalDynamoDb.createTable(reader, table);
        this.config = TestConfig.of(table, Emulators.sqs().createQueue(table + "-dlq"), settings);
        this.ingest = IngestFunction.service(
                config, Emulators.dynamoAsync(), Emulators.sqs().client(), clock);
        this.builder = builder(Emulators.dynamoAsync());
    }

    public MutableClock clock() {
        return clock;
    }

    /** A reader on the emulator (synchronous, for checks). */
    public DynamoDbClient reader() {
        return reader;
    }

    /** Another builder on this table and clock, through {@code client} (a wrapper that delays or fails calls). */
    public CompactService builder(DynamoDbAsyncClient client) {
        return CompactFunction.service(config, client, clock);
    }

    /** A cold query container on this table and clock: a rollup cache of its own, metrics kept in memory. */
    public QueryHandler queryHandler() {
        return queryHandler(new RecordingMetrics());
    }

    /** A cold query container on this table and clock, publishing to {@code metrics}. */
    public QueryHandler queryHandler(Metrics metrics) {
        return QueryFunction.handler(config, Emulators.dynamoAsync(), clock, metrics);
    }

    /** Ingests {@code records} in batches of 100 at the clock's time; every batch must succeed. */
    public void ingest(List<KinesisEvent.KinesisEventRecord> records) {
        for (int i = 0; i < records.size(); i += 100) {
            IngestResult r = ingest.ingest(
                    records.subList(i, Math.min(records.size(), i + 100)),
                    Deadline.inMillis(30_000),
                    new InvocationMetrics<>(IngestMetric.class));
            assertThat(r.failed()).as(r.failureReason()).isFalse();
        }
    }

    /**
     * Stores {@code records} again as the redrive tool does ({@link IngestService#redrive}), in the batches of 100
     * {@link #ingest} made of them: below the shard's committed position, overwriting the partials those batches
     * wrote with the same items; every batch must succeed.
     */
    public void redrive(List<KinesisEvent.KinesisEventRecord> records) {
        for (int i = 0; i < records.size(); i += 100) {
            IngestResult r = ingest.redrive(
                    records.subList(i, Math.min(records.size(), i + 100)),
                    Deadline.inMillis(30_000),
                    new InvocationMetrics<>(IngestMetric.class));
            assertThat(r.failed()).as(r.failureReason()).isFalse();
        }
    }

    /** One scheduled run of the builder at the clock's time. */
    public CompactResult build() {
        return builder.build(Deadline.inMillis(60_000), new InvocationMetrics<>(CompactMetric.class));
    }

    /**
     * Lets every mark settle (the clock moves on by {@link PulseConfig#markSettle()}), then runs the builder once;
     * that run must build every closed period and leave nothing pending.
     */
    public CompactResult compactAll() {
        clock.advance(config.markSettle().plusMillis(1));
        CompactResult r = build();
        assertThat(r.stopped()).as(r.stopReason()).isFalse();
        assertThat(r.periodsPending()).as("periods left pending by " + r).isZero();
        assertThat(r.losingWrites()).as("losing writes in " + r).isZero();
        return r;
    }

    /** Drops the table (DynamoDB Local keeps every table in memory for the whole run). */
    @Override
    public void close() {
        reader.deleteTable(b -> b.tableName(table));
        reader.close();
    }
}
