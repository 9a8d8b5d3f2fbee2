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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.pulse.aggregate.Summary;
import dev.pulse.config.ConfigException;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.query.QueryHandler;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RawData;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestConfig;
import dev.pulse.testing.TestContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Data at the age boundaries, on DynamoDB Local with expiry simulated: DynamoDB Local never expires items, so the
 * test deletes every item whose TTL has passed at the simulated clock ({@link #expire}), as DynamoDB's TTL would
 * (some time after it; never before). Ingest, redrive and the builder run with the production wiring on the clock
 * the test moves. Each case checks the stored rollups and marks, then the query's answer for the hour and the day.
 */
@ExtendWith(Emulators.class)
class AgeBoundaryIT {

    private static final long MINUTE = 60_000L;
    private static final long HOUR = 3_600_000L;
    private static final long DAY = 86_400_000L;
    /** The hour every case is about: 60 datapoints, one a minute, stored and built on time. */
    private static final long H = Instant.parse("2026-11-01T10:00:00Z").toEpochMilli();

    private static final long H_DAY = H - Math.floorMod(H, DAY);
    private static final String SHARD = "shardId-000000000000";
    private static final String FN = "checkout";

    /** What the stored rollups and the query must hold. */
    private final RawData raw = new RawData();

    private long sequence;

    @Test
    void
            redrive_whenLateDataOfABuiltHourIsRedrivenWithinTheStreamRetention_theRebuiltHourAndDayHoldAllOfItAfterThePartialsExpire() {
        // The settings: records discarded after an hour, kept on the stream for a week. With the default 17
        // days of partials they are refused; the partials must cover 14 days of late data plus the week of redrive.
        Map<String, String> week = Map.of("MAX_RECORD_AGE_SECONDS", "3600", "STREAM_RETENTION_HOURS", "168");
        assertThatThrownBy(() -> TestConfig.of("t", "q", week))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("STREAM_RETENTION_HOURS (168 = 604800 s");
        Map<String, String> settings = new java.util.HashMap<>(week);
        settings.put("PARTIAL_TTL_DAYS", "23");
        try (Pipeline p = new Pipeline("pulse-age-redrive", Instant.ofEpochMilli(H + HOUR + MINUTE), settings)) {
            compactTheHourAndItsDay(p);

            // Fourteen days later a record holding a datapoint of that hour arrives; its batch is discarded (record
            // age), and the next batch of the shard commits past it.
            long arrival = H + 14 * DAY;
            List<KinesisEvent.KinesisEventRecord> discarded =
                    List.of(record(H + 30 * MINUTE + 5_000, 1_000.0, arrival, raw));
            p.clock().set(Instant.ofEpochMilli(arrival + MINUTE));
            p.ingest(List.of(record(arrival, 2.0, arrival, raw)));

            // Redriven six days and 21 hours after its arrival, inside the week the stream keeps it (the builder
            // has built the hour and day of the batch after it meanwhile).
            p.clock().set(Instant.ofEpochMilli(arrival + 6 * DAY + 21 * HOUR));
            assertThat(p.compactAll().hoursBuilt()).isEqualTo(1);
            p.redrive(discarded);
            CompactResult rebuilt = p.compactAll();

            assertThat(rebuilt.hoursBuilt()).isEqualTo(1);
            assertThat(rebuilt.daysBuilt()).isEqualTo(1);
            assertThat(rebuilt.marksResolved()).isZero();
            // Then the partials of the hour expire: the rollups are all that is left, and they hold all 61.
            p.clock().set(Instant.ofEpochMilli(H + 24 * DAY));
            assertThat(expire(p)).isGreaterThanOrEqualTo(61);
            assertThat(p.build().periodsQueued()).isZero();
            assertHourAndDayHold(p, 61);
            assertQueryAnswersTheRawData(p);
        }
    }

    @Test
    void redrive_whenTheRecordsArrivedLongerAgoThanTheRedriveWindow_isRefusedNamingTheWindowAndWritesNothing() {
        Map<String, String> settings =
                Map.of("MAX_RECORD_AGE_SECONDS", "3600", "STREAM_RETENTION_HOURS", "168", "PARTIAL_TTL_DAYS", "23");
        try (Pipeline p = new Pipeline("pulse-age-refused", Instant.ofEpochMilli(H + HOUR + MINUTE), settings)) {
            compactTheHourAndItsDay(p);
            long arrival = H + 14 * DAY;
            RawData lost = new RawData();
            KinesisEvent.KinesisEventRecord late = record(H + 30 * MINUTE + 5_000, 1_000.0, arrival, lost);
            late.setEventName(IngestHandler.REDRIVE_EVENT_NAME);
            p.clock().set(Instant.ofEpochMilli(arrival + MINUTE));
            p.ingest(List.of(record(arrival, 2.0, arrival, raw)));
            Map<String, AttributeValue> hourBefore = hourItem(p);
            int partialsBefore = partials(p);

            // Eight days after arrival: the stream kept the record longer than STREAM_RETENTION_HOURS says. The
            // window is 23 days - 14 days - 1 h - 300 s - 130 s - 1 day = 687,170 s.
            p.clock().set(Instant.ofEpochMilli(arrival + 8 * DAY));
            IngestHandler handler = IngestFunction.handler(
                    IngestFunction.service(
                            p.config, Emulators.dynamoAsync(), Emulators.sqs().client(), p.clock()),
                    new RecordingMetrics(),
                    p.config.safetyMarginMillis());
            KinesisEvent event = new KinesisEvent();
            event.setRecords(List.of(late));

            assertThatThrownBy(() -> handler.handleRequest(event, new TestContext("redrive", 60_000, 1024)))
                    .isInstanceOf(IngestHandler.RedriveFailedException.class)
                    .hasMessageContaining(
                            "redrive refused: record " + late.getKinesis().getSequenceNumber())
                    .hasMessageContaining("past the redrive window of 687170 s")
                    .hasMessageContaining("STREAM_RETENTION_HOURS");
            assertThat(hourItem(p)).isEqualTo(hourBefore).doesNotContainKey(CompactMarks.MARKED);
            assertThat(partials(p)).isEqualTo(partialsBefore);
            assertHourAndDayHold(p, 60);
        }
    }

    @Test
    void
            handleRequest_whenTheBuilderRestartsAfterTheHoursPartialsExpired_resolvesTheMarksAndTheHourAndDayKeepTheirRollups() {
        try (Pipeline p = new Pipeline("pulse-age-stopped", Instant.ofEpochMilli(H + HOUR + MINUTE), Map.of())) {
            compactTheHourAndItsDay(p);

            // Thirteen days later a late datapoint of the hour arrives and marks it and its day; the builder is
            // stopped.
            RawData lost = new RawData();
            long arrival = H + 13 * DAY;
            p.clock().set(Instant.ofEpochMilli(arrival + MINUTE));
            p.ingest(List.of(record(H + 30 * MINUTE + 5_000, 1_000.0, arrival, lost)));
            assertThat(hourItem(p)).containsKey(CompactMarks.MARKED);
            assertThat(dayItem(p)).containsKey(CompactMarks.MARKED);

            // It stays stopped for six days, past its allowance: every partial of the hour expires meanwhile, the late
            // one with them. The hour is now older than the partials' retention, outside the default scan range.
            p.clock().set(Instant.ofEpochMilli(H + 19 * DAY));
            assertThat(expire(p)).isEqualTo(61);
            RecordingMetrics metrics = new RecordingMetrics();
            CompactResult restarted = CompactFunction.handler(p.config, Emulators.dynamoAsync(), p.clock(), metrics)
                    .handleRequest(new ScheduledEvent(), new TestContext("build", 60_000, 1024));

            assertThat(restarted.marksResolved()).isEqualTo(1);
            assertThat(restarted.hoursBuilt()).isZero();
            assertThat(restarted.daysBuilt())
                    .as("the day, rebuilt from its hourly rollups")
                    .isEqualTo(1);
            assertThat(restarted.periodsPending()).isZero();
            assertThat(metrics.last("ExpiredMarks")).isEqualTo(1);
            assertHourAndDayHold(p, 60);
            assertQueryAnswersTheRawData(p);
            // Nothing is left in the queue: the next run finds nothing and resolves nothing.
            p.clock().advance(Duration.ofMinutes(5));
            CompactResult next = p.build();
            assertThat(next.periodsQueued()).isZero();
            assertThat(next.marksResolved()).isZero();
        }
    }

    @Test
    void handleRequest_whenTheBuilderRestartsAfterTheHourlyRollupsExpired_resolvesTheDayMarkAndTheDayKeepsItsRollup() {
        try (Pipeline p = new Pipeline("pulse-age-outage", Instant.ofEpochMilli(H + HOUR + MINUTE), Map.of())) {
            compactTheHourAndItsDay(p);
            long arrival = H + 13 * DAY;
            p.clock().set(Instant.ofEpochMilli(arrival + MINUTE));
            p.ingest(List.of(record(H + 30 * MINUTE + 5_000, 1_000.0, arrival, new RawData())));

            // Stopped for 40 days: the hour's partials and then its hourly rollup (35 days) expire, the mark with the
            // rollup; the daily rollup, kept ten years, still carries its mark.
            p.clock().set(Instant.ofEpochMilli(H + 40 * DAY));
            expire(p);
            assertThat(item(p, KeyScheme.hourlyPk(key(), H), KeyScheme.hour(H))).isEmpty();
            assertThat(dayItem(p)).containsKey(CompactMarks.MARKED);
            RecordingMetrics metrics = new RecordingMetrics();
            CompactResult restarted = CompactFunction.handler(p.config, Emulators.dynamoAsync(), p.clock(), metrics)
                    .handleRequest(new ScheduledEvent(), new TestContext("build", 60_000, 1024));

            assertThat(restarted.marksResolved()).isEqualTo(1);
            assertThat(restarted.daysBuilt()).isZero();
            assertThat(metrics.last("ExpiredMarks")).isEqualTo(1);
            Map<String, AttributeValue> day = dayItem(p);
            assertThat(day).doesNotContainKey(CompactMarks.MARKED).doesNotContainKey(CompactMarks.DUE);
            RawData.assertSummary(
                    "day", RollupItems.total(day, RollupItems.HOURS), RawData.flatten(raw.byMinute(key())));
            // Past the minute detail the day is answered from the daily rollup.
            raw.assertQueryMatches(p.queryHandler(), iso(H_DAY), iso(H_DAY + DAY), "P1D");
        }
    }

    /** The hour's 60 datapoints stored on time; the hour, then its day, built (the run leaves the scan cursor). */
    private void compactTheHourAndItsDay(Pipeline p) {
        List<KinesisEvent.KinesisEventRecord> onTime = new ArrayList<>();
        for (int m = 0; m < 60; m++) {
            onTime.add(record(H + m * MINUTE + 1_000, 1.0 + m, H + HOUR + MINUTE, raw));
        }
        p.ingest(onTime);
        p.clock().set(Instant.ofEpochMilli(H_DAY + DAY + 6 * MINUTE));
        CompactResult built = p.compactAll();
        assertThat(built.hoursBuilt()).isEqualTo(1);
        assertThat(built.daysBuilt()).isEqualTo(1);
        assertHourAndDayHold(p, 60);
    }

    /** The hour's and the day's rollups are built, carry no mark, and hold exactly the raw data of the hour. */
    private void assertHourAndDayHold(Pipeline p, long count) {
        List<Double> values = RawData.flatten(raw.byPeriod(key(), HOUR).get(H));
        assertThat(values).hasSize((int) count);
        Map<String, AttributeValue> hour = hourItem(p);
        Map<String, AttributeValue> day = dayItem(p);
        assertThat(hour).doesNotContainKey(CompactMarks.MARKED).doesNotContainKey(CompactMarks.DUE);
        assertThat(day).doesNotContainKey(CompactMarks.MARKED).doesNotContainKey(CompactMarks.DUE);
        assertThat(hour.get("count").n()).isEqualTo(Long.toString(count));
        RawData.assertSummary("hour", RollupItems.total(hour, RollupItems.MINUTES), values);
        Summary hourOfDay = RollupItems.buckets(day, RollupItems.HOURS).get((int) ((H - H_DAY) / HOUR));
        RawData.assertSummary("the hour in its day", hourOfDay, values);
        RawData.assertSummary(
                "day",
                RollupItems.total(day, RollupItems.HOURS),
                RawData.flatten(raw.byPeriod(key(), DAY).get(H_DAY)));
    }

    /** The query over the day (by day and by hour) and over the hour (by five minutes) answers the raw data. */
    private void assertQueryAnswersTheRawData(Pipeline p) {
        QueryHandler query = p.queryHandler();
        raw.assertQueryMatches(query, iso(H_DAY), iso(H_DAY + DAY), "P1D");
        raw.assertQueryMatches(query, iso(H_DAY), iso(H_DAY + DAY), "PT1H");
        raw.assertQueryMatches(query, iso(H), iso(H + HOUR), "PT5M");
    }

    /**
     * DynamoDB's TTL at the simulated clock: deletes every item whose {@code ttl} (epoch seconds) has passed.
     * Returns how many it deleted.
     */
    private static int expire(Pipeline p) {
        long now = p.clock().millis() / 1000;
        List<Map<String, AttributeValue>> expired = new ArrayList<>();
        p.reader()
                .scanPaginator(b -> b.tableName(p.table).consistentRead(true))
                .items()
                .forEach(i -> {
                    AttributeValue ttl = i.get(RollupItems.TTL);
                    if (ttl != null && Long.parseLong(ttl.n()) <= now) {
                        expired.add(Map.of(KeyScheme.PK, i.get(KeyScheme.PK), KeyScheme.SK, i.get(KeyScheme.SK)));
                    }
                });
        expired.forEach(k -> p.reader().deleteItem(b -> b.tableName(p.table).key(k)));
        return expired.size();
    }

    /** One record of one datapoint of the series, arriving at {@code arrival}, noted in {@code into}. */
    private KinesisEvent.KinesisEventRecord record(long ts, double value, long arrival, RawData into) {
        into.add("latency", Map.of("fn", FN), ts, value);
        String json = String.format(
                Locale.ROOT,
                "{\"name\":\"latency\",\"dims\":{\"fn\":\"%s\"},\"ts\":%d,\"value\":%s}%n",
                FN,
                ts,
                Double.toString(value));
        return KinesisRecords.record(SHARD, sequence++, "pk", json.getBytes(StandardCharsets.UTF_8), arrival);
    }

    private String key() {
        return raw.keys().get(0);
    }

    private Map<String, AttributeValue> hourItem(Pipeline p) {
        Map<String, AttributeValue> item = item(p, KeyScheme.hourlyPk(key(), H), KeyScheme.hour(H));
        assertThat(item).as("hourly rollup").isNotEmpty();
        return item;
    }

    private Map<String, AttributeValue> dayItem(Pipeline p) {
        Map<String, AttributeValue> item = item(p, KeyScheme.dailyPk(key(), H_DAY), KeyScheme.day(H_DAY));
        assertThat(item).as("daily rollup").isNotEmpty();
        return item;
    }

    private static Map<String, AttributeValue> item(Pipeline p, String pk, String sk) {
        return p.reader()
                .getItem(b -> b.tableName(p.table)
                        .consistentRead(true)
                        .key(Map.of(KeyScheme.PK, AttributeValue.fromS(pk), KeyScheme.SK, AttributeValue.fromS(sk))))
                .item();
    }

    /** The stored minute partials of the hour. */
    private int partials(Pipeline p) {
        return p.reader()
                .query(b -> b.tableName(p.table)
                        .consistentRead(true)
                        .keyConditionExpression("pk = :pk")
                        .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(KeyScheme.partialPk(key(), H)))))
                .count();
    }

    private static String iso(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }
}
