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
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * freshness: how soon a datapoint is queryable while the pipeline is under load. {@code make run} as a user runs it
 * (the whole stack on 127.0.0.1, the template's defaults, 500 records/s for 60 s), in its own JVM; the figure is the
 * load generator's canary freshness, read every second while the load runs. There is no baseline to run beside
 * it: the target is absolute.
 */
final class FreshnessBench implements Benchmark {

    static final double RATE = 500;
    static final long TARGET_P99_MILLIS = 5_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "freshness";
    }

    @Override
    public String howToRead() {
        return """
                `make run` at the template's defaults (the local stack on 127.0.0.1: DynamoDB Local, kinesalite, moto, \
                the functions in their own JVMs through the local Lambda API and event source mapping), 500 records/s \
                of the bundled recording for 60 s after a 10 s ramp, in a JVM of its own. The load generator writes \
                one canary datapoint a second and reads the canary series through the signed query API every second \
                while the load runs; a canary's freshness is from its send to the first read that counted it (a \
                one-second resolution). The figure is the p99 over the run's canaries, with p50 and max; the run must \
                also show zero lost and zero duplicated. No baseline: the target (p99 <= 5 s) is absolute.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        Path root = env.root();
        Path work = root.resolve("bench/target/freshness");
        Files.createDirectories(work);
        Path report = work.resolve("report.json");
        Files.deleteIfExists(report);
        Path classPathFile = root.resolve("local/target/classpath.txt");
        if (!Files.isRegularFile(classPathFile)) {
            throw new IllegalStateException(
                    "no " + classPathFile + ": package the local module first (make bench does)");
        }
        String classPath = root.resolve("local/target/classes")
                + java.io.File.pathSeparator
                + Files.readString(classPathFile, StandardCharsets.UTF_8).trim();
        long seconds = env.scale(60, 15);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-UsePerfData",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                classPath,
                "dev.pulse.local.Main",
                "run",
                "--ephemeral-ports",
                // Freshness is measured while the load runs; the alert's resolve a minute later adds nothing to it.
                "--no-alert-check",
                "--rate",
                String.valueOf((long) RATE),
                "--duration",
                String.valueOf(seconds),
                "--template",
                root.resolve("template.yaml").toString(),
                "--work-dir",
                work.toString(),
                "--report",
                report.toString()));
        Path log = work.resolve("run.log");
        Process p = new ProcessBuilder(command)
                .directory(root.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("make run did not finish in 10 minutes; its output: " + log);
            }
        } finally {
            if (p.isAlive()) {
                p.destroy(); // its own PID: the local stack stops its emulators on the way out
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
        if (!Files.isRegularFile(report)) {
            throw new IllegalStateException(
                    "make run exited " + p.exitValue() + " without a report; its output: " + log);
        }
        JsonNode canary = JSON.readTree(report.toFile()).path("load").path("canary");
        if (!canary.path("verified").asBoolean(false)) {
            throw new IllegalStateException("the canary was not checked: " + canary);
        }
        double p50 = canary.path("freshnessP50Ms").asDouble();
        double p99 = canary.path("freshnessP99Ms").asDouble();
        long max = 0;
        for (JsonNode f : canary.path("freshnessPerCanaryMs")) {
            max = Math.max(max, f.asLong());
        }
        long lost = canary.path("lost").asLong(-1);
        long duplicated = canary.path("duplicated").asLong(-1);
        boolean exact =
                lost == 0 && duplicated == 0 && canary.path("consistent").asBoolean(false);
        Map<String, Double> values = new LinkedHashMap<>();
        values.put("freshnessP50Ms", p50);
        values.put("freshnessP99Ms", p99);
        values.put("freshnessMaxMs", (double) max);
        values.put("canaries", canary.path("sent").asDouble());
        values.put("countedDuringLoad", canary.path("countedDuringLoad").asDouble());
        values.put("lost", (double) lost);
        values.put("duplicated", (double) duplicated);
        return new Result(
                name(),
                String.format(
                        Locale.ROOT,
                        "canary freshness p99 %.1f s (p50 %.1f s, max %.1f s) at %.0f records/s, %d canaries,"
                                + " %d lost, %d duplicated",
                        p99 / 1e3,
                        p50 / 1e3,
                        max / 1e3,
                        RATE,
                        canary.path("sent").asLong(),
                        lost,
                        duplicated),
                "none, an absolute target",
                "n/a",
                "p99 <= " + TARGET_P99_MILLIS / 1000 + " s with zero lost and duplicated",
                p99 <= TARGET_P99_MILLIS && exact,
                List.of(String.format(
                        Locale.ROOT,
                        "%d of %d canaries counted by a read while the load ran; the run's output: %s",
                        canary.path("countedDuringLoad").asLong(),
                        canary.path("sent").asLong(),
                        root.relativize(log))),
                values);
    }
}
