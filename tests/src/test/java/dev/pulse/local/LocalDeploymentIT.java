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

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code make run}'s path, shorter: the local stack from template.yaml, the load generator (two workers, so the
 * fan-out goes through the local Lambda API) replaying the bundled sample, the compactor on its (compressed)
 * schedule, the canary read back through the HTTP API. Zero lost, zero duplicated, every record consumed once, and nothing listening beyond 127.0.0.1.
 */
class LocalDeploymentIT {

    @Test
    void run_whenSampleReplayed_canaryShowsNoLossNoDuplicatesAndEverySocketIsLoopback() throws Exception {
        // The compactor's schedule compressed from the template's rate to every 5 s, as make run compresses it.
        StackOptions options = LocalDeployments.options("local-deployment-it").withScheduleEvery(Duration.ofSeconds(5));
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(new TeeStream(console, System.out), true, StandardCharsets.UTF_8);
        List<Long> pids;
        JsonNode report;
        try (LocalDeployment stack = LocalDeployment.start(options, null)) {
            PipelineRun.Config config = new PipelineRun.Config(
                    "events/replay/sample.ndjson.gz",
                    "rate",
                    300,
                    60,
                    3,
                    15,
                    2,
                    "LoadGenFunction",
                    options.workDir().resolve("report.json"));
            report = new PipelineRun(stack, config, out).run();

            pids = new ArrayList<>(stack.pids());
            List<Long> owners = new ArrayList<>(pids);
            owners.add(ProcessHandle.current().pid());
            List<ListeningSockets.Socket> sockets = ListeningSockets.of(owners);
            // DynamoDB Local, kinesalite, moto, the Lambda API, the HTTP API and one Runtime API per environment.
            assertThat(sockets.size()).isGreaterThanOrEqualTo(6);
            assertThat(sockets)
                    .allSatisfy(s -> assertThat(s.loopback())
                            .as("pid %d listens on %s:%d", s.pid(), s.address(), s.port())
                            .isTrue());
            assertThat(pids)
                    .allMatch(pid ->
                            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));

            MappingRunner ingest = stack.mappings().stream()
                    .filter(m -> m.spec().functionId().equals("IngestFunction"))
                    .findFirst()
                    .orElseThrow();
            JsonNode load = report.path("load");
            assertThat(load.path("sent").asLong()).isGreaterThan(3_000);
            assertThat(load.path("acked").asLong()).isEqualTo(load.path("sent").asLong());
            assertThat(load.path("workers").size()).isEqualTo(2);
            // Every record on the stream (the load and the canaries) consumed exactly once, none failed.
            assertThat(ingest.recordsDone())
                    .isEqualTo(ingest.recordsRead())
                    .isGreaterThanOrEqualTo(load.path("sent").asLong());
            assertThat(ingest.functionErrors()).isZero();
            JsonNode ingestMetrics =
                    report.path("functions").path("IngestFunction").path("metrics");
            assertThat(ingestMetrics.path("RecordsIn").asLong()).isEqualTo(ingest.recordsRead());
            assertThat(ingestMetrics.path("DatapointsIn").asLong())
                    .isGreaterThan(load.path("sent").asLong());
            assertThat(report.path("functions")
                            .path("CompactFunction")
                            .path("invocations")
                            .asLong())
                    .isPositive();
            // Invoked by its schedule only, with the Scheduled Event; every run answered with a CompactResult.
            JsonNode build = report.path("schedules").path("CompactFunction.Build");
            assertThat(build.path("runs").asLong()).isPositive();
            assertThat(build.path("errors").asLong()).as(build.toString()).isZero();
            assertThat(build.path("lastResponse").has("hoursBuilt"))
                    .as(build.toString())
                    .isTrue();
            // The rules evaluator starts with the bundled rule files and runs on its schedule without failing.
            JsonNode evaluate = report.path("schedules").path("RulesFunction.Evaluate");
            assertThat(evaluate.path("runs").asLong()).as(evaluate.toString()).isPositive();
            assertThat(evaluate.path("errors").asLong()).as(evaluate.toString()).isZero();
            assertThat(evaluate.path("lastResponse").has("groups"))
                    .as(evaluate.toString())
                    .isTrue();
            assertThat(report.path("mappings").has("CompactFunction.TableStream"))
                    .isFalse();
            assertThat(report.path("queryLatencyMs").path("requests").asLong()).isPositive();
        }
        JsonNode canary = report.path("load").path("canary");
        assertThat(canary.path("verified").asBoolean()).isTrue();
        assertThat(canary.path("sent").asLong()).isGreaterThanOrEqualTo(10);
        // Each canary once, plus at most one copy per PutRecords call that failed after storing it (the producer's).
        assertThat(canary.path("observed").asLong())
                .isPositive()
                .isBetween(
                        canary.path("sent").asLong(),
                        canary.path("sent").asLong()
                                + canary.path("unconfirmedPuts").asLong());
        assertThat(canary.path("ok").asBoolean()).as(canary.toString()).isTrue();
        assertThat(canary.path("lost").asLong()).isZero();
        assertThat(canary.path("duplicated").asLong()).isZero();
        assertThat(report.path("passed").asBoolean()).isTrue();
        assertThat(console.toString(StandardCharsets.UTF_8))
                .contains("result    PASS: zero lost, zero duplicated")
                .contains("schedule  CompactFunction.Build ");
        // Stopped by PID: nothing the stack started is left running.
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("pid %d", pid)
                    .isFalse();
        }
        assertThat(Path.of(options.workDir().toString(), "logs", "IngestFunction.log"))
                .exists();
        assertHtmlReportDrawsEveryChart(options.workDir().resolve("report.html"));
    }

    /** The run's HTML report in headless Chromium: every chart drawn, each with data, and nothing fetched. */
    private static void assertHtmlReportDrawsEveryChart(Path html) throws Exception {
        org.jsoup.nodes.Document dom = dev.pulse.testing.Chromium.dumpDom(html);
        List<String> charts = List.of(
                "rate",
                "put-latency",
                "canary-freshness",
                "ingested",
                "ingest-lag",
                "dlq-depth",
                "canary-queryable",
                "query-latency");
        assertThat(dom.select("figure.chart").eachAttr("data-chart")).containsExactlyElementsOf(charts);
        assertThat(dom.body().attr("data-rendered")).isEqualTo(String.valueOf(charts.size()));
        for (String chart : charts) {
            var paths = dom.select("figure[data-chart=" + chart + "] path.series");
            assertThat(paths).as(chart).isNotEmpty();
            assertThat(paths)
                    .as(chart)
                    .allSatisfy(p ->
                            assertThat(Integer.parseInt(p.attr("data-points"))).isPositive());
        }
        // A 15 s run: a point per second for target and achieved, and latency for most seconds.
        assertThat(dom.select("figure[data-chart=rate] path.series").eachAttr("data-series"))
                .containsExactly("target", "achieved");
        assertThat(dom.select("figure[data-chart=rate] path.series").eachAttr("data-points"))
                .containsOnly("15");
        assertThat(Integer.parseInt(dom.select("figure[data-chart=put-latency] path[data-series=p99]")
                        .attr("data-points")))
                .isGreaterThanOrEqualTo(10);
        assertThat(dom.select("[src], [href], link, iframe, img")).isEmpty();
    }

    /** Copies the run's console to stdout as well, so a failing run shows its progress lines. */
    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.OutputStream b;

        TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
