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
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.pulse.local.esm.InvokeResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * API robustness: schemathesis (PyPI, pinned in requirements-dev.txt) generates requests from api/openapi.yaml
 * (the native routes and the Prometheus API's) and sends them to the local stack's HTTP API (the QueryFunction in its own JVM behind the payload-2.0
 * gateway), with a fixed seed and a bounded number of examples. Every response must be a non-5xx that the
 * spec documents, with the documented content type and a body its schema accepts; requests the spec rules out
 * must be rejected with a 4xx; without credentials the gateway must refuse.
 */
class ApiFuzzIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Fixed, so a failure replays: the same seed gives the same requests. */
    static final long SEED = 20261121;
    /**
     * Test cases per operation and phase: 21 operations (the native two, the Prometheus API's seventeen, rules and
     * alerts included, and the two push endpoints). make test keeps it at 50 (about 900 requests); {@code -Dpulse.apiFuzz.maxExamples=200} (about 3,000) for a deeper run.
     */
    static final int MAX_EXAMPLES = Integer.getInteger("pulse.apiFuzz.maxExamples", 50);
    /** Per request: API Gateway's own integration timeout (the function answers within its 10 s budget). */
    static final int REQUEST_TIMEOUT_SECONDS = 30;
    /** A run that takes longer is stopped and fails (it takes under a minute on 2 cores). */
    static final long RUN_LIMIT_SECONDS = 240;
    /** Ingested data becomes queryable within this (compaction runs from the table's stream). */
    static final long WARM_UP_LIMIT_SECONDS = 90;
    /** Locally only the prefix is checked (there is no IAM); the credential is made up. */
    static final String AUTHORIZATION =
            "Authorization: AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/execute-api/"
                    + "aws4_request, SignedHeaders=host, Signature=00";

    /**
     * The checks that apply to this API. Left out, on purpose:
     * <ul>
     * <li>positive_data_acceptance: a schema-valid request can still break a rule JSON Schema cannot state (end
     * after start, range / period within the bucket limit, exactly one of name and prefix, a nextToken from a
     * previous response), and gets a correct 400;</li>
     * <li>missing_required_header: the only required header is the SigV4 {@code Authorization}, for which
     * schemathesis insists on 401 (not configurable); API Gateway's AWS_IAM answers 403, as the spec documents.
     * ignored_auth covers the same ground (no or invalid credentials must not get a 2xx);</li>
     * <li>unsupported_method, allow_header_conformance: a method without a route gets API Gateway's own 404
     * {@code {"message":"Not Found"}} before any function runs, not a 405 with {@code Allow};</li>
     * <li>use_after_free, ensure_resource_availability, object_level_authorization: the API creates and deletes
     * nothing, has no links for stateful runs, and has one kind of principal.</li>
     * </ul>
     */
    static final List<String> CHECKS = List.of(
            "not_a_server_error",
            "status_code_conformance",
            "content_type_conformance",
            "response_headers_conformance",
            "response_schema_conformance",
            "negative_data_rejection",
            "ignored_auth");

    /** Failure codes (see {@code schemathesis explain}) of a 5xx. */
    static final List<String> SERVER_ERROR_CODES = List.of("ST101", "ST102");
    /** Failure codes of a response that does not match the spec: status, content type, headers, body. */
    static final List<String> SCHEMA_VIOLATION_CODES =
            List.of("ST103", "ST104", "ST105", "ST106", "ST107", "ST108", "ST109", "ST110", "ST111");

    @Test
    void schemathesis_againstLocalApi_noServerErrorAndEveryResponseConformsToTheSpec() throws Exception {
        Path root = LocalDeployments.root();
        Path cli = Path.of(System.getProperty("pulse.moto.bin")).getParent().resolve("schemathesis");
        assertThat(cli)
                .as(
                        "schemathesis is not installed next to moto_server: `make test` installs requirements-dev.txt into .venv")
                .isExecutable();
        StackOptions options = LocalDeployments.options("api-fuzz-it");
        Path dir = options.workDir().resolve("schemathesis");
        deleteTree(dir);
        Files.createDirectories(dir);
        Path jsonReport = dir.resolve("report.json");
        Path harReport = dir.resolve("requests.har.json");
        Path console = dir.resolve("console.txt");

        int exit;
        long served;
        List<ListeningSockets.Socket> clientSockets = new ArrayList<>();
        List<String> command;
        try (LocalDeployment stack = LocalDeployment.start(options, null)) {
            // Data first, so queries return real series: the fixture's datapoints lie in the hour the spec's own
            // request example asks for (the ingest window is relative to the records' arrival time).
            InvokeResult ingest = stack.lambda()
                    .invoke("IngestFunction", Files.readAllBytes(root.resolve("events/ingest-kinesis-native.json")));
            assertThat(ingest.failed())
                    .as(new String(ingest.payload(), StandardCharsets.UTF_8))
                    .isFalse();
            assertThat(JSON.readTree(ingest.payload()).path("batchItemFailures"))
                    .isEmpty();
            warmUp(stack, root);
            stack.httpApi().latencies(); // from here on, the count is schemathesis's requests only

            command = List.of(
                    cli.toString(),
                    "run",
                    root.resolve("api/openapi.yaml").toString(),
                    "--url",
                    stack.apiUrl().toString(),
                    "--header",
                    AUTHORIZATION,
                    "--checks",
                    String.join(",", CHECKS),
                    "--phases",
                    "examples,coverage,fuzzing",
                    "--seed",
                    Long.toString(SEED),
                    "--max-examples",
                    Integer.toString(MAX_EXAMPLES),
                    "--workers",
                    "1",
                    "--request-timeout",
                    Integer.toString(REQUEST_TIMEOUT_SECONDS),
                    // Nothing kept between runs (the seed alone decides the requests), nothing written outside dir.
                    "--generation-database",
                    "none",
                    "--report",
                    "json,har",
                    "--report-json-path",
                    jsonReport.toString(),
                    "--report-har-path",
                    harReport.toString(),
                    // Real nextToken values in reproductions; the only credential is the made-up one above.
                    "--output-sanitize",
                    "false",
                    "--no-color");
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(console.toFile());
            pb.environment().put("NO_COLOR", "1");
            // The push endpoints' protobuf bodies are sent as raw bytes (schemathesis has no protobuf serializer).
            pb.environment()
                    .put(
                            "SCHEMATHESIS_HOOKS",
                            root.resolve("tests/src/test/python/schemathesis_hooks.py")
                                    .toString());
            Process p = pb.start();
            try {
                // schemathesis is a client: it must not listen anywhere, not even on 127.0.0.1.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUN_LIMIT_SECONDS);
                while (!p.waitFor(250, TimeUnit.MILLISECONDS)) {
                    List<Long> pids = new ArrayList<>();
                    pids.add(p.pid());
                    p.descendants().forEach(d -> pids.add(d.pid()));
                    clientSockets.addAll(ListeningSockets.of(pids));
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError(
                                "schemathesis did not finish within " + RUN_LIMIT_SECONDS + " s:\n" + tail(console));
                    }
                }
                exit = p.exitValue();
            } finally {
                // Stopped by its own PID (and its children's), whatever went wrong above.
                if (p.isAlive()) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            served = stack.httpApi().latencies().getTotalCount();
        }

        String output = tail(console);
        System.out.println(Files.readString(console, StandardCharsets.UTF_8));
        assertThat(clientSockets).as("schemathesis listened on a port").isEmpty();
        assertThat(jsonReport).as("no JSON report; output:\n%s", output).exists();
        assertThat(harReport).as("no HAR report; output:\n%s", output).exists();
        JsonNode report = JSON.readTree(jsonReport.toFile());
        JsonNode har = JSON.readTree(harReport.toFile()).path("log").path("entries");

        // Figures: every request schemathesis sent is one HAR entry with the response it got.
        long requests = har.size();
        Map<Integer, Integer> statuses = new TreeMap<>();
        har.forEach(e -> statuses.merge(e.path("response").path("status").asInt(), 1, Integer::sum));
        long serverErrors = statuses.entrySet().stream()
                        .filter(e -> e.getKey() >= 500)
                        .mapToLong(Map.Entry::getValue)
                        .sum()
                + failures(report, SERVER_ERROR_CODES);
        long schemaViolations = failures(report, SCHEMA_VIOLATION_CODES);

        String context = "schemathesis exit " + exit + ", command " + command + "\n" + output;
        assertThat(report.path("errors"))
                .as("errors (network, schema loading)\n%s", context)
                .isEmpty();
        assertThat(report.path("failures")).as("failures\n%s", context).isEmpty();
        assertThat(exit).as(context).isZero();
        assertThat(report.path("complete").asBoolean()).as(context).isTrue();
        assertThat(report.path("seed").asLong()).isEqualTo(SEED);
        // POST /query, GET /series, and the Prometheus API: query, query_range, series, labels, query_exemplars and
        // format_query by GET and POST; label values, buildinfo and metadata by GET; rules and alerts; the two push
        // endpoints (POST /otlp/v1/metrics, POST /prometheus/api/v1/write).
        assertThat(report.path("operations").path("tested").asInt()).as(context).isEqualTo(21);
        for (String phase : List.of("examples", "coverage", "fuzzing")) {
            assertThat(report.path("phases").path(phase).path("status").asText())
                    .as("phase %s\n%s", phase, context)
                    .isEqualTo("success");
        }
        assertThat(serverErrors).isZero();
        assertThat(schemaViolations).isZero();
        // The run did reach the function both ways: answers with data, and 400s naming the field.
        assertThat(requests).isGreaterThanOrEqualTo(2L * MAX_EXAMPLES);
        assertThat(statuses).containsKeys(200, 400);
        // The gateway saw them all (and the auth probes, which are not in the HAR).
        assertThat(served).isGreaterThanOrEqualTo(requests);

        System.out.printf(
                "schemathesis %s, seed %d, at most %d examples per operation, %d test cases, statuses %s, %d requests"
                        + " served by the local API, checks %s, no listening socket%n",
                report.path("schemathesis_version").asText(),
                SEED,
                MAX_EXAMPLES,
                report.path("test_cases").path("generated").asLong(),
                statuses,
                served,
                String.join(",", CHECKS));
        System.out.printf(
                "schemathesis: %d requests, %d server errors, %d schema violations%n",
                requests, serverErrors, schemaViolations);
    }

    /**
     * The spec's own request example, signed, until it answers with the fixture's values (the compact function
     * turns the ingested partials into the minutes queries read, from the table's stream, a few seconds later).
     * The query function's cold start happens here too, rather than inside schemathesis's request timeout.
     */
    private static void warmUp(LocalDeployment stack, Path root) throws Exception {
        JsonNode example = new YAMLMapper()
                .readTree(root.resolve("api/openapi.yaml").toFile())
                .at("/paths/~1query/post/requestBody/content/application~1json/example");
        assertThat(example.isObject()).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WARM_UP_LIMIT_SECONDS);
        // The read timeout as long as the whole warm-up: the cold start is waited for here, on a busy machine too.
        try (SignedApi api = new SignedApi(stack.apiUrl(), java.time.Duration.ofSeconds(WARM_UP_LIMIT_SECONDS))) {
            while (true) {
                SignedApi.Response r = api.post("/query", JSON.writeValueAsString(example));
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                JsonNode series = JSON.readTree(r.body()).path("series");
                assertThat(series).as(r.body()).hasSize(1);
                for (JsonNode v : series.get(0).path("values").path("avg")) {
                    if (v.isNumber()) {
                        return;
                    }
                }
                assertThat(System.nanoTime())
                        .as(
                                "the ingested fixture did not show up in the example's hour within %d s: %s",
                                WARM_UP_LIMIT_SECONDS, r.body())
                        .isLessThan(deadline);
                Thread.sleep(500);
            }
        }
    }

    /** How many failures of the given codes the JSON report lists. */
    private static long failures(JsonNode report, List<String> codes) {
        long n = 0;
        for (JsonNode f : report.path("failures")) {
            if (codes.contains(f.path("code").asText())) {
                n += Math.max(1, f.path("count").asLong());
            }
        }
        return n;
    }

    private static String tail(Path file) throws IOException {
        if (!Files.exists(file)) {
            return "(no output)";
        }
        String s = Files.readString(file, StandardCharsets.UTF_8);
        return s.length() <= 20_000 ? s : "...\n" + s.substring(s.length() - 20_000);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
