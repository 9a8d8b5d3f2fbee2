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

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * memory: the heap one cold invocation needs, measured in a child JVM with the function's heap settings
 * ({@code -XX:MaxRAM=MemorySize} and the function's JAVA_TOOL_OPTIONS, as Lambda runs it), to justify the
 * MemorySize defaults in template.yaml.
 */
final class MemoryBench implements Benchmark {

    private static final double MB = 1024 * 1024;

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String howToRead() {
        return """
                One cold invocation in a fresh JVM started as Lambda starts the function: `-XX:MaxRAM=MemorySize` \
                and the function's JAVA_TOOL_OPTIONS from the template (`-XX:MaxRAMPercentage=75 -XX:+UseSerialGC ...`), so the heap \
                limit is 75% of MemorySize. IngestFunction: a 10,000-record batch (50,000 datapoints, the event built \
                inside the measurement as the runtime deserialises it) into DynamoDB Local; QueryFunction: every page \
                of the 100-series day query (its cache filled as a cold container fills it). Peak heap is the sum of \
                the heap pools' peaks during the invocation (an upper bound: the pools peak at different moments, \
                and the young generation fills before it is collected); live is the most heap still in use after \
                any collection during it (what the invocation really holds); retained is what stays after it (the \
                query's rollup cache); RSS is the process's peak resident memory (VmHWM), which Lambda reports as \
                Max Memory Used. The baseline is the function's MemorySize default and the ratio is peak heap / \
                heap limit: under 1 the default suffices, far under 1 it could be smaller (CPU scales with \
                MemorySize in Lambda, so memory is also bought for speed).""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        FunctionSettings ingestFn = FunctionSettings.load(env.root(), "IngestFunction");
        FunctionSettings queryFn = FunctionSettings.load(env.root(), "QueryFunction");
        int records = env.scale(10_000, 1_000);
        int series = env.scale(100, 20);
        String ingestTable = env.newTable("memory-ingest");
        QueryDataset data = QueryDataset.create(env, series);
        JsonNode ingest = probe(env, ingestFn, "ingest", ingestTable, records);
        JsonNode query = probe(env, queryFn, "query", data.table(), series);
        // The rollup cache's memory per unit of weight, from what the day query left cached, scaled to its limit:
        // the heap a warm container holds when its cache is full, plus one query's working set.
        double cacheBytes = query.path("heapRetainedBytes").asDouble()
                - query.path("heapBeforeBytes").asDouble();
        double weight = query.path("cacheWeight").asDouble();
        double fullCacheBytes =
                cacheBytes / weight * query.path("cacheMaxWeight").asDouble();
        double workingSet = query.path("peakHeapBytes").asDouble()
                - query.path("heapRetainedBytes").asDouble();
        double fullRatio = (query.path("heapBeforeBytes").asDouble() + fullCacheBytes + workingSet)
                / query.path("heapMaxBytes").asDouble();

        List<String> details = new ArrayList<>();
        details.add(describe("IngestFunction, " + records + "-record batch", ingestFn, ingest));
        details.add(describe("QueryFunction, " + series + "-series day query", queryFn, query));
        details.add("QueryFunction's rollup cache after the day query: weight " + Format.count(weight)
                + " of its limit "
                + Format.count(query.path("cacheMaxWeight").asDouble()) + ", " + Format.mib(cacheBytes) + " of heap ("
                + Format.count(cacheBytes / weight) + " bytes a unit); full, it would hold about "
                + Format.mib(fullCacheBytes) + ", which with a query's working set (" + Format.mib(workingSet)
                + ") is " + Format.ratio(fullRatio) + " of the heap limit");
        double ingestRatio = ingest.path("peakHeapBytes").asDouble()
                / ingest.path("heapMaxBytes").asDouble();
        double queryRatio = query.path("peakHeapBytes").asDouble()
                / query.path("heapMaxBytes").asDouble();
        Map<String, Double> values = new LinkedHashMap<>();
        values.put("ingestPeakHeapMb", ingest.path("peakHeapBytes").asDouble() / MB);
        values.put("ingestLiveMb", ingest.path("maxLiveAfterGcBytes").asDouble() / MB);
        values.put("ingestPeakRssMb", ingest.path("peakRssBytes").asDouble() / MB);
        values.put("queryPeakHeapMb", query.path("peakHeapBytes").asDouble() / MB);
        values.put("queryRetainedMb", query.path("heapRetainedBytes").asDouble() / MB);
        values.put("queryPeakRssMb", query.path("peakRssBytes").asDouble() / MB);
        values.put("queryCacheWeight", weight);
        values.put("queryFullCacheMb", fullCacheBytes / MB);
        return new Result(
                name(),
                "ingest " + Format.mib(ingest.path("peakHeapBytes").asDouble()) + " peak heap (live "
                        + Format.mib(ingest.path("maxLiveAfterGcBytes").asDouble()) + "); query "
                        + Format.mib(query.path("peakHeapBytes").asDouble()) + " peak heap (retained "
                        + Format.mib(query.path("heapRetainedBytes").asDouble()) + ")",
                "MemorySize " + ingestFn.memoryMb() + " / " + queryFn.memoryMb() + " MB, heap limit "
                        + Format.mib(ingest.path("heapMaxBytes").asDouble()) + " / "
                        + Format.mib(query.path("heapMaxBytes").asDouble()),
                "ratio " + Format.ratio(ingestRatio) + " and " + Format.ratio(queryRatio) + " of the heap limit",
                "peak heap within the heap limit, also with a full query cache",
                ingestRatio < 1 && queryRatio < 1 && fullRatio < 1,
                details,
                values);
    }

    private static String describe(String what, FunctionSettings fn, JsonNode m) {
        return "%s (MemorySize %d MB, heap limit %s): peak heap %s, live after GC at most %s, retained %s, peak RSS %s"
                .formatted(
                        what,
                        fn.memoryMb(),
                        Format.mib(m.path("heapMaxBytes").asDouble()),
                        Format.mib(m.path("peakHeapBytes").asDouble()),
                        m.path("maxLiveAfterGcBytes").asLong() < 0
                                ? "(no collection during it)"
                                : Format.mib(m.path("maxLiveAfterGcBytes").asDouble()),
                        Format.mib(m.path("heapRetainedBytes").asDouble()),
                        Format.mib(m.path("peakRssBytes").asDouble()));
    }

    /** Runs {@link MemoryProbe} in a child JVM with the function's memory settings; its MEMORY line. */
    private static JsonNode probe(BenchEnv env, FunctionSettings fn, String kind, String table, int size)
            throws Exception {
        return ChildJvm.run(
                kind + " memory probe",
                fn.memoryMb(),
                fn.javaToolOptions(),
                MemoryProbe.class,
                List.of(
                        kind,
                        env.dynamo().endpoint().toString(),
                        table,
                        Integer.toString(size),
                        env.root().toString()),
                "MEMORY",
                Duration.ofMinutes(5));
    }
}
