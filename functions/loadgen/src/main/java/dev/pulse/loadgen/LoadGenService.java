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

    /** Sends one worker's share (in production: Lambda Invoke of this function, RequestResponse). */
    public interface WorkerInvoker {
        CompletableFuture<JsonNode> invoke(LoadGenRequest workerRequest);
    }

    private final KinesisSender sender;
    private final Function<String, List<ReplayRecord>> sources;
    private final WorkerInvoker workers;
    private final CanaryVerifier.Reader canaryReader;

    public LoadGenService(KinesisSender sender, Function<String, List<ReplayRecord>> sources, WorkerInvoker workers,
            CanaryVerifier.Reader canaryReader) {
        this.sender = sender;
        this.sources = sources;
        this.workers = workers;
        this.canaryReader = canaryReader;
    }

    public ObjectNode run(LoadGenRequest r, Deadline deadline, InvocationMetrics<LoadGenMetric> metrics)
            throws InterruptedException {
        ObjectNode report;
        List<Long> canaries;
        if (r.workers() > 1 && r.worker() < 0) {
            List<CompletableFuture<JsonNode>> calls = new ArrayList<>();
            for (int i = 0; i < r.workers(); i++) {
                calls.add(workers.invoke(r.forWorker(i)));
            }
            List<JsonNode> results = new ArrayList<>();
            for (CompletableFuture<JsonNode> c : calls) {
                results.add(c.join());
            }
            report = merge(r, results);
            canaries = new ArrayList<>();
            results.get(0).path("canarySendTimes").forEach(t -> canaries.add(t.asLong()));
        } else {
            List<ReplayRecord> records = sources.apply(r.source());
            Schedule schedule = r.mode().equals("rate") ? Schedule.rate(r.rate(), r.rampUpSeconds())
                    : Schedule.recorded(ReplaySource.offsets(records), r.speed());
            boolean writesCanary = r.worker() <= 0;
            KinesisSender send = r.aggregate() ? sender.withAggregation(r.maxAggregateBytes()) : sender;
            SendReport s = send.run(records, schedule, r.rate(), r.rampUpSeconds(), r.durationSeconds(),
                    r.maxRecords() == 0 ? Long.MAX_VALUE : r.maxRecords(), deadline,
                    writesCanary ? k -> CanaryVerifier.record(r.runId(), k, System.currentTimeMillis()) : null);
            report = toJson(r, s);
            canaries = s.canaries();
            ArrayNode times = report.putArray("canarySendTimes");
            canaries.forEach(times::add);
        }
        if (r.worker() < 0) {
            verifyCanary(r, canaries, deadline, report);
        }
        publish(report, metrics);
        return report;
    }

    private void verifyCanary(LoadGenRequest r, List<Long> canaries, Deadline deadline, ObjectNode report)
            throws InterruptedException {
        ObjectNode c = report.putObject("canary");
        c.put("series", CanaryVerifier.SERIES_NAME + "{run=" + r.runId() + "}");
        c.put("sent", canaries.size());
        if (canaryReader == null) {
            c.put("verified", false);
            c.put("reason", "no query API configured (API_URL)");
            return;
        }
        CanaryVerifier.Verdict v = CanaryVerifier.verify(r.runId(), canaries, canaryReader, deadline, 1_000);
        c.put("verified", true);
        c.put("ok", v.ok());
        c.put("observed", v.observed());
        c.put("lost", v.lost());
        c.put("duplicated", v.duplicated());
        c.put("consistent", v.consistent());
        c.put("freshnessP50Ms", v.freshnessP50Ms());
        c.put("freshnessP99Ms", v.freshnessP99Ms());
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
        String[] counters = {"sent", "acked", "failed", "throttled", "retried", "kinesisRecords", "payloadBytes",
            "putPayloadUnits", "putPayloadUnitsUnaggregated"};
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
        m.set(LoadGenMetric.PUT_LATENCY_P99_MS, report.path("latencyMs").path("p99").asDouble());
        m.add(LoadGenMetric.CANARY_LOST, report.path("canary").path("lost").asLong());
        m.add(LoadGenMetric.CANARY_DUPLICATED, report.path("canary").path("duplicated").asLong());
    }
}
