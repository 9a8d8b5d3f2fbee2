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
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code make invoke}: every file in events/ through its function, the way the Makefile calls it (the CLI with
 * the repository's template), one local stack per function invoked with all of its event files in turn; and the
 * usage message for a wrong name.
 */
class MakeInvokeIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SEQUENCE_NUMBER = Pattern.compile("\"sequenceNumber\"\\s*:\\s*\"(\\d+)\"");

    /** Output of one CLI run. */
    record Run(int status, String out, String err) {
        /** The response printed after {@code --- response to <event> ---}, up to the next one. */
        JsonNode response(String event) throws Exception {
            int start = out.indexOf("--- response to " + event + " ---");
            assertThat(start).as("no response to %s in%n%s", event, out).isNotNegative();
            String block = out.substring(out.indexOf('\n', start) + 1);
            int next = block.indexOf("--- response to ");
            return JSON.readTree(next < 0 ? block : block.substring(0, next));
        }
    }

    static Run cli(String... args) {
        return cliIn("make-invoke", args);
    }

    /**
     * As {@link #cli}, with the work dir target/{@code workDir}: a class calling the CLI from another test JVM
     * (failsafe runs two) needs one of its own.
     */
    static Run cliIn(String workDir, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of(args));
        // The repository's template; one shard (fewer JVMs on a small machine) and a work dir of the test's own.
        all.addAll(List.of(
                "--template",
                LocalDeployments.root().resolve("template.yaml").toString(),
                "--work-dir",
                Path.of("target", workDir).toAbsolutePath().toString(),
                "--param",
                "StreamMode=PROVISIONED",
                "--param",
                "StreamShardCount=1"));
        int status = Main.run(
                all,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        Run r = new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        System.out.println(r.out());
        System.out.println(r.err());
        return r;
    }

    /** Every function with the event files whose name says they are for it. */
    static Stream<Arguments> events() throws Exception {
        Map<String, List<String>> byFunction = new TreeMap<>();
        for (String e : Main.eventFiles(LocalDeployments.root())) {
            String file = e.substring("events/".length());
            String fn = file.startsWith("ingest-")
                    ? "IngestFunction"
                    : file.startsWith("query-")
                            ? "QueryFunction"
                            : file.startsWith("compact-")
                                    ? "CompactFunction"
                                    : file.startsWith("loadgen-")
                                            ? "LoadGenFunction"
                                            : file.startsWith("metricstream-")
                                                    ? "MetricStreamFunction"
                                                    : file.startsWith("push-") ? "PushFunction" : null;
            assertThat(fn)
                    .as("no function for %s: name event files after their function", e)
                    .isNotNull();
            byFunction.computeIfAbsent(fn, k -> new ArrayList<>()).add(e);
        }
        assertThat(byFunction)
                .containsOnlyKeys(
                        "IngestFunction",
                        "CompactFunction",
                        "QueryFunction",
                        "LoadGenFunction",
                        "MetricStreamFunction",
                        "PushFunction");
        // The ingest events share a shard: in sequence order, so that none is a redelivery below what the one
        // before it committed (which the function would skip as already stored).
        byFunction.get("IngestFunction").sort(Comparator.comparing(MakeInvokeIT::firstSequenceNumber));
        return byFunction.entrySet().stream().map(f -> Arguments.of(f.getKey(), f.getValue()));
    }

    private static BigInteger firstSequenceNumber(String event) {
        try {
            Matcher m = SEQUENCE_NUMBER.matcher(
                    Files.readString(LocalDeployments.root().resolve(event)));
            assertThat(m.find()).as("no sequenceNumber in %s", event).isTrue();
            return new BigInteger(m.group(1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("events")
    void invoke_whenEventFilesGiven_printsEachResponseAndMetrics(String function, List<String> events)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("invoke", "--function", function));
        events.forEach(e -> args.addAll(List.of("--event", e)));
        args.addAll(List.of("--env", "POWERTOOLS_LOG_LEVEL=INFO"));
        Run r = cli(args.toArray(String[]::new));

        assertThat(r.status()).as(r.err()).isZero();
        for (String event : events) {
            JsonNode response = r.response(event);
            switch (function) {
                case "IngestFunction" ->
                    assertThat(response.path("batchItemFailures").isArray()
                                    && response.path("batchItemFailures").isEmpty())
                            .as("%s: %s", event, response)
                            .isTrue();
                // The compactor's CompactResult, for the EventBridge Scheduled Event its rule sends.
                case "CompactFunction" ->
                    assertThat(response.isObject() && response.has("hoursBuilt"))
                            .as(response.toString())
                            .isTrue();
                case "QueryFunction" ->
                    assertThat(response.path("statusCode").asInt())
                            .as("%s: %s", event, response)
                            .isEqualTo(200);
                // Firehose's answer: 200 with the request id it sent, after the delivery is stored.
                case "MetricStreamFunction" -> {
                    assertThat(response.path("statusCode").asInt())
                            .as("%s: %s", event, response)
                            .isEqualTo(200);
                    assertThat(response.path("body").asText()).contains("\"requestId\"");
                }
                // OTLP/HTTP's answer, in the request's encoding (JSON): an ExportMetricsServiceResponse. The event's
                // points are dated 2026-11-21: after ACCEPT_PAST_SECONDS they are answered as rejected, still 200.
                case "PushFunction" -> {
                    assertThat(response.path("statusCode").asInt())
                            .as("%s: %s", event, response)
                            .isEqualTo(200);
                    assertThat(JSON.readTree(response.path("body").asText()).isObject())
                            .as(response.toString())
                            .isTrue();
                }
                default -> {
                    assertThat(response.path("sent").asLong()).as(event).isPositive();
                    assertThat(response.path("acked").asLong())
                            .as(event)
                            .isEqualTo(response.path("sent").asLong());
                    assertThat(response.path("canary").path("lost").asLong(-1))
                            .as(event)
                            .isZero();
                    assertThat(response.path("canary").path("duplicated").asLong(-1))
                            .as(event)
                            .isZero();
                }
            }
            assertThat(r.err()).contains("invoking " + function + " (").contains(") with " + event);
        }
        // The function's own EMF document is printed with its log lines, one per invocation.
        assertThat(r.out().split("\\{\"_aws\":", -1).length - 1).isGreaterThanOrEqualTo(events.size());
    }

    @Test
    void invoke_whenFunctionUnknown_exitsTwoListingTheFunctions() {
        Run r = cli("invoke", "--function", "NoSuchFunction", "--event", "events/query-post.json");

        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err())
                .contains("no function NoSuchFunction in the template")
                .contains(
                        "IngestFunction, CompactFunction, RulesFunction, RulesApiFunction, PushFunction, MetricStreamFunction, QueryFunction,"
                                + " LoadGenFunction")
                .contains("usage:");
    }

    @Test
    void invoke_whenEventFileMissing_exitsTwoListingTheEvents() {
        Run r = cli("invoke", "--function", "QueryFunction", "--event", "events/nope.json");

        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err())
                .contains("no event file events/nope.json")
                .contains("events/query-post.json")
                .contains("usage:");
    }

    @Test
    void invoke_whenNoEventGiven_exitsTwoListingTheEvents() {
        Run r = cli("invoke", "--function", "QueryFunction");

        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err())
                .contains("EVENT is required")
                .contains("events/query-post.json")
                .contains("usage:");
    }

    @Test
    void run_whenOptionUnknown_exitsTwoWithUsage() {
        Run r = cli("run", "--rats", "5");

        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("unknown option: --rats").contains("usage:");
    }
}
