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

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.GarbageCollectionNotificationInfo;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestHandler;
import dev.pulse.ingest.IngestService;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.query.QueryFunction;
import dev.pulse.query.QueryHandler;
import dev.pulse.query.RollupCache;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.TestContext;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The memory benchmark's child JVM, started with the function's heap settings: builds a handler on the
 * parent's DynamoDB Local, runs one cold invocation (the 10,000-record ingest batch, or every page of the
 * 100-series query) and prints {@code MEMORY {json}}: the heap pools' peak use during it, the most heap live
 * after any collection during it, the heap retained after it, and the process's peak RSS.
 *
 * <p>Usage: {@code MemoryProbe ingest|query <dynamodb endpoint> <table> <settings...>}; not a user tool.
 */
public final class MemoryProbe {

    private static final ObjectMapper JSON = new ObjectMapper();

    private MemoryProbe() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println(
                    "usage: MemoryProbe ingest|query <dynamodb endpoint> <table> <records|series> <repository>");
            System.exit(2);
        }
        String kind = args[0];
        URI endpoint = URI.create(args[1]);
        String table = args[2];
        int size = Integer.parseInt(args[3]);
        // The template's defaults, as a default deployment runs the function.
        PulseConfig cfg = FunctionSettings.load(
                        Path.of(args[4]), kind.equals("ingest") ? "IngestFunction" : "QueryFunction")
                .config(table, QueryDataset.UNUSED_QUEUE);
        int concurrency = cfg.writeConcurrency();
        DynamoDbAsyncClient client = DynamoDbAsyncClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(LocalDynamoDb.credentials())
                .httpClientBuilder(AwsCrtAsyncHttpClient.builder().maxConcurrency(Math.max(8, concurrency * 4)))
                .build();
        RollupCache cache = new RollupCache(RollupCache.DEFAULT_MAX_WEIGHT, RollupCache.DEFAULT_TTL_MILLIS);
        Runnable invocation = switch (kind) {
            case "ingest" -> ingest(client, cfg, size);
            case "query" -> query(client, cfg, size, cache);
            default -> throw new IllegalArgumentException("ingest or query: " + kind);
        };

        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP)
                .toList();
        java.util.Set<String> heapPools = new java.util.HashSet<>(
                heap.stream().map(MemoryPoolMXBean::getName).toList());
        AtomicLong maxLiveAfterGc = new AtomicLong(-1);
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc)
                    .addNotificationListener(
                            (n, h) -> {
                                if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                                        n.getType())) {
                                    var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                                    // The GC reports every pool (metaspace, code cache too): the heap's only.
                                    long used = info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
                                            .filter(e -> heapPools.contains(e.getKey()))
                                            .mapToLong(e -> e.getValue().getUsed())
                                            .sum();
                                    maxLiveAfterGc.accumulateAndGet(used, Math::max);
                                }
                            },
                            null,
                            null);
        }
        System.gc();
        long before = used(heap);
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        maxLiveAfterGc.set(-1);
        resetPeakRss();
        invocation.run();
        long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        long liveDuring = maxLiveAfterGc.get();
        System.gc();
        long retained = used(heap);
        System.out.println("MEMORY "
                + JSON.createObjectNode()
                        .put("peakHeapBytes", peak)
                        .put("maxLiveAfterGcBytes", liveDuring)
                        .put("heapBeforeBytes", before)
                        .put("heapRetainedBytes", retained)
                        .put("heapMaxBytes", Runtime.getRuntime().maxMemory())
                        .put("peakRssBytes", peakRss())
                        .put("cacheWeight", cache.weight())
                        .put("cacheMaxWeight", RollupCache.DEFAULT_MAX_WEIGHT));
        client.close();
        System.exit(0);
    }

    private static Runnable ingest(DynamoDbAsyncClient client, PulseConfig cfg, int records) {
        // No poison in the data: the queue is never called, and a call would fail on the refused connection.
        IngestService service =
                IngestFunction.service(cfg, client, IngestEndToEndBench.unusedQueueClient(cfg.deadLetterUrl()));
        IngestHandler handler =
                IngestFunction.handler(service, PulseMetrics.create("PulseBench", "ingest"), cfg.safetyMarginMillis());
        // Each run is the shard's next batch: a batch at or below the committed position would be skipped unread.
        java.util.concurrent.atomic.AtomicLong nextSequence = new java.util.concurrent.atomic.AtomicLong(1_000_000);
        return () -> {
            // The event is part of what the function holds: the runtime deserialises it into the heap.
            long now = System.currentTimeMillis();
            KinesisEvent event = KinesisRecords.event(
                    Datasets.STREAM_ARN,
                    "shardId-000000000000",
                    Datasets.ndjson(records, 5, now - 300_000, 240_000, 23),
                    nextSequence.getAndAdd(records),
                    now);
            StreamsEventResponse r =
                    handler.handleRequest(event, new TestContext("bench-ingest", "memory", 60_000, 1024));
            if (!r.getBatchItemFailures().isEmpty()) {
                throw new IllegalStateException("the batch failed: " + r.getBatchItemFailures());
            }
        };
    }

    private static Runnable query(DynamoDbAsyncClient client, PulseConfig cfg, int series, RollupCache cache) {
        QueryHandler handler = QueryFunction.handler(
                cfg, client, QueryDataset.clock(), PulseMetrics.create("PulseBench", "query"), cache);
        return () -> {
            try {
                String token = null;
                int answered = 0;
                do {
                    APIGatewayV2HTTPResponse r = handler.handleRequest(
                            QueryDataset.event(series, QueryDataset.dashboardStats(), token),
                            new TestContext("bench-query", "memory", 29_000, 1024));
                    if (r.getStatusCode() != 200) {
                        throw new IllegalStateException("query answered " + r.getStatusCode() + ": " + r.getBody());
                    }
                    JsonNode body = JSON.readTree(r.getBody());
                    answered += body.path("series").size();
                    token = body.path("nextToken").isNull()
                            ? null
                            : body.path("nextToken").asText();
                } while (token != null);
                if (answered != series) {
                    throw new IllegalStateException("answered " + answered + " of " + series + " series");
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
    }

    private static long used(List<MemoryPoolMXBean> heap) {
        return heap.stream().mapToLong(p -> p.getUsage().getUsed()).sum();
    }

    /** Resets the kernel's peak RSS (VmHWM) where Linux allows it, so the figure is the invocation's. */
    private static void resetPeakRss() {
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
        } catch (Exception e) {
            // Not Linux or not allowed: VmHWM then includes start-up, which is lower anyway.
        }
    }

    /** VmHWM: the process's peak resident memory, what Lambda reports as Max Memory Used; -1 off Linux. */
    private static long peakRss() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmHWM:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception e) {
            // Not Linux.
        }
        return -1;
    }
}
