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
package dev.pulse.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.IngestService;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.PartialItems;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The catalog listings a warm query container keeps ({@link CatalogService#snapshot}) against the real ingest path and
 * DynamoDB Local: a series ingest adds shows in the next answer of a container that cached its name's listing, also
 * when the catalog's version arrives after the cached listings were used; while the version is unchanged, a repeat
 * lists nothing.
 */
@ExtendWith(Emulators.class)
class CatalogListingCacheIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");
    private static final String QUERY = "count(count_over_time({__name__=\"cache.metric\"}[10m]))";
    private static final Map<String, AttributeValue> VERSION_KEY = Map.of(
            KeyScheme.PK, AttributeValue.fromS(KeyScheme.CATALOG_VERSION_PK),
            KeyScheme.SK, AttributeValue.fromS(KeyScheme.CATALOG_VERSION_PK));

    private Pipeline p;
    private long sequence;

    @BeforeEach
    void setUp() {
        p = new Pipeline("pulse-catalog-cache", NOW, Duration.ofDays(1));
    }

    @AfterEach
    void tearDown() {
        p.close();
    }

    /**
     * A version read slower than the request's own work, on a version that has held for a minute, makes the request
     * start on the cached listings; the version read then says they are old and the request is evaluated again.
     */
    @ParameterizedTest(name = "version read delayed {0} ms")
    @ValueSource(ints = {0, 300})
    void query_whenIngestAddsASeriesToACachedName_answersItOnTheWarmContainer(int versionDelayMillis) {
        Counting client = new Counting(Emulators.dynamoAsync(), versionDelayMillis);
        QueryHandler warm = QueryFunction.handler(p.config, client, p.clock(), new RecordingMetrics());
        p.ingest(List.of(record("a")));
        assertThat(count(warm)).isEqualTo(1);
        p.clock().advance(Duration.ofMillis(CatalogService.SPECULATE_AFTER_MILLIS));

        p.ingest(List.of(record("b")));

        assertThat(count(warm)).isEqualTo(2);
        p.clock().advance(Duration.ofMillis(CatalogService.SPECULATE_AFTER_MILLIS));
        p.ingest(List.of(record("c"), record("d")));
        assertThat(count(warm)).isEqualTo(4);
    }

    @Test
    void query_whenTheCatalogVersionIsUnchanged_answersFromTheCachedListing() {
        Counting client = new Counting(Emulators.dynamoAsync(), 0);
        QueryHandler warm = QueryFunction.handler(p.config, client, p.clock(), new RecordingMetrics());
        p.ingest(List.of(record("a")));
        assertThat(count(warm)).isEqualTo(1);
        Map<String, AttributeValue> version = versionItem();
        int listings = client.queries.get();

        assertThat(count(warm)).isEqualTo(1);
        assertThat(client.queries.get()).as("catalog listings of a warm repeat").isEqualTo(listings);

        // A series stored while the version is put back as it was: only the version tells a warm container.
        p.ingest(List.of(record("b")));
        p.reader().putItem(b -> b.tableName(p.table).item(version));
        assertThat(count(warm)).as("the warm container, version unchanged").isEqualTo(1);
        assertThat(count(p.queryHandler())).as("a cold container").isEqualTo(2);
    }

    @Test
    void query_whenTheTableHasNoCatalogVersion_listsOnEveryRequest() {
        QueryHandler warm = p.queryHandler();
        p.ingest(List.of(record("a")));
        assertThat(count(warm)).isEqualTo(1);
        p.ingest(List.of(record("b")));
        p.reader().deleteItem(b -> b.tableName(p.table).key(VERSION_KEY));

        assertThat(count(warm)).isEqualTo(2);
    }

    @Test
    void ingest_whenABatchAddsSeries_putsANewCatalogVersion() {
        p.ingest(List.of(record("a")));
        String first = versionItem().get(PartialItems.VERSION).s();

        p.ingest(List.of(record("a")));
        assertThat(versionItem().get(PartialItems.VERSION).s())
                .as("a batch of known series")
                .isEqualTo(first);

        p.ingest(List.of(record("b")));
        assertThat(versionItem().get(PartialItems.VERSION).s())
                .as("a batch with a new series")
                .isNotEqualTo(first);
    }

    /**
     * A batch whose time runs out between its catalog entries and the version (the entries' write answered late): the
     * entries and the series' data are stored, so an uncached listing shows the series; a warm container must too,
     * not only after the next batch that happens to add another series.
     */
    @Test
    void query_whenABatchRunsOutOfTimeAfterItsCatalogEntries_answersTheNewSeriesOnTheWarmContainer() {
        QueryHandler warm = p.queryHandler();
        p.ingest(List.of(record("a")));
        assertThat(count(warm)).isEqualTo(1);

        IngestService late = IngestFunction.service(
                p.config,
                new LateCatalogWrites(Emulators.dynamoAsync(), 3_000),
                Emulators.sqs().client(),
                p.clock());
        IngestResult r = late.ingest(
                List.of(record("b")), Deadline.inMillis(2_000), new InvocationMetrics<>(IngestMetric.class));
        assertThat(r.failed()).as("the batch that ran out of time").isTrue();

        assertThat(count(p.queryHandler())).as("a cold container").isEqualTo(2);
        assertThat(count(warm)).as("the warm container").isEqualTo(2);
    }

    /**
     * Requests on one container's catalog in parallel threads (as the rules evaluator runs its groups) while ingest adds
     * series: a listing a request answers with (confirmed, for a speculative one) holds every series stored before the
     * request started.
     */
    @Test
    void snapshot_whenRequestsRaceIngestOnOneContainer_neverListsFewerSeriesThanStoredBefore() throws Exception {
        CatalogService catalog = new CatalogService(Emulators.dynamoAsync(), p.table);
        p.ingest(List.of(record("s0")));
        AtomicInteger stored = new AtomicInteger(1);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.ConcurrentLinkedQueue<String> violations =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        AtomicInteger answered = new AtomicInteger();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        List<java.util.concurrent.Future<?>> workers = new java.util.ArrayList<>();
        for (int w = 0; w < 4; w++) {
            boolean speculative = w % 2 == 0;
            workers.add(pool.submit(() -> {
                while (!stop.get()) {
                    int before = stored.get();
                    CatalogService.Snapshot s = speculative ? catalog.speculativeSnapshot() : catalog.snapshot();
                    com.fasterxml.jackson.databind.node.ObjectNode page =
                            s.list(Map.of("name", "cache.metric", "limit", "1000"));
                    if (!speculative || s.confirmed()) {
                        answered.incrementAndGet();
                        int listed = page.path("series").size();
                        if (listed < before) {
                            violations.add(listed + " listed, " + before + " stored before");
                        }
                    }
                }
                return null;
            }));
        }
        try {
            for (int i = 1; i <= 15; i++) {
                p.ingest(List.of(record("s" + i)));
                stored.set(i + 1);
                Thread.sleep(20);
            }
        } finally {
            stop.set(true);
            for (var f : workers) {
                f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        assertThat(answered.get()).isPositive();
        assertThat(violations).isEmpty();
    }

    /**
     * The cost of version changes on a warm container: a request that started on listings of a version since replaced
     * reads its data twice, so only a version that has held for {@link CatalogService#SPECULATE_AFTER_MILLIS} is
     * started on: after a change, the next requests wait for their version read and read what a cold container does.
     */
    @Test
    void query_whenTheCatalogVersionKeepsChanging_readsNoMoreDataThanAColdContainer() {
        Counting client = new Counting(Emulators.dynamoAsync(), 300);
        QueryHandler warm = QueryFunction.handler(p.config, client, p.clock(), new RecordingMetrics());
        p.ingest(List.of(record("a")));
        assertThat(count(warm)).isEqualTo(1);
        p.clock().advance(Duration.ofMillis(CatalogService.SPECULATE_AFTER_MILLIS));
        p.ingest(List.of(record("b")));
        int cold = coldDataReads(2);
        int before = client.dataReads.get();

        assertThat(count(warm)).isEqualTo(2);
        assertThat(client.dataReads.get() - before)
                .as("the first request after a version that held a minute: at most its data twice")
                .isLessThanOrEqualTo(2 * cold);

        int series = 2;
        for (String n : List.of("c", "d", "e")) {
            p.clock().advance(Duration.ofSeconds(20));
            p.ingest(List.of(record(n)));
            int want = coldDataReads(++series);
            before = client.dataReads.get();
            assertThat(count(warm)).isEqualTo(series);
            assertThat(client.dataReads.get() - before)
                    .as("a request on a version changed %s s ago (a cold container's reads: %s)", 20, want)
                    .isLessThanOrEqualTo(want);
        }
    }

    /** The data reads a cold container makes for {@link #QUERY}, which must answer {@code series}. */
    private int coldDataReads(int series) {
        Counting coldClient = new Counting(Emulators.dynamoAsync(), 300);
        QueryHandler cold = QueryFunction.handler(p.config, coldClient, p.clock(), new RecordingMetrics());
        assertThat(count(cold)).isEqualTo(series);
        return coldClient.dataReads.get();
    }

    /** A selector without an exact name reads the name index and each name's series: all of it cached. */
    @Test
    void query_whenANameRegexRepeatsWithTheVersionUnchanged_listsNothing() {
        String query = "count(count_over_time({__name__=~\"cache[.]met.*\", n!=\"z\"}[10m]))";
        Counting client = new Counting(Emulators.dynamoAsync(), 0);
        QueryHandler warm = QueryFunction.handler(p.config, client, p.clock(), new RecordingMetrics());
        p.ingest(List.of(record("a"), record("b")));
        assertThat(count(warm, query)).isEqualTo(2);
        int listings = client.queries.get();

        assertThat(count(warm, query)).isEqualTo(2);

        assertThat(client.queries.get()).as("catalog listings of a warm repeat").isEqualTo(listings);
    }

    private Map<String, AttributeValue> versionItem() {
        Map<String, AttributeValue> item = p.reader()
                .getItem(b -> b.tableName(p.table).key(VERSION_KEY).consistentRead(true))
                .item();
        assertThat(item).as("the catalog's version item").isNotEmpty();
        return item;
    }

    private int count(QueryHandler handler) {
        return count(handler, QUERY);
    }

    private int count(QueryHandler handler, String query) {
        APIGatewayV2HTTPResponse r = handler.handleRequest(
                ApiRequests.prometheus(
                        "GET",
                        "/prometheus/api/v1/query",
                        List.of(Map.entry("query", query), Map.entry("time", Long.toString(NOW.getEpochSecond())))),
                new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        try {
            JsonNode result = JSON.readTree(r.getBody()).at("/data/result");
            return result.isEmpty()
                    ? 0
                    : Integer.parseInt(result.get(0).at("/value/1").asText());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private KinesisEvent.KinesisEventRecord record(String n) {
        String json = JSON.createObjectNode()
                .put("name", "cache.metric")
                .<com.fasterxml.jackson.databind.node.ObjectNode>set("dims", JSON.valueToTree(Map.of("n", n)))
                .put("ts", NOW.toEpochMilli() - 60_000L)
                .put("value", 1.0)
                .toString();
        return KinesisRecords.record(
                "shardId-000000000000",
                sequence++,
                "cache.metric",
                json.getBytes(StandardCharsets.UTF_8),
                NOW.toEpochMilli());
    }

    /** The emulator's client, answering each write of catalog entries late (after they landed). */
    private static final class LateCatalogWrites extends DelegatingDynamoDb {
        private final int delayMillis;

        LateCatalogWrites(DynamoDbAsyncClient delegate, int delayMillis) {
            super(delegate);
            this.delayMillis = delayMillis;
        }

        @Override
        public CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
            boolean entries = request.requestItems().values().stream()
                    .flatMap(List::stream)
                    .anyMatch(w -> w.putRequest() != null
                            && w.putRequest().item().get(KeyScheme.PK).s().startsWith("C#"));
            CompletableFuture<BatchWriteItemResponse> written = super.batchWriteItem(request);
            return entries
                    ? written.thenCompose(resp -> CompletableFuture.supplyAsync(
                            () -> resp, CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS)))
                    : written;
        }
    }

    /** The emulator's client, counting catalog listings (Queries of the catalog) and holding back each GetItem. */
    private static final class Counting extends DelegatingDynamoDb {
        final AtomicInteger queries = new AtomicInteger();
        /** Reads of stored data (Queries of other partitions, BatchGetItem). */
        final AtomicInteger dataReads = new AtomicInteger();

        private final int getItemDelayMillis;

        Counting(DynamoDbAsyncClient delegate, int getItemDelayMillis) {
            super(delegate);
            this.getItemDelayMillis = getItemDelayMillis;
        }

        @Override
        public CompletableFuture<QueryResponse> query(QueryRequest request) {
            String pk = request.expressionAttributeValues().get(":pk").s();
            if (pk.startsWith("C#") || pk.equals(KeyScheme.NAMES_PK)) {
                queries.incrementAndGet();
            } else {
                dataReads.incrementAndGet();
            }
            return super.query(request);
        }

        @Override
        public CompletableFuture<software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse> batchGetItem(
                software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest request) {
            dataReads.incrementAndGet();
            return super.batchGetItem(request);
        }

        @Override
        public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
            return CompletableFuture.supplyAsync(
                            () -> null, CompletableFuture.delayedExecutor(getItemDelayMillis, TimeUnit.MILLISECONDS))
                    .thenCompose(x -> super.getItem(request));
        }
    }
}
