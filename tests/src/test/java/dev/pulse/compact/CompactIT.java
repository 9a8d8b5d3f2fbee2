package dev.pulse.compact;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.pulse.aggregate.Summary;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.dlq.DeadLetterQueue;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.IngestService;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.model.DatapointValidator;
import dev.pulse.model.SeriesKey;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.DynamoDbStore;
import dev.pulse.store.KeyScheme;
import dev.pulse.store.RollupItems;
import dev.pulse.store.SeriesCatalog;
import dev.pulse.store.SummaryAttributes;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.StoredPartials;
import dev.pulse.testing.TableStream;
import dev.pulse.testing.TestContext;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;

/**
 * Kinesis records -> IngestService -> DynamoDB Local -> the table's stream -> CompactHandler -> hourly and
 * daily rollups, checked against a direct computation from the raw datapoints across an hour and a day
 * boundary, with late data; and re-processing the stream twice, reversed, leaves every rollup byte-identical.
 */
@ExtendWith(Emulators.class)
class CompactIT {

    private static final Instant NOW = Instant.parse("2026-11-21T02:00:00Z");
    private static final long START = Instant.parse("2026-11-20T22:30:00Z").toEpochMilli();
    private static final long SPAN = Duration.ofHours(3).toMillis();
    private static final long HOUR = 3_600_000L;
    private static final long DAY = 86_400_000L;
    private static final AtomicInteger TABLES = new AtomicInteger();

    private final String table = "pulse-compact-" + TABLES.incrementAndGet();
    private final DynamoDbClient reader = Emulators.dynamo().client();
    /** series -> minute start -> raw values. */
    private final Map<String, SortedMap<Long, List<Double>>> raw = new TreeMap<>();

    @Test
    void compact_whenStreamProcessed_rollupsEqualDirectComputationAndReprocessingIsByteIdentical() throws Exception {
        Emulators.dynamo().createTable(table);
        ingest(generate(new Random(11), 1200));
        CompactHandler handler = handler();
        List<DynamodbEvent.DynamodbStreamRecord> all = new ArrayList<>();
        try (TableStream stream = TableStream.of(Emulators.dynamo(), table)) {
            drain(stream, handler, all);

            assertHourlyRollupsMatch();
            assertDailyRollupsMatch();

            Map<String, Map<String, AttributeValue>> before = rollups();
            List<DynamodbEvent.DynamodbStreamRecord> reversed = new ArrayList<>(all);
            Collections.reverse(reversed);
            invoke(handler, reversed);
            invoke(handler, all);
            drain(stream, handler, all);
            assertThat(rollups()).isEqualTo(before);
        }
    }

    @Test
    void compact_whenLateDataArrivesAfterCompaction_rollupsTakeIt() throws Exception {
        Emulators.dynamo().createTable(table);
        Random random = new Random(12);
        ingest(generate(random, 300));
        CompactHandler handler = handler();
        List<DynamodbEvent.DynamodbStreamRecord> all = new ArrayList<>();
        try (TableStream stream = TableStream.of(Emulators.dynamo(), table)) {
            drain(stream, handler, all);
            ingest(generate(random, 300)); // the same hours again: late points for already compacted rollups
            drain(stream, handler, all);
        }
        assertHourlyRollupsMatch();
        assertDailyRollupsMatch();
    }

    private CompactHandler handler() {
        CompactService service = new CompactService(Emulators.dynamo().asyncClient(), table, 4,
                Duration.ofDays(400).toSeconds(), Duration.ofDays(3650).toSeconds(), Clock.fixed(NOW, ZoneOffset.UTC));
        return new CompactHandler(service, MetricsBuilder.builder().withNamespace("PulseTest").withService("compact").build(),
                3_000);
    }

    /** Polls the stream and feeds it to the handler in batches of 100 until no new record appears. */
    private static void drain(TableStream stream, CompactHandler handler, List<DynamodbEvent.DynamodbStreamRecord> all) {
        for (int round = 0; round < 20; round++) {
            List<DynamodbEvent.DynamodbStreamRecord> batch = stream.poll();
            if (batch.isEmpty()) {
                return;
            }
            all.addAll(batch);
            invoke(handler, batch);
        }
        throw new AssertionError("the stream did not settle within 20 rounds");
    }

    private static void invoke(CompactHandler handler, List<DynamodbEvent.DynamodbStreamRecord> records) {
        for (int i = 0; i < records.size(); i += 100) {
            DynamodbEvent event = new DynamodbEvent();
            event.setRecords(records.subList(i, Math.min(records.size(), i + 100)));
            StreamsEventResponse r = handler.handleRequest(event, new TestContext("compact-" + i, 60_000, 1024));
            assertThat(r.getBatchItemFailures()).isEmpty();
        }
    }

    /** NDJSON records over 4 series, timestamps uniformly over 3 hours across midnight, values 1e-3..1e6. */
    private List<KinesisEvent.KinesisEventRecord> generate(Random random, int n) {
        List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
        int base = raw.values().stream().mapToInt(m -> m.values().stream().mapToInt(List::size).sum()).sum() * 10;
        for (int i = 0; i < n; i++) {
            StringBuilder ndjson = new StringBuilder();
            for (int j = 0, dps = 1 + random.nextInt(3); j < dps; j++) {
                String fn = "fn" + random.nextInt(4);
                long ts = START + (long) (random.nextDouble() * SPAN);
                double value = Math.pow(10, random.nextDouble() * 9 - 3);
                ndjson.append(String.format(Locale.ROOT, "{\"name\":\"lambda.duration\",\"dims\":{\"function\":\"%s\"},"
                        + "\"ts\":%d,\"value\":%s}%n", fn, ts, Double.toString(value)));
                raw.computeIfAbsent(SeriesKey.of("lambda.duration", Map.of("function", fn)), k -> new TreeMap<>())
                        .computeIfAbsent(Math.floorDiv(ts, 60_000L) * 60_000L, k -> new ArrayList<>()).add(value);
            }
            out.add(KinesisRecords.record("shardId-000000000000", base + i, "pk" + i,
                    ndjson.toString().getBytes(StandardCharsets.UTF_8), NOW.toEpochMilli()));
        }
        return out;
    }

    private void ingest(List<KinesisEvent.KinesisEventRecord> records) {
        String dlq = Emulators.sqs().createQueue(table + "-dlq");
        IngestService ingest = new IngestService(
                new RecordDecoder(new DatapointValidator(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2))),
                new DynamoDbStore(Emulators.dynamo().asyncClient(), table, 8, new Backoff(5, 100)),
                new SeriesCatalog(1000),
                new DeadLetterQueue(Emulators.sqs().client(), dlq, new Backoff(5, 100)),
                Duration.ofDays(35).toSeconds(), Clock.fixed(NOW, ZoneOffset.UTC));
        for (int i = 0; i < records.size(); i += 100) {
            IngestResult r = ingest.ingest(records.subList(i, Math.min(records.size(), i + 100)), Deadline.inMillis(30_000),
                    new InvocationMetrics<>(IngestMetric.class));
            assertThat(r.failed()).isFalse();
        }
    }

    private void assertHourlyRollupsMatch() {
        raw.forEach((series, minutes) -> grouped(minutes, HOUR).forEach((hourStart, byMinute) -> {
            Map<String, AttributeValue> item = get(KeyScheme.hourlyPk(series, hourStart), KeyScheme.hour(hourStart));
            SortedMap<Integer, Summary> buckets = RollupItems.buckets(item, RollupItems.MINUTES);
            assertThat(buckets.keySet()).as(series + " minutes of " + KeyScheme.hour(hourStart))
                    .containsExactlyElementsOf(byMinute.keySet().stream().map(m -> (int) ((m - hourStart) / 60_000L)).toList());
            byMinute.forEach((minute, values) -> assertSummary(series + " @ " + KeyScheme.minute(minute),
                    buckets.get((int) ((minute - hourStart) / 60_000L)), values));
            assertSummary(series + " hour " + KeyScheme.hour(hourStart), SummaryAttributes.read(item), flatten(byMinute));
        }));
    }

    private void assertDailyRollupsMatch() {
        raw.forEach((series, minutes) -> grouped(minutes, DAY).forEach((dayStart, byMinute) -> {
            Map<String, AttributeValue> item = get(KeyScheme.dailyPk(series, dayStart), KeyScheme.day(dayStart));
            SortedMap<Integer, Summary> buckets = RollupItems.buckets(item, RollupItems.HOURS);
            grouped(byMinute, HOUR).forEach((hourStart, inHour) -> assertSummary(
                    series + " hour " + KeyScheme.hour(hourStart), buckets.get((int) ((hourStart - dayStart) / HOUR)),
                    flatten(inHour)));
            assertThat(buckets).hasSize(grouped(byMinute, HOUR).size());
            assertSummary(series + " day " + KeyScheme.day(dayStart), SummaryAttributes.read(item), flatten(byMinute));
        }));
    }

    private static void assertSummary(String at, Summary got, List<Double> values) {
        StoredPartials.Summary want = StoredPartials.Summary.of(values);
        assertThat(got).as(at + " missing").isNotNull();
        assertThat(got.count()).as(at + " count").isEqualTo(want.count());
        assertThat(got.sum()).as(at + " sum").isEqualTo(want.sum());
        assertThat(got.min()).as(at + " min").isEqualTo(want.min());
        assertThat(got.max()).as(at + " max").isEqualTo(want.max());
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        for (double q : new double[] {0.5, 0.9, 0.99}) {
            double exact = sorted.get((int) Math.floor(q * (sorted.size() - 1)));
            assertThat(got.quantile(q)).as(at + " p" + q).isCloseTo(exact, org.assertj.core.api.Assertions.withinPercentage(1.0001));
        }
    }

    private static SortedMap<Long, SortedMap<Long, List<Double>>> grouped(SortedMap<Long, List<Double>> minutes, long size) {
        SortedMap<Long, SortedMap<Long, List<Double>>> out = new TreeMap<>();
        minutes.forEach((m, vs) -> out.computeIfAbsent(Math.floorDiv(m, size) * size, k -> new TreeMap<>()).put(m, vs));
        return out;
    }

    private static List<Double> flatten(SortedMap<Long, List<Double>> byMinute) {
        return byMinute.values().stream().flatMap(List::stream).toList();
    }

    private Map<String, AttributeValue> get(String pk, String sk) {
        Map<String, AttributeValue> item = reader.getItem(b -> b.tableName(table).consistentRead(true)
                .key(Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromS(sk)))).item();
        assertThat(item).as(pk + " / " + sk).isNotEmpty();
        return item;
    }

    /** Every rollup item, keyed by pk/sk. */
    private Map<String, Map<String, AttributeValue>> rollups() {
        Map<String, Map<String, AttributeValue>> out = new TreeMap<>();
        reader.scanPaginator(b -> b.tableName(table).consistentRead(true)).items().forEach(i -> {
            String pk = i.get("pk").s();
            if (pk.startsWith("H#") || pk.startsWith("D#")) {
                out.put(pk + "/" + i.get("sk").s(), i);
            }
        });
        assertThat(out).isNotEmpty();
        return out;
    }
}
