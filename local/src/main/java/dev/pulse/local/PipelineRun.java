package dev.pulse.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.template.MappingSpec;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * One {@code make run}: the load generator replays a recording into the local stream at the asked rate, the
 * pipeline ingests, compacts and serves it, a dashboard-like client queries the API once a second, and the run
 * ends with the load generator's canary check read back through the API. Prints a live progress line and a
 * final report; the run passes when the canary shows zero loss and zero duplicates.
 */
final class PipelineRun {

    /**
     * What to replay and how fast.
     *
     * @param loadGenFunction logical id of the load generator in template.yaml
     */
    record Config(String source, String mode, double rate, double speed, double rampUpSeconds, long durationSeconds,
            int workers, String loadGenFunction, Path reportFile) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalStack stack;
    private final Config config;
    private final PrintStream out;
    private final Histogram queryLatency = new Histogram(3);

    PipelineRun(LocalStack stack, Config config, PrintStream out) {
        this.stack = stack;
        this.config = config;
        this.out = out;
    }

    /** Runs the load and returns the report; {@code report.passed} says whether the canary check held. */
    ObjectNode run() throws Exception {
        String runId = "local-" + Instant.now().getEpochSecond();
        ObjectNode request = JSON.createObjectNode();
        request.put("source", config.source());
        request.put("mode", config.mode());
        if (config.mode().equals("rate")) {
            request.put("rate", config.rate());
            request.put("rampUpSeconds", config.rampUpSeconds());
        } else {
            request.put("speed", config.speed());
        }
        request.put("durationSeconds", config.durationSeconds());
        request.put("workers", config.workers());
        request.put("runId", runId);
        warmUp();
        out.printf("load: %s%n", request);
        long started = System.nanoTime();
        CompletableFuture<InvokeResult> load = CompletableFuture.supplyAsync(() -> {
            try {
                return stack.lambda().invoke(config.loadGenFunction(), request.toString().getBytes(StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        });
        try (SignedApi api = new SignedApi(stack.apiUrl())) {
            long lastLine = 0;
            while (!load.isDone()) {
                Thread.sleep(1_000);
                dashboardQuery(api, runId);
                long elapsed = (System.nanoTime() - started) / 1_000_000_000L;
                if (elapsed - lastLine >= 5 || load.isDone()) {
                    out.println(progress(elapsed));
                    lastLine = elapsed;
                }
            }
        }
        InvokeResult result = load.join();
        JsonNode report = JSON.readTree(result.payload());
        // Let the last batches through before reading the totals (the canary check already waited for its own).
        drain(Duration.ofSeconds(30));
        out.println(progress((System.nanoTime() - started) / 1_000_000_000L));
        ObjectNode full = report(runId, result.failed(), report);
        if (config.reportFile() != null) {
            Files.createDirectories(config.reportFile().toAbsolutePath().getParent());
            Files.writeString(config.reportFile(), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(full));
        }
        printReport(full);
        return full;
    }

    /**
     * Starts the environments the run will need (one per shard for each mapping's function, one for each API
     * function) before the clock starts: on a small machine several JVMs starting at once would otherwise show
     * up as the first minute's lag.
     */
    private void warmUp() throws InterruptedException {
        long t0 = System.nanoTime();
        java.util.Map<String, Integer> wanted = new java.util.LinkedHashMap<>();
        stack.mappings().forEach(m -> wanted.merge(m.spec().functionId(), Math.max(1, m.shardCount()), Integer::sum));
        stack.stack().routes().forEach(r -> wanted.putIfAbsent(r.functionId(), 1));
        stack.schedules().forEach(s -> wanted.putIfAbsent(s.spec().functionId(), 1));
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        java.util.Map<String, Integer> ready = new java.util.concurrent.ConcurrentHashMap<>();
        wanted.forEach((fn, n) -> threads.add(Thread.ofVirtual().start(() -> {
            try {
                ready.put(fn, stack.lambda().prewarm(fn, n));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        })));
        for (Thread t : threads) {
            t.join();
        }
        StringBuilder line = new StringBuilder("warmed up");
        wanted.forEach((fn, n) -> line.append(' ').append(fn).append(' ').append(ready.getOrDefault(fn, 0)).append('/').append(n));
        out.printf(Locale.ROOT, "%s in %.1f s%n", line, (System.nanoTime() - t0) / 1e9);
    }

    /** What a dashboard does: the canary series' last ten minutes, once a second. */
    private void dashboardQuery(SignedApi api, String runId) {
        long now = System.currentTimeMillis();
        String body = "{\"series\":[{\"name\":\"loadgen.canary\",\"dims\":{\"run\":\"" + runId + "\"}}],\"start\":"
                + (now - 600_000) + ",\"end\":" + now + ",\"period\":60,\"stats\":[\"count\",\"p99\"]}";
        long t0 = System.nanoTime();
        try {
            SignedApi.Response r = api.post("/query", body);
            if (r.status() == 200) {
                synchronized (queryLatency) {
                    queryLatency.recordValue(Math.max(1, (System.nanoTime() - t0) / 1_000));
                }
            }
        } catch (Exception e) {
            // The progress line shows the API's latency; a failed call is visible in the query function's log.
        }
    }

    /**
     * Waits until every mapping has settled what it read and has read nothing new for two seconds (kinesalite
     * reports no MillisBehindLatest, so "nothing new" is the only sign the stream is drained).
     */
    private void drain(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        long lastRead = -1;
        long quietSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long read = stack.mappings().stream().mapToLong(MappingRunner::recordsRead).sum();
            if (read != lastRead) {
                lastRead = read;
                quietSince = System.nanoTime();
            }
            boolean settled = stack.mappings().stream().allMatch(m -> m.backlog() == 0);
            if (settled && System.nanoTime() - quietSince > 2_000_000_000L) {
                return;
            }
            Thread.sleep(250);
        }
    }

    private String progress(long elapsedSeconds) {
        MappingRunner ingest = mapping(MappingSpec.SourceType.KINESIS);
        long read = ingest == null ? 0 : ingest.recordsRead();
        long done = ingest == null ? 0 : ingest.recordsDone();
        double lag = ingest == null ? 0 : ingest.lagMillis() / 1000.0;
        double p99;
        synchronized (queryLatency) {
            p99 = queryLatency.getTotalCount() == 0 ? 0 : queryLatency.getValueAtPercentile(99) / 1000.0;
        }
        EmfTotals ingestMetrics = stack.metrics(ingestFunction());
        String builds = stack.schedules().isEmpty() ? ""
                : String.format(Locale.ROOT, " | builds %,d", stack.schedules().stream().mapToLong(ScheduleRunner::runs).sum());
        return String.format(Locale.ROOT, "[%4ds] read %,d | ingested %,d records, %,d datapoints | lag %.1f s | DLQ %,d%s | query p99 %.0f ms",
                elapsedSeconds, read, done, ingestMetrics.sum("DatapointsIn"), lag, dlqDepth(), builds, p99);
    }

    private String ingestFunction() {
        MappingRunner m = mapping(MappingSpec.SourceType.KINESIS);
        return m == null ? "" : m.spec().functionId();
    }

    private MappingRunner mapping(MappingSpec.SourceType type) {
        return stack.mappings().stream().filter(m -> m.spec().source() == type).findFirst().orElse(null);
    }

    private long dlqDepth() {
        long total = 0;
        for (String url : stack.queueUrls()) {
            var a = stack.sqs().getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                    QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)).attributes();
            total += Long.parseLong(a.getOrDefault(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, "0"))
                    + Long.parseLong(a.getOrDefault(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE, "0"));
        }
        return total;
    }

    private ObjectNode report(String runId, boolean loadFailed, JsonNode load) {
        ObjectNode r = JSON.createObjectNode();
        r.put("runId", runId);
        r.set("load", load);
        ObjectNode mappings = r.putObject("mappings");
        for (MappingRunner m : stack.mappings()) {
            ObjectNode n = mappings.putObject(m.spec().functionId() + "." + m.spec().eventId());
            n.put("recordsRead", m.recordsRead());
            n.put("recordsFiltered", m.recordsFiltered());
            n.put("recordsDone", m.recordsDone());
            n.put("invocations", m.invocations());
            n.put("functionErrors", m.functionErrors());
            n.put("recordsToDestination", m.recordsToDestination());
        }
        ObjectNode schedules = r.putObject("schedules");
        for (ScheduleRunner s : stack.schedules()) {
            ObjectNode n = schedules.putObject(s.spec().id());
            n.put("expression", s.spec().expression());
            n.put("everySeconds", s.every().toMillis() / 1000.0);
            n.put("runs", s.runs());
            n.put("invocations", s.invocations());
            n.put("errors", s.errors());
            n.put("retries", s.retries());
            n.put("failedRuns", s.failedRuns());
            String last = s.lastResponse();
            if (last != null) {
                try {
                    n.set("lastResponse", JSON.readTree(last));
                } catch (java.io.IOException e) {
                    n.put("lastResponse", last);
                }
            }
        }
        ObjectNode functions = r.putObject("functions");
        for (var f : stack.stack().functions()) {
            ObjectNode n = functions.putObject(f.logicalId());
            var s = stack.lambda().stats(f.logicalId());
            n.put("invocations", s.invocations());
            n.put("errors", s.errors());
            n.put("coldStarts", s.coldStarts());
            ObjectNode emf = n.putObject("metrics");
            stack.metrics(f.logicalId()).all().forEach(emf::put);
        }
        r.put("dlqMessages", dlqDepth());
        ObjectNode q = r.putObject("queryLatencyMs");
        // Measured by the API server: every request (the dashboard's and the canary check's), each once.
        Histogram h = stack.httpApi().latencies();
        q.put("requests", h.getTotalCount());
        q.put("p50", h.getValueAtPercentile(50) / 1000.0);
        q.put("p99", h.getValueAtPercentile(99) / 1000.0);
        q.put("max", h.getMaxValue() / 1000.0);
        JsonNode canary = load.path("canary");
        boolean passed = !loadFailed && canary.path("verified").asBoolean(false) && canary.path("lost").asLong(-1) == 0
                && canary.path("duplicated").asLong(-1) == 0 && canary.path("consistent").asBoolean(false);
        r.put("passed", passed);
        return r;
    }

    private void printReport(ObjectNode r) {
        JsonNode load = r.path("load");
        out.println();
        out.println("== Pulse local run " + r.path("runId").asText() + " ==");
        if (load.has("errorType") || load.has("error")) {
            out.println("load generator failed: " + load);
        }
        out.printf(Locale.ROOT, "load      sent %,d  acked %,d  failed %,d  throttled %,d  achieved %.1f/s (target %.1f/s)  put p99 %.1f ms%n",
                load.path("sent").asLong(), load.path("acked").asLong(), load.path("failed").asLong(),
                load.path("throttled").asLong(), load.path("achievedRate").asDouble(), load.path("targetRate").asDouble(),
                load.path("latencyMs").path("p99").asDouble());
        r.path("mappings").properties().forEach(e -> out.printf(Locale.ROOT,
                "mapping   %-28s read %,d  filtered %,d  done %,d  invocations %,d  function errors %,d  to DLQ %,d%n",
                e.getKey(), e.getValue().path("recordsRead").asLong(), e.getValue().path("recordsFiltered").asLong(),
                e.getValue().path("recordsDone").asLong(), e.getValue().path("invocations").asLong(),
                e.getValue().path("functionErrors").asLong(), e.getValue().path("recordsToDestination").asLong()));
        r.path("schedules").properties().forEach(e -> {
            JsonNode s = e.getValue();
            out.printf(Locale.ROOT, "schedule  %-28s runs %,d  invocations %,d  errors %,d  retries %,d  failed runs %,d  (%s, every %s s)%n",
                    e.getKey(), s.path("runs").asLong(), s.path("invocations").asLong(), s.path("errors").asLong(),
                    s.path("retries").asLong(), s.path("failedRuns").asLong(), s.path("expression").asText(),
                    new java.math.BigDecimal(s.path("everySeconds").asText()).stripTrailingZeros().toPlainString());
        });
        JsonNode ingest = r.path("functions").path(ingestFunction()).path("metrics");
        out.printf(Locale.ROOT, "ingest    records %,d  datapoints %,d  poison %,d  items written %,d  throttles %,d%n",
                ingest.path("RecordsIn").asLong(), ingest.path("DatapointsIn").asLong(), ingest.path("PoisonRecords").asLong(),
                ingest.path("ItemsWritten").asLong(), ingest.path("Throttles").asLong());
        out.printf(Locale.ROOT, "DLQ       %,d messages%n", r.path("dlqMessages").asLong());
        JsonNode q = r.path("queryLatencyMs");
        out.printf(Locale.ROOT, "query     %,d requests  p50 %.1f ms  p99 %.1f ms  max %.1f ms%n", q.path("requests").asLong(),
                q.path("p50").asDouble(), q.path("p99").asDouble(), q.path("max").asDouble());
        JsonNode c = load.path("canary");
        out.printf(Locale.ROOT, "canary    sent %d  observed %d  lost %d  duplicated %d  consistent %s  freshness p50 %d ms p99 %d ms%n",
                c.path("sent").asLong(), c.path("observed").asLong(), c.path("lost").asLong(), c.path("duplicated").asLong(),
                c.path("consistent").asBoolean(), c.path("freshnessP50Ms").asLong(), c.path("freshnessP99Ms").asLong());
        out.println("result    " + (r.path("passed").asBoolean() ? "PASS: zero lost, zero duplicated" : "FAIL"));
        if (config.reportFile() != null) {
            out.println("report    " + config.reportFile());
        }
    }
}
