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

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.bench.CapacityMeter.Term;
import dev.pulse.compact.CompactFunction;
import dev.pulse.compact.CompactHandler;
import dev.pulse.compact.CompactResult;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.query.QueryFunction;
import dev.pulse.query.QueryHandler;
import dev.pulse.testing.MutableClock;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.testing.TestContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * One workload of the cost benchmark on its own table: the real IngestFunction, CompactFunction and QueryFunction
 * wiring (each on its own metered client, all on one simulated clock) driven minute by minute: the records arriving
 * in the minute batched per shard as the event source mapping would, the builder on its schedule, the dashboard
 * query once a minute. Every invocation is timed and what it prints is counted.
 */
final class CostSim {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final long MINUTE = 60_000L;

    /** The dashboard: series (name and dims) asked every minute over the last {@code hours} at {@code period}. */
    record Dashboard(List<ObjectNode> series, int hours, String period, List<String> stats) {}

    /** What the functions did and how long they took. */
    static final class Stats {
        long records;
        long recordBytes;
        long putUnits;
        long onDemandBytes;
        long datapointsIn;
        long poison;
        final List<double[]> ingestCalls = new ArrayList<>(); // {records, ms}
        long ingestLogBytes;
        long ingestEmfBytes;
        long ingestBilledMs;
        final List<double[]> compactRuns = new ArrayList<>(); // {ms, hoursBuilt, daysBuilt, losing, pending, stopped}
        long compactLogBytes;
        long compactEmfBytes;
        long queries;
        long queryPages;
        double queryMs;
        long queryLogBytes;
        long queryEmfBytes;
        long deadLetters;

        int ingestInvocations() {
            return ingestCalls.size();
        }

        double ingestMs() {
            return ingestCalls.stream().mapToDouble(c -> c[1]).sum();
        }

        double builderMs() {
            return compactRuns.stream().mapToDouble(r -> r[0]).sum();
        }

        long hoursBuilt() {
            return (long) compactRuns.stream().mapToDouble(r -> r[1]).sum();
        }

        long daysBuilt() {
            return (long) compactRuns.stream().mapToDouble(r -> r[2]).sum();
        }

        long losingWrites() {
            return (long) compactRuns.stream().mapToDouble(r -> r[3]).sum();
        }

        long stoppedRuns() {
            return compactRuns.stream().filter(r -> r[5] > 0).count();
        }
    }

    private final String name;
    private final CostTraffic.Traffic traffic;
    private final int shards;
    private final CostSettings settings;
    private final Dashboard dashboard;
    private final String table;
    final CapacityMeter.Ledger ledger = new CapacityMeter.Ledger();
    final CapacityMeter ingestMeter = new CapacityMeter("ingest", ledger);
    final CapacityMeter compactMeter = new CapacityMeter("compact", ledger);
    final CapacityMeter queryMeter = new CapacityMeter("query", ledger);
    final Stats stats = new Stats();
    private final MutableClock clock;
    private final PulseConfig config;
    private final List<IngestHandler> ingest = new ArrayList<>();
    private final CompactHandler compact;
    private final QueryHandler query;
    private final StdoutCapture out;
    private int requestNo;

    CostSim(
            BenchEnv env,
            String name,
            CostTraffic.Traffic traffic,
            int shards,
            CostSettings settings,
            Dashboard dashboard,
            long start,
            StdoutCapture out)
            throws Exception {
        this.name = name;
        this.traffic = traffic;
        this.shards = shards;
        this.settings = settings;
        this.dashboard = dashboard;
        this.out = out;
        this.table = env.newTable("cost-" + name);
        this.clock = new MutableClock(Instant.ofEpochMilli(start));
        this.config =
                settings.ingest().config(table, "https://sqs.us-east-1.amazonaws.com/123456789012/pulse-bench-dlq");
        // The clients as the functions build theirs (AwsClients): ingest retries itself, the others use the SDK's.
        DynamoDbAsyncClient ingestClient = env.dynamoAsync(config.writeConcurrency(), false, List.of(ingestMeter));
        DynamoDbAsyncClient compactClient = env.dynamoAsync(config.writeConcurrency(), true, List.of(compactMeter));
        DynamoDbAsyncClient queryClient = env.dynamoAsync(config.writeConcurrency() * 4, true, List.of(queryMeter));
        SqsClient sqs = env.track(new CountingQueue(stats));
        for (int s = 0; s < shards; s++) {
            // One warm container a shard (one batch a shard in flight): its own catalog and mark memory.
            ingest.add(IngestFunction.handler(
                    IngestFunction.service(config, ingestClient, sqs, clock),
                    metrics("ingest"),
                    config.safetyMarginMillis()));
        }
        PulseConfig compactConfig = settings.compact().config(table, config.deadLetterUrl());
        this.compact = CompactFunction.handler(
                CompactFunction.service(compactConfig, compactClient, clock),
                metrics("compact"),
                compactConfig.safetyMarginMillis());
        PulseConfig queryConfig = settings.query().config(table, config.deadLetterUrl());
        this.query = QueryFunction.handler(queryConfig, queryClient, clock, metrics("query"));
    }

    String table() {
        return table;
    }

    MutableClock clock() {
        return clock;
    }

    /** The ingest function's configuration (the template's defaults on this table). */
    PulseConfig config() {
        return config;
    }

    int ingestShards() {
        return shards;
    }

    /**
     * Runs the traffic of [{@code dataStart}, {@code dataEnd}) and the builder and dashboard until {@code until};
     * {@code progress} hears about every simulated hour.
     */
    void run(long dataStart, long dataEnd, long until, Consumer<String> progress) throws Exception {
        CostTraffic.Batcher batcher =
                new CostTraffic.Batcher(shards, settings.batchSize(), settings.batchingWindowMillis());
        long schedule = settings.compactScheduleMillis();
        long firstRun = Math.floorDiv(dataStart, schedule) * schedule + schedule;
        long nextRun = firstRun;
        long wallStart = System.nanoTime();
        for (long w = dataStart; w < until; w += MINUTE) {
            if (w < dataEnd + 2 * MINUTE) {
                List<CostTraffic.Rec> arrivals = traffic.arrivals(w, w + MINUTE);
                for (CostTraffic.Rec r : arrivals) {
                    stats.records++;
                    stats.recordBytes += r.data().length;
                    stats.putUnits += (r.data().length + 24_999) / 25_000;
                    stats.onDemandBytes += (r.data().length + 1023L) / 1024 * 1024;
                }
                batcher.add(arrivals);
            }
            List<CostTraffic.Batcher.Batch> batches = new ArrayList<>(batcher.closedBy(w + MINUTE - 1));
            int b = 0;
            long dashboardAt = w + 30_000L;
            boolean dashboardDone = dashboard == null;
            while (true) {
                long nextBatch = b < batches.size() ? batches.get(b).at() : Long.MAX_VALUE;
                long nextDashboard = dashboardDone ? Long.MAX_VALUE : dashboardAt;
                long nextBuild = nextRun < w + MINUTE ? nextRun : Long.MAX_VALUE;
                long t = Math.min(nextBatch, Math.min(nextDashboard, nextBuild));
                if (t == Long.MAX_VALUE) {
                    break;
                }
                clock.setMillis(Math.max(clock.millis(), t));
                if (t == nextBuild) {
                    build();
                    nextRun += schedule;
                } else if (t == nextBatch) {
                    ingest(batches.get(b++));
                } else {
                    dashboard(w);
                    dashboardDone = true;
                }
            }
            if ((w + MINUTE) % CostTraffic.HOUR == 0) {
                progress.accept(String.format(
                        java.util.Locale.ROOT,
                        "%s: simulated %s, %,d records, %,d ingest invocations, %,d hours"
                                + " and %,d days built (%.0f s)",
                        name,
                        Instant.ofEpochMilli(w + MINUTE),
                        stats.records,
                        stats.ingestInvocations(),
                        stats.hoursBuilt(),
                        stats.daysBuilt(),
                        (System.nanoTime() - wallStart) / 1e9));
            }
        }
        if (batcher.pendingRecords() != 0) {
            throw new IllegalStateException(
                    batcher.pendingRecords() + " records were never delivered to the ingest function");
        }
    }

    private void ingest(CostTraffic.Batcher.Batch batch) throws Exception {
        metrics("ingest");
        TestContext ctx = new TestContext(
                "bench-ingest",
                name + "-i" + requestNo++,
                settings.ingest().timeoutSeconds() * 1000L,
                settings.ingest().memoryMb());
        long bytes = out.bytes();
        long emfBytes = out.emfBytes();
        long docs = out.emfDocuments();
        long t0 = System.nanoTime();
        StreamsEventResponse r = ingest.get(batch.shard()).handleRequest(batch.event(), ctx);
        double ms = (System.nanoTime() - t0) / 1e6;
        if (!r.getBatchItemFailures().isEmpty()) {
            throw new IllegalStateException(
                    name + ": an ingest batch failed at " + clock.instant() + ": " + r.getBatchItemFailures());
        }
        if (out.emfDocuments() != docs + 1) {
            throw new IllegalStateException(
                    name + ": expected one EMF document an ingest invocation, got " + (out.emfDocuments() - docs));
        }
        JsonNode doc = JSON.readTree(out.lastEmf());
        if (doc.path("RecordsIn").asLong(-1) != batch.records()) {
            throw new IllegalStateException(
                    name + ": EMF RecordsIn " + doc.path("RecordsIn") + ", the batch had " + batch.records());
        }
        stats.datapointsIn += doc.path("DatapointsIn").asLong();
        stats.poison += doc.path("PoisonRecords").asLong();
        stats.ingestCalls.add(new double[] {batch.records(), ms});
        stats.ingestBilledMs += (long) Math.ceil(ms);
        stats.ingestLogBytes += out.bytes() - bytes;
        stats.ingestEmfBytes += out.emfBytes() - emfBytes;
    }

    private void build() throws Exception {
        metrics("compact");
        TestContext ctx = new TestContext(
                "bench-compact",
                name + "-c" + requestNo++,
                settings.compact().timeoutSeconds() * 1000L,
                settings.compact().memoryMb());
        long bytes = out.bytes();
        long emfBytes = out.emfBytes();
        long t0 = System.nanoTime();
        CompactResult r = compact.handleRequest(new ScheduledEvent(), ctx);
        double ms = (System.nanoTime() - t0) / 1e6;
        stats.compactRuns.add(new double[] {
            ms, r.hoursBuilt(), r.daysBuilt(), r.losingWrites(), r.periodsPending(), r.stopped() ? 1 : 0
        });
        stats.compactLogBytes += out.bytes() - bytes;
        stats.compactEmfBytes += out.emfBytes() - emfBytes;
    }

    /** The dashboard query for the window ending at the minute {@code w}, every page. */
    private void dashboard(long w) throws Exception {
        long end = w;
        long start = end - dashboard.hours() * CostTraffic.HOUR;
        stats.queries++;
        query(start, end, dashboard.period(), dashboard.stats(), true);
    }

    /** One query, page after page, through the handler; the answer's {@code series} of every page. */
    List<JsonNode> query(long start, long end, String period, List<String> stats, boolean dashboardQuery)
            throws Exception {
        List<JsonNode> answered = new ArrayList<>();
        String token = null;
        do {
            metrics("query");
            ObjectNode body = JSON.createObjectNode();
            ArrayNode list = body.putArray("series");
            dashboard.series().forEach(list::add);
            body.put("start", Instant.ofEpochMilli(start).toString());
            body.put("end", Instant.ofEpochMilli(end).toString());
            body.put("period", period);
            stats.forEach(body.putArray("stats")::add);
            if (token != null) {
                body.put("nextToken", token);
            }
            APIGatewayV2HTTPEvent event = APIGatewayV2HTTPEvent.builder()
                    .withVersion("2.0")
                    .withRouteKey("POST /query")
                    .withRawPath("/query")
                    .withHeaders(Map.of("content-type", "application/json"))
                    .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                            .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder()
                                    .withMethod("POST")
                                    .withPath("/query")
                                    .build())
                            .withRequestId("cost")
                            .withRouteKey("POST /query")
                            .withStage("$default")
                            .build())
                    .withBody(body.toString())
                    .withIsBase64Encoded(false)
                    .build();
            long bytes = out.bytes();
            long emfBytes = out.emfBytes();
            long t0 = System.nanoTime();
            APIGatewayV2HTTPResponse r = query.handleRequest(
                    event,
                    new TestContext(
                            "bench-query",
                            name + "-q" + requestNo++,
                            29_000,
                            settings.query().memoryMb()));
            double ms = (System.nanoTime() - t0) / 1e6;
            if (dashboardQuery) {
                this.stats.queryPages++;
                this.stats.queryMs += Math.ceil(ms);
                this.stats.queryLogBytes += out.bytes() - bytes;
                this.stats.queryEmfBytes += out.emfBytes() - emfBytes;
            }
            if (r.getStatusCode() != 200) {
                throw new IllegalStateException(
                        name + ": the query answered " + r.getStatusCode() + ": " + r.getBody());
            }
            JsonNode answer = JSON.readTree(r.getBody());
            if (!answer.path("unprocessed").isEmpty()) {
                throw new IllegalStateException(
                        name + ": series left unprocessed at " + clock.instant() + ": " + answer.path("unprocessed"));
            }
            answer.path("series").forEach(answered::add);
            token = answer.path("nextToken").isNull()
                            || answer.path("nextToken").isMissingNode()
                    ? null
                    : answer.path("nextToken").asText();
        } while (token != null);
        return answered;
    }

    /** Points the Powertools metrics singleton at {@code service}, as each function's own instance is. */
    private static software.amazon.lambda.powertools.metrics.Metrics metrics(String service) {
        return PulseMetrics.create("Pulse", service);
    }

    /** Read units a term spent, all functions. */
    double units(Term t) {
        return ingestMeter.tally(t).units()
                + compactMeter.tally(t).units()
                + queryMeter.tally(t).units();
    }

    CapacityMeter.Tally tally(Term t) {
        return switch (t) {
            case PARTIALS, CATALOG, HOUR_MARKS, DAY_MARKS, CHECKPOINTS -> ingestMeter.tally(t);
            case QUERY_PARTIAL_READS, QUERY_ROLLUP_READS -> queryMeter.tally(t);
            case OTHER_READS, OTHER_WRITES -> ingestMeter.tally(t);
            default -> compactMeter.tally(t);
        };
    }

    /** The dead-letter queue: accepts every message and counts it (poison records; none are expected). */
    private static final class CountingQueue implements SqsClient {
        private final Stats stats;
        private final AtomicLong sent = new AtomicLong();

        CountingQueue(Stats stats) {
            this.stats = stats;
        }

        @Override
        public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
            stats.deadLetters += request.entries().size();
            sent.addAndGet(request.entries().size());
            return SendMessageBatchResponse.builder()
                    .successful(request.entries().stream()
                            .map(e -> SendMessageBatchResultEntry.builder()
                                    .id(e.id())
                                    .messageId("m-" + sent.get())
                                    .build())
                            .toList())
                    .failed(List.of())
                    .build();
        }

        @Override
        public String serviceName() {
            return "sqs";
        }

        @Override
        public void close() {}
    }
}
