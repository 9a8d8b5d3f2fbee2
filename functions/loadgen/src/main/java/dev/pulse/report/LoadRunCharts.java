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
package dev.pulse.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The load generator's part of a run report, from the JSON report it answers: the summary rows and the charts
 * of the offered load (target vs achieved rate, put latency percentiles per second, canary freshness). The load
 * generator's own HTML report is this alone; {@code make run} adds the pipeline's charts.
 */
public final class LoadRunCharts {

    private LoadRunCharts() {}

    /** A report titled {@code title} with the load summary and charts of {@code load} (a load generator answer). */
    public static HtmlReport create(String title, JsonNode load) {
        HtmlReport r = HtmlReport.create(title);
        r.summary("run", load.path("runId").asText());
        r.summary(
                "load",
                String.format(
                        Locale.ROOT,
                        "sent %,d  acked %,d  failed %,d  throttled %,d  retried %,d",
                        load.path("sent").asLong(),
                        load.path("acked").asLong(),
                        load.path("failed").asLong(),
                        load.path("throttled").asLong(),
                        load.path("retried").asLong()));
        r.summary(
                "rate",
                String.format(
                        Locale.ROOT,
                        "achieved %.1f/s (target %.1f/s, after the ramp)",
                        load.path("achievedRate").asDouble(),
                        load.path("targetRate").asDouble()));
        JsonNode lat = load.path("latencyMs");
        r.summary(
                "put latency",
                String.format(
                        Locale.ROOT,
                        "p50 %.1f ms  p90 %.1f ms  p99 %.1f ms  max %.1f ms",
                        lat.path("p50").asDouble(),
                        lat.path("p90").asDouble(),
                        lat.path("p99").asDouble(),
                        lat.path("max").asDouble()));
        JsonNode c = load.path("canary");
        if (c.path("verified").asBoolean(false)) {
            r.summary(
                    "canary",
                    String.format(
                            Locale.ROOT,
                            "sent %d  observed %d  lost %d  duplicated %d  consistent %s  freshness p50 %.0f ms p99 %.0f ms",
                            c.path("sent").asLong(),
                            c.path("observed").asLong(),
                            c.path("lost").asLong(),
                            c.path("duplicated").asLong(),
                            c.path("consistent").asBoolean(),
                            c.path("freshnessP50Ms").asDouble(),
                            c.path("freshnessP99Ms").asDouble()));
        } else if (c.has("sent")) {
            r.summary(
                    "canary",
                    "sent " + c.path("sent").asLong() + ", not verified: "
                            + c.path("reason").asText());
        }
        r.chart(new HtmlReport.Chart(
                "rate",
                "Target vs achieved rate",
                "records/s",
                "Target: records the schedule asked for in each second (ramp included); achieved: records handed to "
                        + "PutRecords in each second.",
                List.of(
                        HtmlReport.Series.perSecond("target", longs(load.path("targetPerSecond"))),
                        HtmlReport.Series.perSecond("achieved", longs(load.path("sentPerSecond"))))));
        JsonNode per = load.path("latencyPerSecondMs");
        List<HtmlReport.Series> latency = new ArrayList<>();
        for (String p : List.of("p50", "p90", "p99", "max")) {
            latency.add(HtmlReport.Series.perSecond(p, gaps(per.path(p), per.path("count"))));
        }
        r.chart(new HtmlReport.Chart(
                "put-latency",
                "PutRecords latency by second",
                "ms",
                "From each record's intended send time to its acknowledgement, grouped by the intended second"
                        + (load.path("workers").isArray()
                                ? "; with several workers, the highest worker's value."
                                : "."),
                latency));
        JsonNode fresh = c.path("freshnessPerCanaryMs");
        double[] y = new double[fresh.size()];
        for (int k = 0; k < y.length; k++) {
            long v = fresh.get(k).asLong(-1);
            y[k] = v < 0 ? Double.NaN : v;
        }
        r.chart(new HtmlReport.Chart(
                "canary-freshness",
                "Canary freshness",
                "ms",
                "Time from sending the canary of each second to the first read of the canary series that counted it. The "
                        + "load generator reads the series once a second while the load runs and after it, so this is "
                        + "the freshness a dashboard sees under the load, to within a second.",
                List.of(HtmlReport.Series.perSecond("freshness", y))));
        return r;
    }

    private static long[] longs(JsonNode array) {
        long[] v = new long[array.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = array.get(i).asLong();
        }
        return v;
    }

    /** Values of the seconds that had samples; a second without any is a gap, not a zero latency. */
    private static double[] gaps(JsonNode values, JsonNode counts) {
        double[] v = new double[values.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = counts.path(i).asLong(0) > 0 ? values.get(i).asDouble() : Double.NaN;
        }
        return v;
    }
}
