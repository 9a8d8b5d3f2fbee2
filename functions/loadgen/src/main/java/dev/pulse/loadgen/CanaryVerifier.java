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

import dev.pulse.retry.Deadline;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The end-to-end check of a run: each second the sender writes one canary datapoint to
 * {@code loadgen.canary{run=<runId>}} with value k+1 (k = its second), all under one partition key so they
 * stay in order. Reading the series back through the query API then tells loss (fewer than sent),
 * duplicates (more than sent), a loss hidden by a duplicate (right count, wrong sum), and freshness: the
 * time from a canary's send to the moment the API first counts it.
 */
public final class CanaryVerifier {

    public static final String SERIES_NAME = "loadgen.canary";

    /** Count and sum of a run's canary series over a time range, as the query API reports them. */
    public record Observed(long count, double sum) {}

    /** Reads the canary series (the query API in production; an in-process handler in tests). */
    public interface Reader {
        Observed read(String runId, long startMillis, long endMillis);
    }

    /**
     * The verdict.
     *
     * @param sent           canaries sent
     * @param observed       canaries counted by the API
     * @param lost           sent but never counted
     * @param duplicated     counted more often than sent
     * @param consistent     whether the sum matches too (a loss and a duplicate can hide each other's count)
     * @param freshnessP50Ms median time from send to queryable
     * @param freshnessP99Ms 99th percentile of the same
     * @param freshnessMs    each canary's time from send to queryable, in send order; -1 if never counted
     * @param unconfirmedPuts PutRecords calls that failed after they may have stored a canary: each may add one
     *                       copy at the producer, which is Kinesis' at-least-once delivery, not the pipeline's
     *                       duplicate, so {@code duplicated} counts only copies beyond these
     */
    public record Verdict(
            long sent,
            long observed,
            long lost,
            long duplicated,
            boolean consistent,
            double freshnessP50Ms,
            double freshnessP99Ms,
            long[] freshnessMs,
            long unconfirmedPuts) {

        public boolean ok() {
            return lost == 0 && duplicated == 0 && consistent;
        }
    }

    private CanaryVerifier() {}

    /** The canary record of second {@code k}, sent at {@code sendMillis}. */
    public static ReplayRecord record(String runId, long k, long sendMillis) {
        String json = String.format(
                Locale.ROOT,
                "{\"name\":\"%s\",\"dims\":{\"run\":\"%s\"},\"ts\":%d,\"value\":%d,\"unit\":\"Count\"}",
                SERIES_NAME,
                runId,
                sendMillis,
                k + 1);
        return new ReplayRecord(json.getBytes(StandardCharsets.UTF_8), "loadgen-canary-" + runId, sendMillis);
    }

    /**
     * Polls {@code reader} every {@code pollMillis} until every canary is counted or the deadline passes, then
     * judges. {@code sendTimes} are the canaries' send times in order (canary k has value k+1).
     */
    public static Verdict verify(String runId, List<Long> sendTimes, Reader reader, Deadline deadline, long pollMillis)
            throws InterruptedException {
        return verify(
                runId, sendTimes, Collections.nCopies(sendTimes.size(), 0), List.of(), reader, deadline, pollMillis);
    }

    /**
     * As {@link #verify(String, List, Reader, Deadline, long)}, with per canary the PutRecords calls that failed
     * after they may have stored it ({@code unconfirmedPuts}, aligned with {@code sendTimes}): canary k may then be
     * counted up to {@code 1 + unconfirmedPuts[k]} times without the pipeline having duplicated anything.
     * {@code during} are the reads a {@link CanaryWatch} made while the load ran, in time order: a canary they
     * counted was queryable at that read's time, so its freshness is measured while the pipeline was under load;
     * the canaries they did not count are polled for here.
     */
    public static Verdict verify(
            String runId,
            List<Long> sendTimes,
            List<Integer> unconfirmedPuts,
            List<CanaryWatch.Poll> during,
            Reader reader,
            Deadline deadline,
            long pollMillis)
            throws InterruptedException {
        int n = sendTimes.size();
        if (n == 0) {
            return new Verdict(0, 0, 0, 0, true, 0, 0, new long[0], 0);
        }
        long extraCopies = 0;
        double extraValues = 0;
        double smallestExtra = Double.POSITIVE_INFINITY;
        for (int k = 0; k < n; k++) {
            int u = k < unconfirmedPuts.size() ? unconfirmedPuts.get(k) : 0;
            if (u > 0) {
                extraCopies += u;
                extraValues += (double) u * (k + 1);
                smallestExtra = Math.min(smallestExtra, k + 1);
            }
        }
        long from = sendTimes.get(0) - 60_000;
        long to = sendTimes.get(n - 1) + 60_000;
        long[] visibleAt = new long[n];
        int visible = 0;
        for (CanaryWatch.Poll p : during) {
            // As below: the canaries share one partition key, so a count of c means the first c are queryable.
            for (int k = visible; k < Math.min(n, p.count()); k++) {
                visibleAt[k] = p.atMillis();
            }
            visible = (int) Math.max(visible, Math.min(n, p.count()));
        }
        Observed last = new Observed(0, 0);
        while (true) {
            last = reader.read(runId, from, to);
            long now = System.currentTimeMillis();
            // One partition key keeps the canaries in order, so a count of c means the first c are queryable.
            for (int k = visible; k < Math.min(n, last.count()); k++) {
                visibleAt[k] = now;
            }
            visible = (int) Math.max(visible, Math.min(n, last.count()));
            if (last.count() >= n || deadline.remainingMillis() <= pollMillis) {
                break;
            }
            Thread.sleep(pollMillis);
        }
        List<Long> freshness = new ArrayList<>(visible);
        long[] each = new long[n];
        Arrays.fill(each, -1);
        for (int k = 0; k < visible; k++) {
            // Never negative: a read cannot count a canary before its send, except across two hosts' clocks.
            each[k] = Math.max(0, visibleAt[k] - sendTimes.get(k));
            freshness.add(each[k]);
        }
        Collections.sort(freshness);
        double expectedSum = (double) n * (n + 1) / 2;
        long copies = last.count() - n;
        double copiedValues = last.sum() - expectedSum;
        // Without extra copies the sum is exact; with some, their values must be those of canaries whose put was
        // unconfirmed: at least the smallest such value each, at most all of them.
        boolean consistent = copies <= 0
                ? copiedValues == 0
                : copies <= extraCopies && copiedValues >= copies * smallestExtra && copiedValues <= extraValues;
        return new Verdict(
                n,
                last.count(),
                Math.max(0, n - last.count()),
                Math.max(0, copies - extraCopies),
                consistent,
                percentile(freshness, 50),
                percentile(freshness, 99),
                each,
                extraCopies);
    }

    private static double percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }
}
