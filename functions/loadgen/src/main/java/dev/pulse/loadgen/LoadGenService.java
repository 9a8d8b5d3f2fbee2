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
package dev.pulse.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Runs a load test: as a single worker (sends, returns its report with its histogram), or as the coordinator
 * of {@code workers} parallel invocations, each with its share of the rate, whose reports it merges into one
 * (percentiles over all samples). Worker 0 also writes the run's canary series; the coordinator then reads
 * it back when a reader is configured.
 */
public final class LoadGenService {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How often the coordinator reads the canary series, during and after the load: the freshness resolution. */
    static final long CANARY_POLL_MILLIS = 1_000;

    /** Sends one worker's share (in production: Lambda Invoke of this function, RequestResponse). */
    public interface WorkerInvoker {
        CompletableFuture<JsonNode> invoke(LoadGenRequest workerRequest);
    }

    private final KinesisSender sender;
    private final Function<String, List<ReplayRecord>> sources;
    private final WorkerInvoker workers;
    private final CanaryVerifier.Reader canaryReader;
    private final ReportStore reports;

    /** Where the coordinator stores a run's HTML report (S3 in production). */
    public interface ReportStore {
        /** Stores {@code html} under {@code key}; returns the object's URI. */
        String put(String key, String html);
    }

    public LoadGenService(
            KinesisSender sender,
            Function<String, List<ReplayRecord>> sources,
            WorkerInvoker workers,
            CanaryVerifier.Reader canaryReader) {
        this(sender, sources, workers, canaryReader, null);
    }

    /** With {@code reports} null a request for an HTML report is refused before anything is sent. */
    public LoadGenService(
            KinesisSender sender,
            Function<String, List<ReplayRecord>> sources,
            WorkerInvoker workers,
            CanaryVerifier.Reader canaryReader,
            ReportStore reports) {
        this.sender = sender;
        this.sources = sources;
        this.workers = workers;
        this.canaryReader = canaryReader;
        this.reports = reports;
    }

    /** The key of a run's HTML report in the report bucket. */
    public static String reportKey(String runId) {
        return "reports/" + runId + ".html";
    }

    public ObjectNode run(LoadGenRequest r, Deadline deadline, InvocationMetrics<LoadGenMetric> metrics)
            throws InterruptedException {
        if (r.htmlReport() && reports == null) {
            throw new LoadGenRequest.InvalidRequestException(
                    "htmlReport", "no report bucket configured (deploy with the ReplayBucket parameter)");
        }
        // The coordinator reads the canary series while the load runs, as a dashboard would: that is the freshness a
        // user sees. Workers of a fanned-out run do not read; their coordinator does.
        CanaryWatch watch = r.worker() < 0 && canaryReader != null
                ? CanaryWatch.start(r.runId(), canaryReader, CANARY_POLL_MILLIS, System::currentTimeMillis)
                : null;
        Sent sent;
        List<CanaryWatch.Poll> during = List.of();
        try {
            sent = send(r, deadline);
        } finally {
            if (watch != null) {
                during = watch.stop();
            }
        }
        ObjectNode report = sent.report();
        if (r.worker() < 0) {
            verifyCanary(r, sent.canaries(), sent.unconfirmed(), during, deadline, report);
            if (r.htmlReport()) {
                String key = reportKey(r.runId());
                String html = dev.pulse.report.LoadRunCharts.create("Pulse load run " + r.runId(), report)
                        .render();
                ObjectNode h = report.putObject("htmlReport");
                h.put("key", key);
                h.put("uri", reports.put(key, html));
            }
        }
        publish(report, metrics);
        return report;
    }

    /** What this invocation sent (or its workers did): their report and worker 0's canaries. */
    private record Sent(ObjectNode report, List<Long> canaries, List<Integer> unconfirmed) {}

    private Sent send(LoadGenRequest r, Deadline deadline) throws InterruptedException {
        if (r.workers() > 1 && r.worker() < 0) {
            // Nothing is sent before the whole request is valid: the coordinator reads the source once (and lets it
            // go) so that a bad one is refused here, naming its line, rather than by every worker after others sent.
            // The parsed records themselves are not needed here: only the refusal of a bad source is.
            var unused = sources.apply(r.source());
            List<CompletableFuture<JsonNode>> calls = new ArrayList<>();
            for (int i = 0; i < r.workers(); i++) {
                calls.add(workers.invoke(r.withWorker(i)));
            }
            List<JsonNode> results = new ArrayList<>();
            for (CompletableFuture<JsonNode> c : calls) {
                results.add(c.join());
            }
            for (int i = 0; i < results.size(); i++) {
                JsonNode error = results.get(i).get("error");
                if (error != null) {
                    throw new LoadGenRequest.InvalidRequestException(
                            error.path("field").asText("event"),
                            "worker " + i + " refused its share: "
                                    + error.path("message").asText());
                }
            }
            ObjectNode report = merge(r, results);
            List<Long> canaries = new ArrayList<>();
            results.get(0).path("canarySendTimes").forEach(t -> canaries.add(t.asLong()));
            List<Integer> unconfirmed = new ArrayList<>();
            results.get(0).path("canaryUnconfirmedPuts").forEach(t -> unconfirmed.add(t.asInt()));
            return new Sent(report, canaries, unconfirmed);
        } else {
            // A worker of a fanned-out run gets the whole request and runs its share of it.
            LoadGenRequest mine = r.worker() >= 0 && r.workers() > 1 ? r.forWorker(r.worker()) : r;
            List<ReplayRecord> records = sources.apply(mine.source());
            Schedule schedule = mine.mode().equals("rate")
                    ? Schedule.rate(mine.rate(), mine.rampUpSeconds())
                    : Schedule.recorded(ReplaySource.offsets(records), mine.speed());
            boolean writesCanary = mine.worker() <= 0;
            KinesisSender send = mine.aggregate() ? sender.withAggregation(mine.maxAggregateBytes()) : sender;
            SendReport s = send.run(
                    records,
                    schedule,
                    mine.rate(),
                    mine.rampUpSeconds(),
                    mine.durationSeconds(),
                    mine.maxRecords() == 0 ? Long.MAX_VALUE : mine.maxRecords(),
                    deadline,
                    writesCanary ? k -> CanaryVerifier.record(mine.runId(), k, System.currentTimeMillis()) : null);
            ObjectNode report = toJson(mine, s);
            List<Long> canaries = s.canaries();
            List<Integer> unconfirmed = s.canaryUnconfirmedPuts();
            ArrayNode times = report.putArray("canarySendTimes");
            canaries.forEach(times::add);
            ArrayNode puts = report.putArray("canaryUnconfirmedPuts");
            unconfirmed.forEach(puts::add);
            return new Sent(report, canaries, unconfirmed);
        }
    }

    private void verifyCanary(
            LoadGenRequest r,
            List<Long> canaries,
            List<Integer> unconfirmed,
            List<CanaryWatch.Poll> during,
            Deadline deadline,
            ObjectNode report)
            throws InterruptedException {
        ObjectNode c = report.putObject("canary");
        c.put("series", CanaryVerifier.SERIES_NAME + "{run=" + r.runId() + "}");
        c.put("sent", canaries.size());
        if (canaryReader == null) {
            c.put("verified", false);
            c.put("reason", "no query API configured (API_URL)");
            return;
        }
        CanaryVerifier.Verdict v = CanaryVerifier.verify(
                r.runId(), canaries, unconfirmed, during, canaryReader, deadline, CANARY_POLL_MILLIS);
        c.put("verified", true);
        c.put("ok", v.ok());
        c.put("observed", v.observed());
        c.put("lost", v.lost());
        c.put("duplicated", v.duplicated());
        c.put("unconfirmedPuts", v.unconfirmedPuts());
        c.put("consistent", v.consistent());
        c.put("freshnessP50Ms", v.freshnessP50Ms());
        c.put("freshnessP99Ms", v.freshnessP99Ms());
        c.put("freshnessPollMs", CANARY_POLL_MILLIS);
        // How many canaries were first counted while the load ran; the rest only by the check after it, whose
        // figures include the wait for the end of the load.
        long seenDuring =
                during.stream().mapToLong(CanaryWatch.Poll::count).max().orElse(0);
        c.put("countedDuringLoad", Math.min(canaries.size(), seenDuring));
        ArrayNode each = c.putArray("freshnessPerCanaryMs");
        for (long f : v.freshnessMs()) {
            each.add(f);
        }
    }

    static ObjectNode toJson(LoadGenRequest r, SendReport s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("runId", r.runId());
        n.put("worker", r.worker());
        n.put("sent", s.sent());
        n.put("acked", s.acked());
        n.put("failed", s.failed());
        n.put("throttled", s.throttled());
        n.put("retried", s.retried());
        n.put("targetRate", s.targetRate());
        n.put("achievedRate", s.achievedRate());
        n.put("aggregate", r.aggregate());
        n.put("kinesisRecords", s.units().kinesisRecords());
        n.put("payloadBytes", s.units().payloadBytes());
        n.put("putPayloadUnits", s.units().putPayloadUnits());
        n.put("putPayloadUnitsUnaggregated", s.units().putPayloadUnitsUnaggregated());
        shards(n, r.durationSeconds());
        latency(n.putObject("latencyMs"), s.latency());
        ArrayNode per = n.putArray("sentPerSecond");
        for (long v : s.sentPerSecond()) {
            per.add(v);
        }
        ArrayNode target = n.putArray("targetPerSecond");
        for (long v : s.scheduledPerSecond()) {
            target.add(v);
        }
        ObjectNode lps = n.putObject("latencyPerSecondMs");
        ArrayNode count = lps.putArray("count");
        ArrayNode p50 = lps.putArray("p50");
        ArrayNode p90 = lps.putArray("p90");
        ArrayNode p99 = lps.putArray("p99");
        ArrayNode max = lps.putArray("max");
        for (SendReport.Second sec : s.latencyPerSecond()) {
            count.add(sec.count());
            p50.add(sec.p50());
            p90.add(sec.p90());
            p99.add(sec.p99());
            max.add(sec.max());
        }
        n.put("histogram", s.latency().encode());
        return n;
    }

    /** One report from the workers': counts and per-second sends add up, latency histograms merge. */
    static ObjectNode merge(LoadGenRequest r, List<JsonNode> workerReports) {
        ObjectNode n = JSON.createObjectNode();
        n.put("runId", r.runId());
        n.put("worker", -1);
        LatencyHistogram all = new LatencyHistogram();
        long[] perSecond = new long[(int) r.durationSeconds()];
        long[] targetPerSecond = new long[perSecond.length];
        // Per-second percentiles do not merge without the histograms (too large to return per second): the
        // merged value is the highest worker's, an upper bound of the pooled percentile; counts add up.
        String[] stats = {"p50", "p90", "p99", "max"};
        double[][] latencyPerSecond = new double[stats.length][perSecond.length];
        long[] latencyCount = new long[perSecond.length];
        String[] counters = {
            "sent",
            "acked",
            "failed",
            "throttled",
            "retried",
            "kinesisRecords",
            "payloadBytes",
            "putPayloadUnits",
            "putPayloadUnitsUnaggregated"
        };
        long[] totals = new long[counters.length];
        double achieved = 0;
        ArrayNode workers = n.putArray("workers");
        for (JsonNode w : workerReports) {
            for (int i = 0; i < counters.length; i++) {
                totals[i] += w.path(counters[i]).asLong();
            }
            achieved += w.path("achievedRate").asDouble();
            for (int s = 0; s < perSecond.length && s < w.path("sentPerSecond").size(); s++) {
                perSecond[s] += w.path("sentPerSecond").get(s).asLong();
            }
            JsonNode lps = w.path("latencyPerSecondMs");
            for (int s = 0; s < perSecond.length; s++) {
                targetPerSecond[s] += w.path("targetPerSecond").path(s).asLong();
                latencyCount[s] += lps.path("count").path(s).asLong();
                for (int k = 0; k < stats.length; k++) {
                    latencyPerSecond[k][s] = Math.max(
                            latencyPerSecond[k][s], lps.path(stats[k]).path(s).asDouble());
                }
            }
            all.merge(LatencyHistogram.decode(w.path("histogram").asText()));
            ObjectNode summary = workers.addObject();
            summary.put("worker", w.path("worker").asInt());
            for (String c : counters) {
                summary.put(c, w.path(c).asLong());
            }
            summary.put("achievedRate", w.path("achievedRate").asDouble());
            summary.set("latencyMs", w.path("latencyMs"));
        }
        for (int i = 0; i < counters.length; i++) {
            n.put(counters[i], totals[i]);
        }
        n.put("targetRate", r.rate());
        n.put("achievedRate", achieved);
        n.put("aggregate", r.aggregate());
        shards(n, r.durationSeconds());
        latency(n.putObject("latencyMs"), all);
        ArrayNode per = n.putArray("sentPerSecond");
        for (long v : perSecond) {
            per.add(v);
        }
        ArrayNode target = n.putArray("targetPerSecond");
        for (long v : targetPerSecond) {
            target.add(v);
        }
        ObjectNode lps = n.putObject("latencyPerSecondMs");
        ArrayNode count = lps.putArray("count");
        for (long v : latencyCount) {
            count.add(v);
        }
        for (int k = 0; k < stats.length; k++) {
            ArrayNode a = lps.putArray(stats[k]);
            for (double v : latencyPerSecond[k]) {
                a.add(v);
            }
        }
        return n;
    }

    /**
     * The shards the run's average write load needs by Kinesis's per-shard write limits (1,000 records/s and 1 MiB/s):
     * what aggregation changes, since it trades many small records for few large ones. A floor: bursts need more.
     */
    static void shards(ObjectNode n, long seconds) {
        double s = Math.max(1, seconds);
        double byRecords = n.path("kinesisRecords").asLong() / s / 1000.0;
        double byBytes = n.path("payloadBytes").asLong() / s / 1_048_576.0;
        n.put("shardsNeeded", (long) Math.max(1, Math.ceil(Math.max(byRecords, byBytes))));
    }

    private static void latency(ObjectNode n, LatencyHistogram h) {
        n.put("p50", h.percentileMillis(50));
        n.put("p90", h.percentileMillis(90));
        n.put("p99", h.percentileMillis(99));
        n.put("p99.9", h.percentileMillis(99.9));
        n.put("max", h.maxMillis());
    }

    private static void publish(ObjectNode report, InvocationMetrics<LoadGenMetric> m) {
        m.add(LoadGenMetric.SENT, report.path("sent").asLong());
        m.add(LoadGenMetric.ACKED, report.path("acked").asLong());
        m.add(LoadGenMetric.FAILED, report.path("failed").asLong());
        m.add(LoadGenMetric.THROTTLED, report.path("throttled").asLong());
        m.add(LoadGenMetric.RETRIED, report.path("retried").asLong());
        m.set(LoadGenMetric.TARGET_RATE, report.path("targetRate").asDouble());
        m.set(LoadGenMetric.ACHIEVED_RATE, report.path("achievedRate").asDouble());
        m.set(
                LoadGenMetric.PUT_LATENCY_P99_MS,
                report.path("latencyMs").path("p99").asDouble());
        m.add(LoadGenMetric.CANARY_LOST, report.path("canary").path("lost").asLong());
        m.add(
                LoadGenMetric.CANARY_DUPLICATED,
                report.path("canary").path("duplicated").asLong());
    }
}
