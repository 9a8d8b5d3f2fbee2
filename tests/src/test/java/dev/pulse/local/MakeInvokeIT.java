package dev.pulse.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * {@code make invoke}: every file in events/ through its function, the way the Makefile calls it (the CLI with
 * the repository's template), against a local stack of its own; and the usage message for a wrong name.
 */
class MakeInvokeIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Output of one CLI run. */
    record Run(int status, String out, String err) {
        JsonNode response() throws Exception {
            String marker = out.substring(out.indexOf("--- response"));
            return JSON.readTree(marker.substring(marker.indexOf('\n') + 1));
        }
    }

    static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of(args));
        // The repository's template; one shard (fewer JVMs on a small machine) and a work dir of the test's own.
        all.addAll(List.of("--template", LocalStacks.root().resolve("template.yaml").toString(),
                "--work-dir", Path.of("target", "make-invoke").toAbsolutePath().toString(),
                "--param", "StreamMode=PROVISIONED", "--param", "StreamShardCount=1"));
        int status = Main.run(all, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        Run r = new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        System.out.println(r.out());
        System.out.println(r.err());
        return r;
    }

    /** Every event file, with the function its name says it is for. */
    static Stream<Arguments> events() throws Exception {
        return Main.eventFiles(LocalStacks.root()).stream().map(e -> {
            String file = e.substring("events/".length());
            String fn = file.startsWith("ingest-") ? "IngestFunction" : file.startsWith("query-") ? "QueryFunction"
                    : file.startsWith("compact-") ? "CompactFunction" : file.startsWith("loadgen-") ? "LoadGenFunction" : null;
            assertThat(fn).as("no function for %s: name event files after their function", e).isNotNull();
            return Arguments.of(fn, e);
        });
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("events")
    void invoke_whenEventFileGiven_printsResponseAndMetrics(String function, String event) throws Exception {
        Run r = cli("invoke", "--function", function, "--event", event, "--env", "POWERTOOLS_LOG_LEVEL=INFO");

        assertThat(r.status()).as(r.err()).isZero();
        JsonNode response = r.response();
        switch (function) {
            case "IngestFunction" -> assertThat(response.path("batchItemFailures").isArray()
                    && response.path("batchItemFailures").isEmpty()).as(response.toString()).isTrue();
            // The rollup builder's CompactResult, for the EventBridge Scheduled Event its rule sends.
            case "CompactFunction" -> assertThat(response.isObject() && response.has("hoursBuilt")).as(response.toString()).isTrue();
            case "QueryFunction" -> assertThat(response.path("statusCode").asInt()).as(response.toString()).isEqualTo(200);
            default -> {
                assertThat(response.path("sent").asLong()).isPositive();
                assertThat(response.path("acked").asLong()).isEqualTo(response.path("sent").asLong());
                assertThat(response.path("canary").path("lost").asLong(-1)).isZero();
                assertThat(response.path("canary").path("duplicated").asLong(-1)).isZero();
            }
        }
        // The function's own EMF document is printed with its log lines.
        assertThat(r.out()).contains("{\"_aws\":");
        assertThat(r.err()).contains("invoking " + function);
    }

    @Test
    void invoke_whenFunctionUnknown_exitsTwoListingTheFunctions() {
        Run r = cli("invoke", "--function", "NoSuchFunction", "--event", "events/query-post.json");

        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("no function NoSuchFunction in the template")
                .contains("IngestFunction, CompactFunction, QueryFunction, LoadGenFunction").contains("usage:");
    }

    @Test
    void invoke_whenEventFileMissing_exitsTwoListingTheEvents() {
        Run r = cli("invoke", "--function", "QueryFunction", "--event", "events/nope.json");

        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("no event file events/nope.json").contains("events/query-post.json").contains("usage:");
    }

    @Test
    void run_whenOptionUnknown_exitsTwoWithUsage() {
        Run r = cli("run", "--rats", "5");

        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("unknown option: --rats").contains("usage:");
    }
}
