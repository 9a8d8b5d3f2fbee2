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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.report.HtmlReport;
import dev.pulse.report.LoadRunCharts;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
     * @param checkAlerts     after the drain, wait (bounded) for the bundled alert the load makes fire to resolve, and
     *                        fail the run unless its firing and resolved notifications each arrived once
     *                        ({@link AlertCheck}); make run does, the shorter test runs do not (it takes minutes)
     */
    record Config(
            String source,
            String mode,
            double rate,
            double speed,
            double rampUpSeconds,
            long durationSeconds,
            int workers,
            String loadGenFunction,
            Path reportFile,
            boolean checkAlerts) {

        /** Without the alert check. */
        Config(
                String source,
                String mode,
                double rate,
                double speed,
                double rampUpSeconds,
                long durationSeconds,
                int workers,
                String loadGenFunction,
                Path reportFile) {
            this(
                    source,
                    mode,
                    rate,
                    speed,
                    rampUpSeconds,
                    durationSeconds,
                    workers,
                    loadGenFunction,
                    reportFile,
                    false);
        }
    }

    /** The schedule of the rules evaluator in template.yaml. */
    static final String RULES_FUNCTION = "RulesFunction";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalDeployment stack;
    private final Config config;
    private final PrintStream out;
    private final Histogram queryLatency = new Histogram(3);
    private final Timeline timeline = new Timeline();

    /**
     * What the run samples once a second for the HTML report's charts, from counters the stack keeps anyway (no
     * per-record work): t is seconds since the load started.
     */
    private static final class Timeline {
        final List<Double> t = new ArrayList<>();
        final List<Double> lagSeconds = new ArrayList<>();
        final List<Double> dlqDepth = new ArrayList<>();
        final List<Double> ingestedPerSecond = new ArrayList<>();
        final List<Double> queryMillis = new ArrayList<>();
        final List<Double> canariesQueryable = new ArrayList<>();
        long lastDone = -1;
        double lastT;

        void sample(double now, double lag, long dlq, long done, double query, double canaries) {
            canariesQueryable.add(canaries);
            ingestedPerSecond.add(lastDone < 0 || now <= lastT ? Double.NaN : (done - lastDone) / (now - lastT));
            lastDone = done;
            lastT = now;
            t.add(now);
            lagSeconds.add(lag);
            dlqDepth.add((double) dlq);
            queryMillis.add(query);
        }

        /** The samples as columns (NaN, a failed or absent query, as null), for the JSON report. */
        ObjectNode toJson() {
            ObjectNode n = JSON.createObjectNode();
            java.util.Map<String, List<Double>> columns = new java.util.LinkedHashMap<>();
            columns.put("seconds", t);
            columns.put("lagSeconds", lagSeconds);
            columns.put("dlqDepth", dlqDepth);
            columns.put("ingestedPerSecond", ingestedPerSecond);
            columns.put("queryMillis", queryMillis);
            columns.put("canariesQueryable", canariesQueryable);
            columns.forEach((name, values) -> {
                var a = n.putArray(name);
                values.forEach(v -> {
                    if (Double.isFinite(v)) {
                        a.add(v);
                    } else {
                        a.addNull();
                    }
                });
            });
            return n;
        }

        HtmlReport.Series series(String name, List<Double> values) {
            return new HtmlReport.Series(
                    name,
                    t.stream().mapToDouble(Double::doubleValue).toArray(),
                    values.stream().mapToDouble(Double::doubleValue).toArray());
        }
    }

    PipelineRun(LocalDeployment stack, Config config, PrintStream out) {
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
                return stack.lambda()
                        .invoke(config.loadGenFunction(), request.toString().getBytes(StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        });
        try (SignedApi api = new SignedApi(stack.apiUrl())) {
            long lastLine = 0;
            while (!load.isDone()) {
                Thread.sleep(1_000);
                double[] query = dashboardQuery(api, runId);
                sample(started, query[0], query[1]);
                long elapsed = (System.nanoTime() - started) / 1_000_000_000L;
                if (elapsed - lastLine >= 5 || load.isDone()) {
                    out.println(progress(elapsed));
                    lastLine = elapsed;
                }
            }
        }
        InvokeResult result = load.join();
        JsonNode report = JSON.readTree(result.payload());
        // Let the last batches through before reading the totals (the canary check already waited for its own). It
        // returns as soon as every mapping's backlog is empty, and keeps waiting while a busy machine still makes
        // progress.
        drain(Duration.ofSeconds(60), Duration.ofMinutes(10), started);
        out.println(progress((System.nanoTime() - started) / 1_000_000_000L));
        AlertCheck.Outcome alerts = alerts(runId, report, started);
        ObjectNode full = report(runId, result.failed(), report);
        full.set("alerts", alerts.json());
        full.put("passed", full.path("passed").asBoolean() && alerts.passed());
        full.set("timeline", timeline.toJson());
        if (config.reportFile() != null) {
            Files.createDirectories(config.reportFile().toAbsolutePath().getParent());
            Files.writeString(
                    config.reportFile(), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(full));
            Files.writeString(htmlFile(config.reportFile()), html(full).render());
        }
        printReport(full);
        return full;
    }

    /**
     * Starts the environments the run will need (one per shard for each mapping's function, one for each API
     * function, two for the one behind {@code POST /query}: this run's dashboard query and the load generator's
     * canary reads call it at the same time every second) before the clock starts: on a small machine several JVMs
     * starting at once would otherwise show up as the first minute's lag.
     */
    private void warmUp() throws InterruptedException {
        long t0 = System.nanoTime();
        java.util.Map<String, Integer> wanted = new java.util.LinkedHashMap<>();
        stack.mappings().forEach(m -> wanted.merge(m.spec().functionId(), Math.max(1, m.shardCount()), Integer::sum));
        stack.stack().routes().forEach(r -> wanted.putIfAbsent(r.functionId(), 1));
        stack.stack().routes().stream()
                .filter(r -> r.path().equals("/query")
                        && (r.method().equals("POST") || r.method().equals("ANY")))
                .forEach(r -> wanted.put(r.functionId(), 2));
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
        wanted.forEach((fn, n) -> line.append(' ')
                .append(fn)
                .append(' ')
                .append(ready.getOrDefault(fn, 0))
                .append('/')
                .append(n));
        out.printf(Locale.ROOT, "%s in %.1f s%n", line, (System.nanoTime() - t0) / 1e9);
    }

    /**
     * The alert check ({@link AlertCheck}): waits until the bundled alert the load makes fire has resolved, at most
     * until two evaluation intervals, one period of the evaluator's schedule and a minute of slack after the last
     * canary (the rule's window empties the minute after it; the evaluation that sees it runs within a period), then
     * judges what the subscriber received.
     */
    private AlertCheck.Outcome alerts(String runId, JsonNode load, long started) throws InterruptedException {
        if (!config.checkAlerts()) {
            return AlertCheck.notChecked("not asked for");
        }
        AlertSubscriber subscriber = stack.alertSubscriber();
        if (subscriber == null) {
            return AlertCheck.notChecked("the stack has no alert topic (AlertTopicArn names one outside it)");
        }
        ScheduleRunner rules = stack.schedules().stream()
                .filter(s -> s.spec().functionId().equals(RULES_FUNCTION))
                .findFirst()
                .orElse(null);
        if (rules == null || rules.every().isZero()) {
            return AlertCheck.notChecked("the rules evaluator's schedule does not run (--schedule-every 0)");
        }
        List<Long> canaries = new ArrayList<>();
        load.path("canarySendTimes").forEach(t -> canaries.add(t.asLong()));
        if (canaries.isEmpty()) {
            // Several workers: the coordinator's report has no send times; the load's start and end bound them.
            long now = System.currentTimeMillis();
            canaries.add(now - (System.nanoTime() - started) / 1_000_000L);
            canaries.add(now);
        }
        long first = canaries.get(0);
        long last = canaries.get(canaries.size() - 1);
        long deadline = last + 2 * AlertCheck.INTERVAL_MILLIS + rules.every().toMillis() + 60_000;
        long lastLine = 0;
        while (!AlertCheck.resolved(subscriber.deliveries(), runId) && System.currentTimeMillis() < deadline) {
            Thread.sleep(1_000);
            sample(started, Double.NaN, Double.NaN);
            long elapsed = (System.nanoTime() - started) / 1_000_000_000L;
            if (elapsed - lastLine >= 10) {
                boolean fired = subscriber.deliveries().stream()
                        .anyMatch(
                                d -> AlertCheck.expected(d, runId) && d.status().equals("firing"));
                out.printf(
                        Locale.ROOT,
                        "[%4ds] waiting for %s{run=\"%s\"} to %s (at most %d s more)%n",
                        elapsed,
                        AlertCheck.EXPECTED_ALERT,
                        runId,
                        fired ? "resolve" : "fire and resolve",
                        Math.max(0, (deadline - System.currentTimeMillis()) / 1000));
                lastLine = elapsed;
            }
        }
        AlertCheck.Outcome o = AlertCheck.judge(subscriber.deliveries(), runId, first, last);
        o.json().put("subscriber", subscriber.endpoint().toString());
        o.json().put("messages", subscriber.messages());
        o.json().put("rejected", subscriber.rejected());
        o.json().put("redelivered", subscriber.duplicates());
        var lines = o.json().putArray("lines");
        o.lines().forEach(lines::add);
        return o;
    }

    /** The HTML report's path: the JSON report's with {@code .html} for {@code .json}. */
    static Path htmlFile(Path jsonReport) {
        String name = jsonReport.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        return jsonReport.resolveSibling(base + ".html");
    }

    private void sample(long started, double queryMillis, double canaries) {
        MappingRunner ingest = ingestMapping();
        timeline.sample(
                (System.nanoTime() - started) / 1e9,
                ingest == null ? 0 : ingest.lagMillis() / 1000.0,
                dlqDepth(),
                ingest == null ? 0 : ingest.recordsDone(),
                queryMillis,
                canaries);
    }

    /** The load generator's charts and the pipeline's, sampled once a second while the run lasted. */
    private HtmlReport html(ObjectNode full) {
        HtmlReport page =
                LoadRunCharts.create("Pulse local run " + full.path("runId").asText(), full.path("load"));
        MappingRunner ingest = ingestMapping();
        if (ingest != null) {
            page.summary(
                    "ingest",
                    String.format(
                            Locale.ROOT,
                            "read %,d  done %,d  invocations %,d  function errors %,d",
                            ingest.recordsRead(),
                            ingest.recordsDone(),
                            ingest.invocations(),
                            ingest.functionErrors()));
        }
        JsonNode q = full.path("queryLatencyMs");
        page.summary(
                "query API",
                String.format(
                        Locale.ROOT,
                        "%,d requests  p50 %.1f ms  p99 %.1f ms  max %.1f ms",
                        q.path("requests").asLong(),
                        q.path("p50").asDouble(),
                        q.path("p99").asDouble(),
                        q.path("max").asDouble()));
        page.summary("DLQ", full.path("dlqMessages").asLong() + " messages at the end");
        JsonNode alerts = full.path("alerts");
        if (alerts.path("checked").asBoolean()) {
            alerts.path("alerts")
                    .forEach(a -> page.summary(
                            "alert " + a.path("alertname").asText(),
                            String.format(
                                    Locale.ROOT,
                                    "%s  fired %s (delivered %s)  resolved %s (delivered %s)  %d firing + %d resolved message(s)",
                                    a.path("labels"),
                                    a.path("firedAt").asText("-"),
                                    a.path("firingDeliveredAt").asText("-"),
                                    a.path("resolvedAt").asText("-"),
                                    a.path("resolvedDeliveredAt").asText("-"),
                                    a.path("firingMessages").asInt(),
                                    a.path("resolvedMessages").asInt())));
            if (alerts.has("detectionLatencyMs")) {
                page.summary(
                        "alert detection",
                        String.format(
                                Locale.ROOT,
                                "%.1f s from the first canary to the firing notification (target <= %d s: %s)",
                                alerts.path("detectionLatencyMs").asLong() / 1e3,
                                alerts.path("detectionTargetMs").asLong() / 1000,
                                alerts.path("detectionTargetMet").asBoolean() ? "met" : "MISSED"));
            }
            if (!alerts.path("passed").asBoolean()) {
                page.summary("alerts", "FAIL: " + alerts.path("reason").asText());
            }
        } else {
            page.summary("alerts", "not checked: " + alerts.path("reason").asText());
        }
        page.summary("result", full.path("passed").asBoolean() ? resultText(full) : "FAIL");
        page.chart(new HtmlReport.Chart(
                "ingested",
                "Records ingested",
                "records/s",
                "Records the ingest mapping finished per second (sampled once a second, the drain included).",
                List.of(timeline.series("ingested", timeline.ingestedPerSecond))));
        page.chart(new HtmlReport.Chart(
                "ingest-lag",
                "Ingest lag",
                "s",
                "Age of the newest record the ingest function finished while records wait; 0 when none wait.",
                List.of(timeline.series("lag", timeline.lagSeconds))));
        page.chart(new HtmlReport.Chart(
                "dlq-depth",
                "DLQ depth",
                "messages",
                "Messages in the dead-letter queues (visible and in flight), sampled once a second.",
                List.of(timeline.series("DLQ", timeline.dlqDepth))));
        page.chart(new HtmlReport.Chart(
                "canary-queryable",
                "Canaries queryable",
                "canaries",
                "The canary datapoints the dashboard query counted (one is sent each second): the horizontal distance "
                        + "to the diagonal is the freshness while the load runs.",
                List.of(timeline.series("counted by the API", timeline.canariesQueryable))));
        page.chart(new HtmlReport.Chart(
                "query-latency",
                "Query latency",
                "ms",
                "The dashboard query (the canary series' last ten minutes, SigV4-signed) sent once a second while the load runs; a gap is a failed call or the drain after the load.",
                List.of(timeline.series("POST /query", timeline.queryMillis))));
        return page;
    }

    /**
     * What a dashboard does: the canary series' last ten minutes, once a second. Answers its latency in ms and the
     * canaries it counted (both NaN if the call failed).
     */
    private double[] dashboardQuery(SignedApi api, String runId) {
        long now = System.currentTimeMillis();
        String body = "{\"series\":[{\"name\":\"loadgen.canary\",\"dims\":{\"run\":\"" + runId + "\"}}],\"start\":"
                + (now - 600_000) + ",\"end\":" + now + ",\"period\":60,\"stats\":[\"count\",\"p99\"]}";
        long t0 = System.nanoTime();
        try {
            SignedApi.Response r = api.post("/query", body);
            long micros = Math.max(1, (System.nanoTime() - t0) / 1_000);
            if (r.status() == 200) {
                synchronized (queryLatency) {
                    queryLatency.recordValue(micros);
                }
                double counted = 0;
                for (JsonNode series : JSON.readTree(r.body()).path("series")) {
                    for (JsonNode c : series.path("values").path("count")) {
                        counted += c.asDouble(0);
                    }
                }
                return new double[] {micros / 1000.0, counted};
            }
        } catch (Exception e) {
            // The progress line shows the API's latency; a failed call is visible in the query function's log.
        }
        return new double[] {Double.NaN, Double.NaN};
    }

    /**
     * Waits until every mapping's backlog is empty and nothing was read for 2 s (kinesalite reports no
     * MillisBehindLatest, so "nothing new" is the only sign the stream is drained). A busy machine drains slowly but
     * steadily, so the wait lasts while records are still being read or done, and ends after {@code stall} without
     * either (records that will never come: the totals then show what is missing) or at {@code max} in all.
     */
    private void drain(Duration stall, Duration max, long started) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        long lastRead = -1;
        long lastDone = -1;
        long quietSince = System.nanoTime();
        long progressAt = System.nanoTime();
        long lastSample = System.nanoTime();
        while (System.nanoTime() < deadline && System.nanoTime() - progressAt < stall.toNanos()) {
            if (System.nanoTime() - lastSample >= 1_000_000_000L) {
                sample(started, Double.NaN, Double.NaN);
                lastSample = System.nanoTime();
            }
            long read = stack.mappings().stream()
                    .mapToLong(MappingRunner::recordsRead)
                    .sum();
            long done = stack.mappings().stream()
                    .mapToLong(MappingRunner::recordsDone)
                    .sum();
            if (read != lastRead) {
                lastRead = read;
                quietSince = System.nanoTime();
                progressAt = quietSince;
            }
            if (done != lastDone) {
                lastDone = done;
                progressAt = System.nanoTime();
            }
            boolean settled = stack.mappings().stream().allMatch(m -> m.backlog() == 0);
            if (settled && System.nanoTime() - quietSince > 2_000_000_000L) {
                return;
            }
            Thread.sleep(250);
        }
    }

    private String progress(long elapsedSeconds) {
        MappingRunner ingest = ingestMapping();
        long read = ingest == null ? 0 : ingest.recordsRead();
        long done = ingest == null ? 0 : ingest.recordsDone();
        double lag = ingest == null ? 0 : ingest.lagMillis() / 1000.0;
        double p99;
        synchronized (queryLatency) {
            p99 = queryLatency.getTotalCount() == 0 ? 0 : queryLatency.getValueAtPercentile(99) / 1000.0;
        }
        EmfTotals ingestMetrics = stack.metrics(ingestFunction());
        String builds = stack.schedules().isEmpty()
                ? ""
                : String.format(
                        Locale.ROOT,
                        " | builds %,d",
                        stack.schedules().stream()
                                .mapToLong(ScheduleRunner::runs)
                                .sum());
        return String.format(
                Locale.ROOT,
                "[%4ds] read %,d | ingested %,d records, %,d datapoints | lag %.1f s | DLQ %,d%s | query p99 %.0f ms",
                elapsedSeconds,
                read,
                done,
                ingestMetrics.sum("DatapointsIn"),
                lag,
                dlqDepth(),
                builds,
                p99);
    }

    private String ingestFunction() {
        MappingRunner m = ingestMapping();
        return m == null ? "" : m.spec().functionId();
    }

    /** The template's one event source mapping (the stream into the ingest function), or null without one. */
    private MappingRunner ingestMapping() {
        return stack.mappings().stream().findFirst().orElse(null);
    }

    private long dlqDepth() {
        long total = 0;
        for (String url : stack.queueUrls()) {
            var a = stack.sqs()
                    .getQueueAttributes(b -> b.queueUrl(url)
                            .attributeNames(
                                    QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                    QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                    .attributes();
            total += Long.parseLong(a.getOrDefault(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES, "0"))
                    + Long.parseLong(
                            a.getOrDefault(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE, "0"));
        }
        return total;
    }

    private ObjectNode report(String runId, boolean loadFailed, JsonNode load) {
        ObjectNode r = JSON.createObjectNode();
        r.put("runId", runId);
        r.set("load", load);
        ObjectNode mappings = r.putObject("mappings");
        for (MappingRunner m : stack.mappings()) {
            ObjectNode n =
                    mappings.putObject(m.spec().functionId() + "." + m.spec().eventId());
            n.put("recordsRead", m.recordsRead());
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
        boolean passed = !loadFailed
                && canary.path("verified").asBoolean(false)
                && canary.path("lost").asLong(-1) == 0
                && canary.path("duplicated").asLong(-1) == 0
                && canary.path("consistent").asBoolean(false);
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
        out.printf(
                Locale.ROOT,
                "load      sent %,d  acked %,d  failed %,d  throttled %,d  achieved %.1f/s (target %.1f/s)  put p99 %.1f ms%n",
                load.path("sent").asLong(),
                load.path("acked").asLong(),
                load.path("failed").asLong(),
                load.path("throttled").asLong(),
                load.path("achievedRate").asDouble(),
                load.path("targetRate").asDouble(),
                load.path("latencyMs").path("p99").asDouble());
        r.path("mappings")
                .properties()
                .forEach(e -> out.printf(
                        Locale.ROOT,
                        "mapping   %-28s read %,d  done %,d  invocations %,d  function errors %,d  to DLQ %,d%n",
                        e.getKey(),
                        e.getValue().path("recordsRead").asLong(),
                        e.getValue().path("recordsDone").asLong(),
                        e.getValue().path("invocations").asLong(),
                        e.getValue().path("functionErrors").asLong(),
                        e.getValue().path("recordsToDestination").asLong()));
        r.path("schedules").properties().forEach(e -> {
            JsonNode s = e.getValue();
            out.printf(
                    Locale.ROOT,
                    "schedule  %-28s runs %,d  invocations %,d  errors %,d  retries %,d  failed runs %,d  (%s, every %s s)%n",
                    e.getKey(),
                    s.path("runs").asLong(),
                    s.path("invocations").asLong(),
                    s.path("errors").asLong(),
                    s.path("retries").asLong(),
                    s.path("failedRuns").asLong(),
                    s.path("expression").asText(),
                    new java.math.BigDecimal(s.path("everySeconds").asText())
                            .stripTrailingZeros()
                            .toPlainString());
        });
        JsonNode ingest = r.path("functions").path(ingestFunction()).path("metrics");
        out.printf(
                Locale.ROOT,
                "ingest    records %,d  datapoints %,d  poison %,d  items written %,d  throttles %,d%n",
                ingest.path("RecordsIn").asLong(),
                ingest.path("DatapointsIn").asLong(),
                ingest.path("PoisonRecords").asLong(),
                ingest.path("ItemsWritten").asLong(),
                ingest.path("Throttles").asLong());
        out.printf(
                Locale.ROOT, "DLQ       %,d messages%n", r.path("dlqMessages").asLong());
        JsonNode q = r.path("queryLatencyMs");
        out.printf(
                Locale.ROOT,
                "query     %,d requests  p50 %.1f ms  p99 %.1f ms  max %.1f ms%n",
                q.path("requests").asLong(),
                q.path("p50").asDouble(),
                q.path("p99").asDouble(),
                q.path("max").asDouble());
        JsonNode c = load.path("canary");
        out.printf(
                Locale.ROOT,
                "canary    sent %d  observed %d  lost %d  duplicated %d  consistent %s%n",
                c.path("sent").asLong(),
                c.path("observed").asLong(),
                c.path("lost").asLong(),
                c.path("duplicated").asLong(),
                c.path("consistent").asBoolean());
        out.printf(
                Locale.ROOT,
                "freshness p50 %d ms  p99 %d ms  max %d ms  (send to queryable, read every %d ms while the load ran;"
                        + " %d of %d counted during the load)%n",
                c.path("freshnessP50Ms").asLong(),
                c.path("freshnessP99Ms").asLong(),
                maxFreshness(c),
                c.path("freshnessPollMs").asLong(),
                c.path("countedDuringLoad").asLong(),
                c.path("sent").asLong());
        if (c.path("unconfirmedPuts").asLong() > 0) {
            out.printf(
                    Locale.ROOT,
                    "          %d PutRecords call(s) failed after they may have stored a canary: up to as many"
                            + " copies are the producer's, not duplicates%n",
                    c.path("unconfirmedPuts").asLong());
        }
        alertLines(r.path("alerts")).forEach(out::println);
        out.println("result    " + (r.path("passed").asBoolean() ? resultText(r) : "FAIL"));
        if (config.reportFile() != null) {
            out.println("report    " + config.reportFile() + " and " + htmlFile(config.reportFile()));
        }
    }

    /** The passing result's words: the canary's, and the alert's when it was checked. */
    private static String resultText(JsonNode r) {
        return "PASS: zero lost, zero duplicated"
                + (r.path("alerts").path("checked").asBoolean()
                        ? ", " + AlertCheck.EXPECTED_ALERT + " fired and resolved once"
                        : "");
    }

    /** The console lines of the alert check, rebuilt from the report's {@code alerts} object. */
    static List<String> alertLines(JsonNode alerts) {
        List<String> lines = new ArrayList<>();
        if (alerts.isMissingNode()) {
            return lines;
        }
        if (!alerts.path("checked").asBoolean()) {
            if (!alerts.path("reason").asText().equals("not asked for")) {
                lines.add("alerts    not checked: " + alerts.path("reason").asText());
            }
            return lines;
        }
        lines.add(String.format(
                Locale.ROOT,
                "alerts    %d message(s) to the local subscriber %s, %d refused",
                alerts.path("messages").asLong(),
                alerts.path("subscriber").asText(),
                alerts.path("rejected").asLong()));
        lines.addAll(alerts.path("lines").isArray() ? toList(alerts.path("lines")) : List.of());
        return lines;
    }

    private static List<String> toList(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static long maxFreshness(JsonNode canary) {
        long max = 0;
        for (JsonNode f : canary.path("freshnessPerCanaryMs")) {
            max = Math.max(max, f.asLong());
        }
        return max;
    }
}
