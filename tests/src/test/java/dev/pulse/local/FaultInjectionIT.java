package dev.pulse.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.aggregate.ExactSum;
import dev.pulse.local.lambda.FaultPlan;
import dev.pulse.local.template.MappingSpec;
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
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Exactly-once under fire, end to end on the local stack: 200,000+ datapoints through Kinesis, ingest,
 * compaction and the query API while DynamoDB throttles and half-applies batch writes, ingest and compaction
 * JVMs are killed or time out mid-batch, the event source mappings deliver batches twice, 1% of the records
 * are poison, and the Kinesis emulator restarts. Then every (series, minute) read back through the API is
 * compared with a direct computation from what was sent: nothing lost, nothing counted twice, and every
 * poison record in the DLQ with its reason.
 */
class FaultInjectionIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SERIES = 40;
    private static final int RECORDS = 20_200;
    private static final int DATAPOINTS_PER_RECORD = 10;
    private static final double POISON_RATE = 0.01;
    private static final int MINUTES = 30;

    /** Faults by kind, counted as injected. */
    static final class Plan implements FaultPlan {
        final Map<String, AtomicLong> injected = new ConcurrentHashMap<>();
        volatile DynamoDbFaultProxy proxy;

        private void count(String kind) {
            injected.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public Fault beforeInvoke(String logicalId) {
            if (!logicalId.equals("IngestFunction") && !logicalId.equals("CompactFunction")) {
                return Fault.NONE;
            }
            double dice = ThreadLocalRandom.current().nextDouble();
            Duration after = Duration.ofMillis(20 + ThreadLocalRandom.current().nextInt(250));
            if (dice < 0.03) {
                count(logicalId + " crash mid-batch");
                return new Fault(Kind.CRASH, after);
            }
            if (dice < 0.05) {
                count(logicalId + " timeout");
                return new Fault(Kind.TIMEOUT, after);
            }
            return Fault.NONE;
        }

        @Override
        public boolean duplicateDelivery(String functionLogicalId) {
            boolean dup = ThreadLocalRandom.current().nextDouble() < 0.05;
            if (dup) {
                count(functionLogicalId + " batch delivered twice");
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

    @Test
    void pipeline_whenFaultsInjected_storesEveryDatapointExactlyOnce() throws Exception {
        Plan plan = new Plan();
        StackOptions base = LocalStacks.options("fault-injection");
        StackOptions options = base.withParameters(Map.of("StreamMode", "PROVISIONED", "StreamShardCount", "2",
                        "BatchSize", "100", "CompactBatchSize", "100"))
                .withFaults(plan, base.workDir().resolve("kinesis-store"));
        Artifacts.deleteRecursively(base.workDir().resolve("kinesis-store"));
        long minute0 = (System.currentTimeMillis() / 60_000 - MINUTES) * 60_000;
        Map<String, Map<Long, Expected>> expected = new TreeMap<>();
        List<String> payloads = new ArrayList<>();
        Set<Integer> poisonIndexes = new HashSet<>();
        SplittableRandom random = new SplittableRandom(20261121);
        long datapoints = 0;
        for (int i = 0; i < RECORDS; i++) {
            if (random.nextDouble() < POISON_RATE) {
                poisonIndexes.add(i);
                payloads.add(random.nextBoolean() ? "{\"name\":\"fault.broken\",\"ts\":\"yesterday\",\"value\":1}" : "not json at all " + i);
                continue;
            }
            ArrayNode batch = JSON.createArrayNode();
            for (int j = 0; j < DATAPOINTS_PER_RECORD; j++) {
                int s = random.nextInt(SERIES);
                // Time-local like a live stream: record i carries datapoints from around its position in the
                // 30 minutes (and up to a minute late), so a batch touches a few minutes, not all of them.
                long ts = Math.min(minute0 + MINUTES * 60_000L - 1,
                        minute0 + (long) i * MINUTES * 60_000L / RECORDS + random.nextLong(60_000L));
                // Values over twelve orders of magnitude and both signs: sums must still be exact.
                double v = (random.nextDouble() - 0.2) * Math.pow(10, random.nextInt(-3, 9));
                ObjectNode d = batch.addObject();
                d.put("name", "fault.metric" + (s % 8));
                d.putObject("dims").put("host", "h" + s);
                d.put("ts", ts);
                d.put("value", v);
                expected.computeIfAbsent("fault.metric" + (s % 8) + "|h" + s, k -> new TreeMap<>())
                        .computeIfAbsent(ts / 60_000 * 60_000, k -> new Expected()).add(v);
                datapoints++;
            }
            payloads.add(batch.toString());
        }
        assertThat(datapoints).isGreaterThanOrEqualTo(200_000);

        long started = System.nanoTime();
        try (LocalStack stack = LocalStack.start(options, null);
                KinesisClient kinesis = KinesisClient.builder().endpointOverride(stack.kinesisUrl()).region(Region.US_EAST_1)
                        .credentialsProvider(LocalStack.CREDENTIALS).httpClientBuilder(UrlConnectionHttpClient.builder()).build();
                SignedApi api = new SignedApi(stack.apiUrl())) {
            String stream = stack.ref("Stream");
            Set<String> poisonSent = new HashSet<>();
            int restarts = 0;
            for (int from = 0; from < payloads.size(); from += 500) {
                if (restarts == 0 && from >= payloads.size() / 2) {
                    stack.restartKinesis();
                    restarts++;
                }
                List<Integer> indexes = new ArrayList<>();
                for (int i = from; i < Math.min(from + 500, payloads.size()); i++) {
                    indexes.add(i);
                }
                put(kinesis, stream, payloads, indexes, poisonIndexes, poisonSent);
            }

            awaitSettled(stack, RECORDS, Duration.ofMinutes(8));

            // The check, through the API: every (series, minute) of the sent data.
            long lost = 0;
            long duplicated = 0;
            long inconsistent = 0;
            long cells = 0;
            List<String> keys = new ArrayList<>(expected.keySet());
            for (int from = 0; from < keys.size(); from += 100) {
                List<String> group = keys.subList(from, Math.min(from + 100, keys.size()));
                ObjectNode q = JSON.createObjectNode();
                ArrayNode series = q.putArray("series");
                for (String k : group) {
                    ObjectNode s = series.addObject();
                    s.put("name", k.substring(0, k.indexOf('|')));
                    s.putObject("dims").put("host", k.substring(k.indexOf('|') + 1));
                }
                q.put("start", minute0);
                q.put("end", minute0 + MINUTES * 60_000L);
                q.put("period", 60);
                q.putArray("stats").add("count").add("sum").add("min").add("max");
                SignedApi.Response r = api.post("/query", q.toString());
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                JsonNode body = JSON.readTree(r.body());
                assertThat(body.path("unprocessed").isEmpty()).as(r.body()).isTrue();
                JsonNode timestamps = body.path("timestamps");
                for (int s = 0; s < group.size(); s++) {
                    Map<Long, Expected> want = expected.get(group.get(s));
                    JsonNode values = body.path("series").get(s).path("values");
                    for (int t = 0; t < timestamps.size(); t++) {
                        long minute = timestamps.get(t).asLong();
                        Expected e = want.get(minute);
                        long got = values.path("count").get(t).isNull() ? 0 : values.path("count").get(t).asLong();
                        long exp = e == null ? 0 : e.count;
                        cells++;
                        lost += Math.max(0, exp - got);
                        duplicated += Math.max(0, got - exp);
                        if (e != null && got == exp && (values.path("sum").get(t).asDouble() != e.sum.value()
                                || values.path("min").get(t).asDouble() != e.min || values.path("max").get(t).asDouble() != e.max)) {
                            inconsistent++;
                        }
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
                        poisonSeen.merge(b.path("shardId").asText() + "/" + b.path("sequenceNumber").asText(), 1, Integer::sum);
                        if (b.path("reason").asText().isBlank()) {
                            withoutReason++;
                        }
                    } else {
                        failureRecords++;
                    }
                }
            }
            long redundantPoisonMessages = poisonSeen.values().stream().mapToLong(n -> n - 1).sum();

            MappingRunner ingest = stack.mappings().stream().filter(m -> m.spec().source() == MappingSpec.SourceType.KINESIS).findFirst().orElseThrow();
            MappingRunner compact = stack.mappings().stream().filter(m -> m.spec().source() == MappingSpec.SourceType.DYNAMODB).findFirst().orElseThrow();
            System.out.println();
            System.out.println("fault injection: " + RECORDS + " records, " + datapoints + " datapoints in " + expected.size()
                    + " series x " + MINUTES + " minutes, " + poisonSent.size() + " poison records, in "
                    + (System.nanoTime() - started) / 1_000_000_000L + " s");
            System.out.println("  injected: DynamoDB throttled BatchWriteItem " + plan.proxy.throttled.get()
                    + ", half-applied BatchWriteItem " + plan.proxy.unprocessedCalls.get() + " (" + plan.proxy.unprocessedItems.get()
                    + " items unprocessed), Kinesis emulator restarts " + restarts);
            new TreeMap<>(plan.injected).forEach((k, v) -> System.out.println("  injected: " + k + " " + v.get()));
            System.out.println(String.format(Locale.ROOT, "  mappings: ingest %d invocations, %d function errors; compact %d invocations, %d function errors",
                    ingest.invocations(), ingest.functionErrors(), compact.invocations(), compact.functionErrors()));
            System.out.println("  checked " + cells + " (series, minute) cells through the query API");
            System.out.println("  lost " + lost + ", double counted " + duplicated + ", sum/min/max mismatches " + inconsistent);
            System.out.println("  poison sent " + poisonSent.size() + ", poison in DLQ " + poisonSeen.size() + " (distinct; "
                    + redundantPoisonMessages + " repeated messages from retried batches), batches given up " + failureRecords);

            assertThat(lost).isZero();
            assertThat(duplicated).isZero();
            assertThat(inconsistent).isZero();
            assertThat(poisonSeen.keySet()).isEqualTo(poisonSent);
            assertThat(withoutReason).isZero();
            assertThat(failureRecords).isZero();
            assertThat(plan.proxy.throttled.get()).isPositive();
            assertThat(plan.proxy.unprocessedCalls.get()).isPositive();
            assertThat(plan.injected.keySet()).contains("IngestFunction crash mid-batch", "IngestFunction timeout",
                    "IngestFunction batch delivered twice", "CompactFunction batch delivered twice");
        } finally {
            if (plan.proxy != null) {
                plan.proxy.close();
            }
        }
    }

    /** PutRecords until every record is in, through the emulator's restart; notes where poison records landed. */
    private static void put(KinesisClient kinesis, String stream, List<String> payloads, List<Integer> indexes,
            Set<Integer> poisonIndexes, Set<String> poisonSent) throws InterruptedException {
        List<Integer> pending = indexes;
        long backoff = 50;
        while (!pending.isEmpty()) {
            List<PutRecordsRequestEntry> entries = new ArrayList<>();
            for (int i : pending) {
                entries.add(PutRecordsRequestEntry.builder().partitionKey("pk" + (i % 97))
                        .data(SdkBytes.fromString(payloads.get(i), StandardCharsets.UTF_8)).build());
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

    /** Until both mappings have settled everything and the ingest mapping has read every record. */
    private static void awaitSettled(LocalStack stack, long records, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        long quietSince = System.nanoTime();
        long lastDone = -1;
        while (System.nanoTime() < deadline) {
            long done = stack.mappings().stream().mapToLong(MappingRunner::recordsDone).sum();
            boolean allRead = stack.mappings().stream().filter(m -> m.spec().source() == MappingSpec.SourceType.KINESIS)
                    .allMatch(m -> m.recordsRead() >= records);
            boolean settled = stack.mappings().stream().allMatch(m -> m.backlog() == 0);
            if (done != lastDone) {
                lastDone = done;
                quietSince = System.nanoTime();
            }
            if (allRead && settled && System.nanoTime() - quietSince > 5_000_000_000L) {
                return;
            }
            Thread.sleep(500);
        }
        StringBuilder state = new StringBuilder();
        stack.mappings().forEach(m -> state.append(m.describe()).append(": read ").append(m.recordsRead()).append(" done ")
                .append(m.recordsDone()).append("; "));
        throw new AssertionError("the pipeline did not settle within " + max + ": " + state);
    }

    private static List<Message> drain(LocalStack stack, String url) {
        List<Message> all = new ArrayList<>();
        while (true) {
            List<Message> batch = stack.sqs().receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(600)
                    .waitTimeSeconds(0)).messages();
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(batch);
        }
    }
}
