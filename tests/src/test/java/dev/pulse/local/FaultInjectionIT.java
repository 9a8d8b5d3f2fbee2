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
package dev.pulse.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.aggregate.ExactSum;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.lambda.FaultPlan;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.testing.TestConfig;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Exactly-once under fire, end to end on the local stack: 100,000 datapoints through Kinesis, ingest, the
 * scheduled compactor and the query API while DynamoDB throttles ingest's writes and half-applies its batch
 * writes, ingest and builder JVMs are killed or time out mid-invocation, the mapping delivers batches twice and
 * the schedule delivers runs twice, 1% of the records are poison, and the Kinesis emulator restarts. The data lies
 * in two closed hours, every batch spanning all their minutes (the worst case for work per batch), and a fifth of
 * it arrives late, after those hours were built. Then every (series, minute) read back through the API from the
 * rebuilt rollups is compared with a direct computation from what was sent: nothing lost, nothing counted
 * twice, every poison record in the DLQ with its reason, and the compactor's writes bounded by the periods it had
 * to build, not by the batches that marked them.
 */
class FaultInjectionIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long HOUR = 3_600_000L;
    private static final long DAY = 86_400_000L;
    private static final int SERIES = 10;
    private static final int HOURS = 2;
    /** Records sent before the build, and late ones sent after it. */
    private static final int RECORDS = 8_000;

    private static final int LATE_RECORDS = 2_100;
    private static final int DATAPOINTS_PER_RECORD = 10;
    private static final double POISON_RATE = 0.01;
    /** The stack's IngestTimeout (s): small, so compaction marks settle within the test (40 s). */
    private static final String INGEST_TIMEOUT = "15";

    private static final Duration MARK_SETTLE = TestConfig.of(
                    "t", "q", Map.of("INGEST_TIMEOUT_SECONDS", INGEST_TIMEOUT))
            .markSettle();

    /**
     * Faults by kind, counted as injected: random ones (3% crashes, 2% timeouts, 5% second deliveries), and one of
     * each for sure (an early ingest invocation, the builder when the test arms it), so every kind happens in every run.
     */
    static final class Plan implements FaultPlan {
        final Map<String, AtomicLong> injected = new ConcurrentHashMap<>();
        final Map<String, AtomicLong> invocations = new ConcurrentHashMap<>();
        final Map<String, AtomicLong> deliveries = new ConcurrentHashMap<>();
        final Map<String, Map.Entry<Kind, Long>> armed = new ConcurrentHashMap<>();
        volatile DynamoDbFaultProxy proxy;

        private void count(String kind) {
            injected.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        }

        /** The first invocation of {@code logicalId} that starts at {@code notBefore} (epoch ms) or later meets {@code kind}. */
        void arm(String logicalId, Kind kind, long notBefore) {
            armed.put(logicalId, Map.entry(kind, notBefore));
        }

        @Override
        public Fault beforeInvoke(String logicalId) {
            if (!logicalId.equals("IngestFunction") && !logicalId.equals("CompactFunction")) {
                return Fault.NONE;
            }
            long n = invocations
                    .computeIfAbsent(logicalId, k -> new AtomicLong())
                    .incrementAndGet();
            Map.Entry<Kind, Long> arm = armed.get(logicalId);
            Kind sure = arm != null && arm.getValue() <= System.currentTimeMillis() && armed.remove(logicalId, arm)
                    ? arm.getKey()
                    : null;
            if (sure == null && logicalId.equals("IngestFunction")) {
                sure = n == 5 ? Kind.CRASH : n == 9 ? Kind.TIMEOUT : null;
            }
            double dice = ThreadLocalRandom.current().nextDouble();
            Duration after = Duration.ofMillis(20 + ThreadLocalRandom.current().nextInt(250));
            if (sure == Kind.CRASH || sure == null && dice < 0.03) {
                count(logicalId + " crash mid-invocation");
                return new Fault(Kind.CRASH, after);
            }
            if (sure == Kind.TIMEOUT || sure == null && dice < 0.05) {
                count(logicalId + " timeout");
                return new Fault(Kind.TIMEOUT, after);
            }
            return Fault.NONE;
        }

        @Override
        public boolean duplicateDelivery(String functionLogicalId) {
            long n = deliveries
                    .computeIfAbsent(functionLogicalId, k -> new AtomicLong())
                    .incrementAndGet();
            boolean dup = n == 4 || ThreadLocalRandom.current().nextDouble() < 0.05;
            if (dup) {
                count(functionLogicalId + " delivered twice");
            }
            return dup;
        }

        @Override
        public URI dynamoDbEndpoint(URI real) {
            try {
                proxy = new DynamoDbFaultProxy(real, 0.05, 0.05);
                return proxy.endpoint();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /** Expected aggregate of one (series, minute). */
    static final class Expected {
        long count;
        final ExactSum sum = new ExactSum();
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;

        void add(double v) {
            count++;
            sum.add(v);
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
    }

    /** The records of one phase: payloads, which are poison, and the datapoints they carry. */
    private static final class Phase {
        final List<String> payloads = new ArrayList<>();
        final Set<Integer> poison = new HashSet<>();
        long datapoints;
    }

    @Test
    void pipeline_whenFaultsInjectedAndLateDataArrivesAfterTheBuild_queryCountsEveryDatapointExactlyOnce()
            throws Exception {
        Plan plan = new Plan();
        StackOptions base = LocalDeployments.options("fault-injection");
        // Marks settle 40 s after the last write; hours are built 60 s after they end; the schedule (every 5
        // minutes in the template) runs every 5 s.
        StackOptions options = base.withParameters(Map.of(
                        "StreamMode",
                        "PROVISIONED",
                        "StreamShardCount",
                        "2",
                        "BatchSize",
                        "500",
                        "IngestTimeout",
                        INGEST_TIMEOUT,
                        "CompactGraceSeconds",
                        "60"))
                .withFaults(plan, base.workDir().resolve("kinesis-store"))
                .withScheduleEvery(Duration.ofSeconds(5));
        Artifacts.deleteRecursively(base.workDir().resolve("kinesis-store"));
        // Two hours that closed at least an hour ago.
        long hour0 = (System.currentTimeMillis() / HOUR - 3) * HOUR;
        Map<String, Map<Long, Expected>> expected = new TreeMap<>();
        SplittableRandom random = new SplittableRandom(20261121);
        Phase onTime = generate(random, RECORDS, hour0, expected);
        Phase late = generate(random, LATE_RECORDS, hour0, expected);
        assertThat(onTime.datapoints + late.datapoints).isGreaterThanOrEqualTo(100_000);
        int hourPeriods = SERIES * HOURS;

        long started = System.nanoTime();
        // Where the run's time goes, printed with the result: most of it is waiting for marks to settle.
        Map<String, Long> phases = new java.util.LinkedHashMap<>();
        try (LocalDeployment stack = LocalDeployment.start(options, null);
                KinesisClient kinesis = KinesisClient.builder()
                        .endpointOverride(stack.kinesisUrl())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(LocalDeployment.CREDENTIALS)
                        .httpClientBuilder(UrlConnectionHttpClient.builder())
                        .build();
                DynamoDbClient table = DynamoDbClient.builder()
                        .endpointOverride(stack.dynamoDbUrl())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(LocalDeployment.CREDENTIALS)
                        .httpClientBuilder(UrlConnectionHttpClient.builder())
                        .build();
                SignedApi api = new SignedApi(stack.apiUrl())) {
            String stream = stack.ref("Stream");
            ScheduleRunner builder = stack.schedules().stream()
                    .filter(s -> s.spec().functionId().equals("CompactFunction"))
                    .findFirst()
                    .orElseThrow();
            Set<String> poisonSent = new HashSet<>();

            phases.put("stack start", System.nanoTime() - started);
            long at = System.nanoTime();
            send(kinesis, stream, onTime, poisonSent, () -> stack.restartKinesis());
            phases.put("send on time", System.nanoTime() - at);
            at = System.nanoTime();
            awaitConsumed(stack, RECORDS, Duration.ofMinutes(6));
            phases.put("ingest on time", System.nanoTime() - at);
            at = System.nanoTime();
            // The builder dies in the run that builds the data (the first once the newest mark has settled).
            plan.arm("CompactFunction", FaultPlan.Kind.CRASH, settledAt(table, stack.ref("Table")));
            awaitBuilt(builder, Duration.ofMinutes(3));
            phases.put("settle and build", System.nanoTime() - at);
            Map<String, Long> built = hourlyVersions(table, stack.ref("Table"));
            assertThat(built).as("every hour built before the late data").hasSize(hourPeriods);
            long putsBeforeLate = plan.proxy.calls("PutItem");

            at = System.nanoTime();
            send(kinesis, stream, late, poisonSent, null);
            awaitConsumed(stack, RECORDS + LATE_RECORDS, Duration.ofMinutes(4));
            phases.put("send and ingest late", System.nanoTime() - at);
            at = System.nanoTime();
            // And runs into its timeout in the one that rebuilds them.
            plan.arm("CompactFunction", FaultPlan.Kind.TIMEOUT, settledAt(table, stack.ref("Table")));
            awaitBuilt(builder, Duration.ofMinutes(3));
            phases.put("settle and rebuild", System.nanoTime() - at);
            at = System.nanoTime();
            Map<String, Long> rebuilt = hourlyVersions(table, stack.ref("Table"));
            // Every hour took late data, so every hour was rebuilt after it; none is marked: the query serves them.
            assertThat(rebuilt.keySet()).isEqualTo(built.keySet());
            rebuilt.forEach((k, v) -> assertThat(v).as(k + " rebuilt").isGreaterThan(built.get(k)));

            // The check, through the API: every (series, minute) of the sent data.
            long lost = 0;
            long duplicated = 0;
            long inconsistent = 0;
            long cells = 0;
            List<String> keys = new ArrayList<>(expected.keySet());
            ObjectNode q = JSON.createObjectNode();
            ArrayNode series = q.putArray("series");
            for (String k : keys) {
                ObjectNode s = series.addObject();
                s.put("name", k.substring(0, k.indexOf('|')));
                s.putObject("dims").put("host", k.substring(k.indexOf('|') + 1));
            }
            q.put("start", hour0);
            q.put("end", hour0 + HOURS * HOUR);
            q.put("period", 60);
            q.putArray("stats").add("count").add("sum").add("min").add("max");
            SignedApi.Response r = api.post("/query", q.toString());
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            JsonNode body = JSON.readTree(r.body());
            assertThat(body.path("unprocessed").isEmpty()).as(r.body()).isTrue();
            JsonNode timestamps = body.path("timestamps");
            for (int s = 0; s < keys.size(); s++) {
                Map<Long, Expected> want = expected.get(keys.get(s));
                JsonNode values = body.path("series").get(s).path("values");
                for (int t = 0; t < timestamps.size(); t++) {
                    long minute = timestamps.get(t).asLong();
                    Expected e = want.get(minute);
                    long got = values.path("count").get(t).isNull()
                            ? 0
                            : values.path("count").get(t).asLong();
                    long exp = e == null ? 0 : e.count;
                    cells++;
                    lost += Math.max(0, exp - got);
                    duplicated += Math.max(0, got - exp);
                    if (e != null
                            && got == exp
                            && (values.path("sum").get(t).asDouble() != e.sum.value()
                                    || values.path("min").get(t).asDouble() != e.min
                                    || values.path("max").get(t).asDouble() != e.max)) {
                        inconsistent++;
                    }
                }
            }

            // Every poison record in the DLQ with its reason; nothing else there (no batch given up on).
            Map<String, Integer> poisonSeen = new HashMap<>();
            long failureRecords = 0;
            long withoutReason = 0;
            for (String url : stack.queueUrls()) {
                for (Message m : drain(stack, url)) {
                    JsonNode b = JSON.readTree(m.body());
                    if (b.path("kind").asText().equals("poison")) {
                        poisonSeen.merge(
                                b.path("shardId").asText() + "/"
                                        + b.path("sequenceNumber").asText(),
                                1,
                                Integer::sum);
                        if (b.path("reason").asText().isBlank()) {
                            withoutReason++;
                        }
                    } else {
                        failureRecords++;
                    }
                }
            }
            phases.put("query and DLQ checks", System.nanoTime() - at);
            long redundantPoisonMessages =
                    poisonSeen.values().stream().mapToLong(n -> n - 1).sum();

            MappingRunner ingest = stack.mappings().stream()
                    .filter(m -> m.spec().functionId().equals("IngestFunction"))
                    .findFirst()
                    .orElseThrow();
            long puts = plan.proxy.calls("PutItem");
            long closedDays = java.util.stream.LongStream.of(hour0, hour0 + (HOURS - 1) * HOUR)
                    .map(h -> Math.floorDiv(h, DAY))
                    .distinct()
                    .filter(d -> (d + 1) * DAY + 60_000 <= System.currentTimeMillis())
                    .count();
            long periods = hourPeriods + SERIES * closedDays;
            System.out.println();
            System.out.println("fault injection: " + (RECORDS + LATE_RECORDS) + " records, "
                    + (onTime.datapoints + late.datapoints)
                    + " datapoints (" + late.datapoints + " late, after the build) in " + expected.size() + " series x "
                    + HOURS * 60 + " minutes, every batch spanning all of them, " + poisonSent.size()
                    + " poison records, in "
                    + (System.nanoTime() - started) / 1_000_000_000L + " s");
            System.out.println("  injected: DynamoDB throttled " + plan.proxy.throttled.get()
                    + " ingest writes, half-applied BatchWriteItem " + plan.proxy.unprocessedCalls.get() + " ("
                    + plan.proxy.unprocessedItems.get() + " items unprocessed), Kinesis emulator restarts 1");
            System.out.println("  phases: "
                    + String.join(
                            ", ",
                            phases.entrySet().stream()
                                    .map(e -> e.getKey() + " " + e.getValue() / 1_000_000_000L + " s")
                                    .toList()));
            new TreeMap<>(plan.injected).forEach((k, v) -> System.out.println("  injected: " + k + " " + v.get()));
            System.out.println(String.format(
                    Locale.ROOT,
                    "  ingest: %d invocations, %d function errors; builder: %d runs, %d invocations, %d errors",
                    ingest.invocations(),
                    ingest.functionErrors(),
                    builder.runs(),
                    builder.invocations(),
                    builder.errors()));
            System.out.println("  builder: " + puts + " rollup writes (" + putsBeforeLate
                    + " before the late data) for " + hourPeriods
                    + " hours and their days; " + plan.proxy.calls("UpdateItem") + " compaction marks set, "
                    + plan.proxy.calls("BatchWriteItem") + " partial and catalog batch writes, "
                    + plan.proxy.calls(DynamoDbFaultProxy.CHECKPOINT) + " checkpoint claims and commits");
            System.out.println("  checked " + cells
                    + " (series, minute) cells through the query API, from rebuilt hourly rollups");
            System.out.println(
                    "  lost " + lost + ", double counted " + duplicated + ", sum/min/max mismatches " + inconsistent);
            System.out.println("  poison sent " + poisonSent.size() + ", poison in DLQ " + poisonSeen.size()
                    + " (distinct; " + redundantPoisonMessages
                    + " repeated messages from retried batches), batches given up " + failureRecords);

            assertThat(lost).isZero();
            assertThat(duplicated).isZero();
            assertThat(inconsistent).isZero();
            assertThat(cells).isEqualTo((long) SERIES * HOURS * 60);
            assertThat(poisonSeen.keySet()).isEqualTo(poisonSent);
            assertThat(withoutReason).isZero();
            assertThat(failureRecords).isZero();
            assertThat(plan.proxy.throttled.get()).isPositive();
            assertThat(plan.proxy.calls("BatchWriteItem"))
                    .as("ingest's partials go in BatchWriteItems")
                    .isPositive();
            assertThat(plan.proxy.unprocessedCalls.get()).isPositive();
            assertThat(plan.injected.keySet())
                    .contains(
                            "IngestFunction crash mid-invocation",
                            "IngestFunction timeout",
                            "IngestFunction delivered twice",
                            "CompactFunction crash mid-invocation",
                            "CompactFunction timeout",
                            "CompactFunction delivered twice");
            assertThat(builder.errors()).isPositive();
            // Each period is built once when its data has settled and once after the late data, plus the writes
            // of runs cut short: bounded by the periods, whatever the number of batches (~45) that marked them.
            assertThat(puts).isLessThanOrEqualTo(4 * periods);
        } finally {
            if (plan.proxy != null) {
                plan.proxy.close();
            }
        }
    }

    /**
     * {@code records} records of {@link #DATAPOINTS_PER_RECORD} datapoints over {@link #SERIES} series, timestamps
     * anywhere in the {@link #HOURS} hours from {@code hour0} (a batch spans every minute), values over twelve
     * orders of magnitude and both signs; 1% poison.
     */
    private static Phase generate(
            SplittableRandom random, int records, long hour0, Map<String, Map<Long, Expected>> expected) {
        Phase p = new Phase();
        for (int i = 0; i < records; i++) {
            if (random.nextDouble() < POISON_RATE) {
                p.poison.add(i);
                p.payloads.add(
                        random.nextBoolean()
                                ? "{\"name\":\"fault.broken\",\"ts\":\"yesterday\",\"value\":1}"
                                : "not json at all " + i);
                continue;
            }
            ArrayNode batch = JSON.createArrayNode();
            for (int j = 0; j < DATAPOINTS_PER_RECORD; j++) {
                int s = random.nextInt(SERIES);
                long ts = hour0 + random.nextLong(HOURS * HOUR);
                double v = (random.nextDouble() - 0.2) * Math.pow(10, random.nextInt(-3, 9));
                ObjectNode d = batch.addObject();
                d.put("name", "fault.metric" + (s % 4));
                d.putObject("dims").put("host", "h" + s);
                d.put("ts", ts);
                d.put("value", v);
                expected.computeIfAbsent("fault.metric" + (s % 4) + "|h" + s, k -> new TreeMap<>())
                        .computeIfAbsent(ts / 60_000 * 60_000, k -> new Expected())
                        .add(v);
                p.datapoints++;
            }
            p.payloads.add(batch.toString());
        }
        return p;
    }

    /** Sends a phase in PutRecords of 500; {@code midway}, if given, runs once halfway (the emulator's restart). */
    private static void send(
            KinesisClient kinesis, String stream, Phase phase, Set<String> poisonSent, ThrowingRunnable midway)
            throws Exception {
        for (int from = 0; from < phase.payloads.size(); from += 500) {
            if (midway != null && from >= phase.payloads.size() / 2 && from - 500 < phase.payloads.size() / 2) {
                midway.run();
            }
            List<Integer> indexes = new ArrayList<>();
            for (int i = from; i < Math.min(from + 500, phase.payloads.size()); i++) {
                indexes.add(i);
            }
            put(kinesis, stream, phase.payloads, indexes, phase.poison, poisonSent);
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** PutRecords until every record is in, through the emulator's restart; notes where poison records landed. */
    private static void put(
            KinesisClient kinesis,
            String stream,
            List<String> payloads,
            List<Integer> indexes,
            Set<Integer> poisonIndexes,
            Set<String> poisonSent)
            throws InterruptedException {
        List<Integer> pending = indexes;
        long backoff = 50;
        while (!pending.isEmpty()) {
            List<PutRecordsRequestEntry> entries = new ArrayList<>();
            for (int i : pending) {
                entries.add(PutRecordsRequestEntry.builder()
                        .partitionKey("pk" + (i % 97))
                        .data(SdkBytes.fromString(payloads.get(i), StandardCharsets.UTF_8))
                        .build());
            }
            PutRecordsResponse r;
            try {
                r = kinesis.putRecords(b -> b.streamName(stream).records(entries));
            } catch (RuntimeException e) {
                // The emulator is restarting: nothing was acknowledged, send the same records again.
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, 2_000);
                continue;
            }
            List<Integer> failed = new ArrayList<>();
            for (int k = 0; k < r.records().size(); k++) {
                PutRecordsResultEntry e = r.records().get(k);
                if (e.errorCode() != null) {
                    failed.add(pending.get(k));
                } else if (poisonIndexes.contains(pending.get(k))) {
                    poisonSent.add(e.shardId() + "/" + e.sequenceNumber());
                }
            }
            pending = failed;
        }
    }

    /** Until the ingest mapping has read {@code records} records and settled every batch. */
    private static void awaitConsumed(LocalDeployment stack, long records, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        long quietSince = System.nanoTime();
        long lastDone = -1;
        MappingRunner ingest = stack.mappings().stream()
                .filter(m -> m.spec().functionId().equals("IngestFunction"))
                .findFirst()
                .orElseThrow();
        while (System.nanoTime() < deadline) {
            long done = ingest.recordsDone();
            if (done != lastDone) {
                lastDone = done;
                quietSince = System.nanoTime();
            }
            if (ingest.recordsRead() >= records
                    && ingest.backlog() == 0
                    && System.nanoTime() - quietSince > 3_000_000_000L) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("ingest did not settle within " + max + ": " + ingest.describe() + ": read "
                + ingest.recordsRead() + " done " + ingest.recordsDone());
    }

    /**
     * Runs the builder (as its schedule would, retries included) until a run finds nothing left to build in the
     * closed periods; returns that run's result.
     */
    private static JsonNode awaitBuilt(ScheduleRunner builder, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            InvokeResult r = builder.runNow();
            last = new String(r.payload(), StandardCharsets.UTF_8);
            if (!r.failed()) {
                JsonNode result = JSON.readTree(r.payload());
                if (result.path("periodsQueued").asLong(-1) == 0
                        && !result.path("stopped").asBoolean()) {
                    return result;
                }
            }
            Thread.sleep(2_000);
        }
        throw new AssertionError("the builder did not finish within " + max + "; its last run: " + last);
    }

    /** When the newest compaction mark in the table has settled: from then on a run builds everything marked. */
    private static long settledAt(DynamoDbClient client, String table) {
        long newest = client.scanPaginator(b -> b.tableName(table).consistentRead(true)).items().stream()
                .filter(i -> i.containsKey(CompactMarks.MARKED))
                .mapToLong(i -> Long.parseLong(i.get(CompactMarks.MARKED).n()))
                .max()
                .orElseThrow();
        return newest + MARK_SETTLE.toMillis() + 1_000;
    }

    /** pk|sk -> compaction version of every hourly rollup; each must be built and unmarked. */
    private static Map<String, Long> hourlyVersions(DynamoDbClient client, String table) {
        Map<String, Long> out = new TreeMap<>();
        client.scanPaginator(b -> b.tableName(table).consistentRead(true))
                .items()
                .forEach(i -> {
                    String pk = i.get("pk").s();
                    if (pk.startsWith("H#")) {
                        String id = pk + "|" + i.get("sk").s();
                        assertThat(RollupItems.complete(i))
                                .as(id + " built and not marked since")
                                .isTrue();
                        out.put(id, Long.parseLong(i.get(RollupItems.VERSION).n()));
                    }
                });
        return out;
    }

    private static List<Message> drain(LocalDeployment stack, String url) {
        List<Message> all = new ArrayList<>();
        while (true) {
            List<Message> batch = stack.sqs()
                    .receiveMessage(b -> b.queueUrl(url)
                            .maxNumberOfMessages(10)
                            .visibilityTimeout(600)
                            .waitTimeSeconds(0))
                    .messages();
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(batch);
        }
    }
}
