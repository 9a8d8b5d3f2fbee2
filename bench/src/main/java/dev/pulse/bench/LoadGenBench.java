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

import dev.pulse.bench.internal.JfrProfile;
import dev.pulse.loadgen.KinesisSender;
import dev.pulse.loadgen.ReplayRecord;
import dev.pulse.loadgen.ReplaySource;
import dev.pulse.loadgen.Schedule;
import dev.pulse.loadgen.SendReport;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * loadgen: what one load generator worker can offer. The production {@link KinesisSender} with the client the
 * function builds (AWS CRT HTTP, 256 connections) replays the bundled recording onto {@link KinesisSink}, an
 * in-process Kinesis endpoint that acknowledges everything and counts what it received. Measured: the rate
 * error at 2,000 and 10,000 records/s, and the highest rate the worker sustains. The baseline is the loop one
 * would write by hand: one PutRecord per record with a blocking client, sequentially.
 */
final class LoadGenBench implements Benchmark {

    static final double TARGET_RATE = 20_000;
    static final double MAX_ERROR = 0.02;
    /** A rate that only averages out (stalls made up by bursts) is not sustained: each second stays this close. */
    static final double MAX_SECOND_ERROR = 0.10;
    /** Acknowledgements keep up when 99% of records are acknowledged within this long of their intended time. */
    static final double MAX_P99_MILLIS = 1_000;

    static final String SAMPLE = "events/replay/sample.ndjson.gz";
    private static final String STREAM = "pulse-bench";
    private static final double[] ERROR_RATES = {2_000, 10_000};
    private static final double[] LADDER = {20_000, 40_000, 80_000, 160_000, 320_000, 640_000};

    @Override
    public String name() {
        return "loadgen";
    }

    @Override
    public String howToRead() {
        return """
                One load generator worker: the function's `KinesisSender` (PutRecords of up to 500 records every 5 ms \
                tick, calls overlapping) with the client `LoadGenHandler` builds (AWS CRT HTTP, 256 connections, JSON \
                protocol), replaying `events/replay/sample.ndjson.gz`, against an in-process Kinesis PutRecords \
                endpoint on 127.0.0.1 that acknowledges every record and counts the records it received; every run \
                checks that this count equals what the sender reports as acknowledged. Rate error: \
                |achieved - target| / target over 6 s runs at 2,000 and 10,000 records/s (no ramp). Maximum: the \
                target is doubled from 20,000 records/s (4 s runs, 1 s ramp), then bisected twice between the last \
                sustained and the first missed rate. A rate is sustained when the achieved rate after the ramp is \
                within 2% of the target and every whole second after the ramp within 10% of it (no stall made up by a \
                burst), no record failed, every record sent was acknowledged (sink count = acked = sent) and the p99 \
                from a record's intended send time to its acknowledgement is under 1 s. A step that misses is run once \
                more (another process may share the 2 cores) and counts if the repeat meets every condition. The sink \
                runs in the same JVM and takes part of the CPU (its share is in the details), so the maximum is a floor \
                for a worker with the machine to itself; note that a run request is capped at 50,000 records/s per \
                worker (`LoadGenRequest.MAX_RATE_PER_WORKER`), so the function never asks a worker for more. The \
                baseline is the loop one would write by hand: one PutRecord per record with a blocking SDK v2 client \
                (URL connection HTTP), sequentially, against the same sink, for 5 s after 2.5 s of warm-up. Such a \
                loop is bound by the latency of each call, not by CPU: on loopback most of its ~3 ms a call is spent \
                waiting, because HttpURLConnection in streaming mode sends the headers and the body in two writes \
                without TCP_NODELAY and the body waits for a delayed ACK (against Kinesis it would wait for the \
                network round trip instead). The ratio is the maximum sustained rate over the baseline's rate. \
                Target: >= 20,000 records/s per worker, rate error <= 2%.""";
    }

    /** Whether a run kept up with its target, and if not, every reason why. */
    record Verdict(boolean sustained, List<String> reasons) {}

    /**
     * The definition of "sustained": the achieved rate within {@link #MAX_ERROR} of the target and each whole
     * second after the ramp within {@link #MAX_SECOND_ERROR}, nothing failed, everything sent acknowledged and
     * received by the sink, and p99 latency under {@link #MAX_P99_MILLIS}.
     */
    static Verdict judge(
            double target,
            double achieved,
            long[] perSecondAfterRamp,
            long sent,
            long acked,
            long failed,
            long sinkRecords,
            double p99Millis) {
        List<String> reasons = new ArrayList<>();
        double error = error(target, achieved);
        if (!(error <= MAX_ERROR)) {
            reasons.add(String.format(
                    Locale.ROOT,
                    "achieved %s/s is %.2f%% %s the target",
                    Format.count(achieved),
                    100 * error,
                    achieved < target ? "below" : "above"));
        }
        for (int s = 0; s < perSecondAfterRamp.length; s++) {
            if (!(error(target, perSecondAfterRamp[s]) <= MAX_SECOND_ERROR)) {
                reasons.add(String.format(
                        Locale.ROOT,
                        "second %d after the ramp sent %s (%.0f%% of the target)",
                        s + 1,
                        Format.count(perSecondAfterRamp[s]),
                        100 * perSecondAfterRamp[s] / target));
                break;
            }
        }
        if (perSecondAfterRamp.length == 0) {
            reasons.add("no whole second after the ramp");
        }
        if (failed > 0) {
            reasons.add(Format.count(failed) + " records failed");
        }
        if (acked != sent) {
            reasons.add("acked " + Format.count(acked) + " of " + Format.count(sent) + " sent");
        }
        if (sinkRecords != acked) {
            reasons.add("the sink received " + Format.count(sinkRecords) + " records, the sender reports "
                    + Format.count(acked) + " acked");
        }
        if (!(p99Millis < MAX_P99_MILLIS)) {
            reasons.add(String.format(Locale.ROOT, "p99 latency %,.0f ms >= %,.0f ms", p99Millis, MAX_P99_MILLIS));
        }
        return new Verdict(reasons.isEmpty(), List.copyOf(reasons));
    }

    static double error(double target, double achieved) {
        return Math.abs(achieved - target) / target;
    }

    /** The next rate to try between a sustained and a missed one: their geometric mean, to the thousand. */
    static double between(double sustained, double missed) {
        return Math.round(Math.sqrt(sustained * missed) / 1_000) * 1_000.0;
    }

    /** One run of the sender and what the sink saw of it. */
    record Run(
            double target,
            double rampSeconds,
            long durationSeconds,
            SendReport report,
            long sinkRecords,
            double sinkCpuSeconds,
            double wallSeconds,
            Verdict verdict) {

        /** Per-second sends after the ramp, as a fraction of the target: [min, max]. */
        double[] perSecondRange() {
            double min = Double.MAX_VALUE;
            double max = 0;
            for (int s = (int) Math.ceil(rampSeconds); s < report.sentPerSecond().length; s++) {
                double f = report.sentPerSecond()[s] / target;
                min = Math.min(min, f);
                max = Math.max(max, f);
            }
            return new double[] {min == Double.MAX_VALUE ? 0 : min, max};
        }

        String describe() {
            double[] range = perSecondRange();
            SendReport r = report;
            return String.format(
                    Locale.ROOT,
                    "%s/s for %d s: achieved %s/s (error %.2f%%), per second %.1f%% .. %.1f%% of"
                            + " target; sent %s, acked %s, sink %s, failed %d, retried %d; latency p50 %.1f ms, p99 %.1f ms, max"
                            + " %.1f ms; sink CPU %.0f%% of one core: %s",
                    Format.count(target),
                    durationSeconds,
                    Format.count(r.achievedRate()),
                    100 * error(target, r.achievedRate()),
                    100 * range[0],
                    100 * range[1],
                    Format.count(r.sent()),
                    Format.count(r.acked()),
                    Format.count(sinkRecords),
                    r.failed(),
                    r.retried(),
                    r.latency().percentileMillis(50),
                    r.latency().percentileMillis(99),
                    r.latency().maxMillis(),
                    100 * sinkCpuSeconds / wallSeconds,
                    verdict.sustained() ? "sustained" : "not sustained (" + String.join("; ", verdict.reasons()) + ")");
        }
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        // The sink speaks the JSON protocol only; without this the SDK sends CBOR to Kinesis endpoints.
        System.setProperty("aws.cborEnabled", "false");
        List<ReplayRecord> records = ReplaySource.load(SAMPLE, env.root());
        long errorSeconds = env.scale(6, 2);
        long stepSeconds = env.scale(4, 2);
        double[] ladder = env.quick() ? new double[] {20_000, 40_000} : LADDER;
        StaticCredentialsProvider credentials =
                StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"));

        List<String> details = new ArrayList<>();
        Map<String, Double> values = new LinkedHashMap<>();
        try (KinesisSink sink = KinesisSink.start(2);
                SdkAsyncHttpClient http =
                        AwsCrtAsyncHttpClient.builder().maxConcurrency(256).build();
                KinesisAsyncClient client = KinesisAsyncClient.builder()
                        .region(Region.US_EAST_1)
                        .endpointOverride(sink.endpoint())
                        .credentialsProvider(credentials)
                        .httpClient(http)
                        .build()) {
            // As LoadGenHandler builds it: 50 ms first backoff, 2 s cap, 6 attempts.
            KinesisSender sender = new KinesisSender(client, STREAM, new Backoff(50, 2_000), 6);
            details.add("records: " + Format.count(records.size()) + " from " + SAMPLE + ", "
                    + Format.count(records.stream()
                            .mapToLong(r -> r.data().length)
                            .average()
                            .orElse(0)) + " bytes on average");

            // Warm-up: connections open and the send path compiled before anything is measured.
            run(sender, sink, records, 10_000, 0, env.scale(3, 1));

            Map<Double, Run> errorRuns = new LinkedHashMap<>();
            for (double rate : ERROR_RATES) {
                Run r = run(sender, sink, records, rate, 0, errorSeconds);
                errorRuns.put(rate, r);
                details.add("rate error run " + r.describe());
                values.put("errorAt" + (long) rate, error(rate, r.report().achievedRate()));
                values.put("p99MsAt" + (long) rate, r.report().latency().percentileMillis(99));
            }

            double maxSustained = 0;
            Double firstMissed = null;
            for (double rate : ladder) {
                Run r = step(sender, sink, records, rate, stepSeconds, details, values);
                if (!r.verdict().sustained()) {
                    firstMissed = rate;
                    break;
                }
                maxSustained = rate;
            }
            if (firstMissed != null && maxSustained > 0 && !env.quick()) {
                double low = maxSustained;
                double high = firstMissed;
                for (int i = 0; i < 2; i++) {
                    double mid = between(low, high);
                    if (mid <= low || mid >= high) {
                        break;
                    }
                    if (step(sender, sink, records, mid, stepSeconds, details, values)
                            .verdict()
                            .sustained()) {
                        low = mid;
                    } else {
                        high = mid;
                    }
                }
                maxSustained = low;
            }
            if (maxSustained == 0) {
                // Not even the first step: the error runs' rates are the fallback, judged by the same conditions.
                for (Map.Entry<Double, Run> e : errorRuns.entrySet()) {
                    if (e.getValue().verdict().sustained()) {
                        maxSustained = Math.max(maxSustained, e.getKey());
                    }
                }
            }
            boolean atCeiling = firstMissed == null;
            values.put("maxSustainedRate", maxSustained);

            double baseline =
                    baseline(sink, records, credentials, env.quick() ? 1_000_000_000L : 5_000_000_000L, details);
            values.put("baselineRate", baseline);
            values.put("ratio", maxSustained / baseline);

            double error2k = values.get("errorAt2000");
            double error10k = values.get("errorAt10000");
            boolean errorRunsClean = errorRuns.values().stream()
                    .allMatch(r -> r.report().failed() == 0
                            && r.report().acked() == r.report().sent()
                            && r.sinkRecords() == r.report().acked());
            boolean met =
                    maxSustained >= TARGET_RATE && error2k <= MAX_ERROR && error10k <= MAX_ERROR && errorRunsClean;
            if (!met) {
                double missedAt = maxSustained < TARGET_RATE ? TARGET_RATE : error2k > MAX_ERROR ? 2_000 : 10_000;
                long seconds = stepSeconds;
                List<String> profile = JfrProfile.profile(
                        "the sender at " + Format.count(missedAt) + " records/s",
                        () -> details.add("profiled run "
                                + run(sender, sink, records, missedAt, 1, seconds)
                                        .describe()),
                        null);
                details.addAll(profile);
            }
            String figure = (atCeiling ? "at least " : "") + Format.count(maxSustained)
                    + " records/s sustained by one worker; rate error " + percent(error2k) + " at 2,000/s, "
                    + percent(error10k) + " at 10,000/s";
            return new Result(
                    name(),
                    figure,
                    Format.count(baseline) + " records/s sequential PutRecord",
                    Format.times(maxSustained / baseline),
                    ">= 20,000 records/s, error <= 2%",
                    met,
                    details,
                    values);
        }
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.2f%%", 100 * fraction);
    }

    /** A step of the search: run, and when it misses, run once more and keep the repeat. */
    private static Run step(
            KinesisSender sender,
            KinesisSink sink,
            List<ReplayRecord> records,
            double rate,
            long seconds,
            List<String> details,
            Map<String, Double> values)
            throws InterruptedException {
        Run r = run(sender, sink, records, rate, 1, seconds);
        details.add("step " + r.describe());
        if (!r.verdict().sustained()) {
            r = run(sender, sink, records, rate, 1, seconds);
            details.add("  repeated: " + r.describe());
        }
        values.put("achievedAt" + (long) rate, r.report().achievedRate());
        return r;
    }

    static Run run(
            KinesisSender sender, KinesisSink sink, List<ReplayRecord> records, double rate, double ramp, long seconds)
            throws InterruptedException {
        // Whatever the sender still had in flight from a previous run has been counted by now.
        Thread.sleep(200);
        long sinkBefore = sink.records();
        long cpuBefore = sink.cpuNanos();
        long start = System.nanoTime();
        SendReport report = sender.run(
                records,
                Schedule.rate(rate, ramp),
                rate,
                ramp,
                seconds,
                Long.MAX_VALUE,
                Deadline.inMillis(seconds * 1_000 + 20_000),
                null);
        double wall = (System.nanoTime() - start) / 1e9;
        long sinkRecords = sink.records() - sinkBefore;
        double cpu = (sink.cpuNanos() - cpuBefore) / 1e9;
        long[] afterRamp = java.util.Arrays.copyOfRange(report.sentPerSecond(), (int) Math.ceil(ramp), (int) seconds);
        Verdict v = judge(
                rate,
                report.achievedRate(),
                afterRamp,
                report.sent(),
                report.acked(),
                report.failed(),
                sinkRecords,
                report.latency().percentileMillis(99));
        return new Run(rate, ramp, seconds, report, sinkRecords, cpu, wall, v);
    }

    /** The hand-written loop: one blocking PutRecord per record, one after another; records per second. */
    private static double baseline(
            KinesisSink sink,
            List<ReplayRecord> records,
            StaticCredentialsProvider credentials,
            long nanos,
            List<String> details) {
        try (KinesisClient client = KinesisClient.builder()
                .region(Region.US_EAST_1)
                .endpointOverride(sink.endpoint())
                .credentialsProvider(credentials)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build()) {
            int next = 0;
            long warmEnd = System.nanoTime() + nanos / 2;
            while (System.nanoTime() < warmEnd) {
                put(client, records.get(next++ % records.size()));
            }
            long sinkBefore = sink.records();
            long sent = 0;
            long start = System.nanoTime();
            long elapsed;
            do {
                put(client, records.get(next++ % records.size()));
                sent++;
                elapsed = System.nanoTime() - start;
            } while (elapsed < nanos);
            long received = sink.records() - sinkBefore;
            if (received != sent) {
                throw new IllegalStateException(
                        "baseline: the sink received " + received + " records, " + sent + " were acknowledged");
            }
            double rate = sent / (elapsed / 1e9);
            details.add(String.format(
                    Locale.ROOT,
                    "baseline: %s PutRecord calls in %.1f s, one at a time: %s records/s" + " (sink count %s)",
                    Format.count(sent),
                    elapsed / 1e9,
                    Format.count(rate),
                    Format.count(received)));
            return rate;
        }
    }

    private static void put(KinesisClient client, ReplayRecord r) {
        client.putRecord(
                b -> b.streamName(STREAM).partitionKey(r.partitionKey()).data(SdkBytes.fromByteArrayUnsafe(r.data())));
    }
}
