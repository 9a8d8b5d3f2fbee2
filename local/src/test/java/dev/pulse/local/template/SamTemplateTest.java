package dev.pulse.local.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.pulse.local.template.MappingSpec.SourceType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The project's own template.yaml, resolved as the local stack resolves it. */
class SamTemplateTest {

    private static final String DLQ_URL = "http://127.0.0.1:4566/000000000000/pulse-dlq";
    private static final String DLQ_ARN = "arn:aws:sqs:us-east-1:000000000000:pulse-dlq";
    private static final String STREAM_ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/pulse-stream";
    private static final String TABLE_STREAM_ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/pulse/stream/1";
    private static final MapBindings BINDINGS = new MapBindings(
            Map.of("Table", "pulse", "DeadLetterQueue", DLQ_URL, "Stream", "pulse-stream", "Api", "local",
                    "StreamKey", "key-1"),
            Map.of("Stream.Arn", STREAM_ARN, "Table.StreamArn", TABLE_STREAM_ARN, "DeadLetterQueue.Arn", DLQ_ARN));

    private static SamTemplate template;
    private static Path root;

    @BeforeAll
    static void load() throws IOException {
        // Maven runs the tests in local/; walk up so an IDE running them elsewhere finds the template too.
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isRegularFile(dir.resolve("template.yaml"))) {
            dir = dir.getParent();
            assertThat(dir).as("template.yaml above the working directory").isNotNull();
        }
        root = dir;
        template = SamTemplate.load(dir.resolve("template.yaml"));
    }

    private static Stack stack(Map<String, String> overrides) {
        return template.resolve(overrides, BINDINGS);
    }

    @Test
    void functions_whenDefaults_followTemplate() {
        assertThat(stack(Map.of()).functions())
                .extracting(FunctionSpec::logicalId, FunctionSpec::functionName, FunctionSpec::handler,
                        FunctionSpec::memoryMb, FunctionSpec::timeoutSeconds, FunctionSpec::codeUri)
                .containsExactly(
                        tuple("IngestFunction", "pulse-ingest", "dev.pulse.ingest.IngestHandler::handleRequest", 1024, 60,
                                root.resolve("functions/ingest")),
                        tuple("CompactFunction", "pulse-compact", "dev.pulse.compact.CompactHandler::handleRequest", 1024, 60,
                                root.resolve("functions/compact")),
                        tuple("QueryFunction", "pulse-query", "dev.pulse.query.QueryHandler::handleRequest", 1024, 29,
                                root.resolve("functions/query")),
                        tuple("LoadGenFunction", "pulse-loadgen", "dev.pulse.loadgen.LoadGenHandler::handleRequest", 2048, 900,
                                root.resolve("functions/loadgen")));
    }

    @Test
    void functions_whenGlobalsApply_inheritRuntimeArchitectureLayerAndBuildMethod() {
        assertThat(stack(Map.of()).functions()).allSatisfy(function -> {
            assertThat(function.runtime()).isEqualTo("java21");
            assertThat(function.architecture()).isEqualTo("arm64");
            assertThat(function.layerIds()).containsExactly("CommonLayer");
            assertThat(function.buildMethod()).isEqualTo("makefile");
        });
    }

    @Test
    void function_whenIngest_environmentMergesGlobalsAndBindings() {
        assertThat(stack(Map.of()).function("IngestFunction").environment()).containsExactlyEntriesOf(linked(
                "TABLE_NAME", "pulse",
                "DLQ_URL", DLQ_URL,
                "POWERTOOLS_LOG_LEVEL", "INFO",
                "POWERTOOLS_LOGGER_SAMPLE_RATE", "0.01",
                "POWERTOOLS_METRICS_NAMESPACE", "Pulse",
                "JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 -XX:MaxRAMPercentage=75"
                        + " -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true",
                "POWERTOOLS_SERVICE_NAME", "ingest",
                "WRITE_CONCURRENCY", "8",
                "SAFETY_MARGIN_MS", "3000",
                "RETRY_BASE_MS", "50",
                "RETRY_CAP_MS", "5000",
                "PARTIAL_TTL_DAYS", "35",
                "ACCEPT_PAST_SECONDS", "1209600",
                "ACCEPT_FUTURE_SECONDS", "7200"));
    }

    @Test
    void function_whenLoadGen_apiUrlIsSubstituted() {
        assertThat(stack(Map.of()).function("LoadGenFunction").environment())
                .containsEntry("API_URL", "https://local.execute-api.us-east-1.amazonaws.com")
                .containsEntry("STREAM_NAME", "pulse-stream")
                .containsEntry("POWERTOOLS_SERVICE_NAME", "loadgen");
    }

    @Test
    void function_whenUnknown_throwsListingFunctions() {
        assertThatThrownBy(() -> stack(Map.of()).function("Nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Nope").hasMessageContaining("IngestFunction, CompactFunction, QueryFunction, LoadGenFunction");
    }

    @Test
    void mappings_whenDefaults_followTemplate() {
        assertThat(stack(Map.of()).mappings()).containsExactly(
                new MappingSpec("IngestFunction", "Stream", SourceType.KINESIS, STREAM_ARN, "LATEST", 500,
                        Duration.ofSeconds(1), 1, true, 10, Duration.ofSeconds(3600), true, DLQ_ARN, List.of()),
                new MappingSpec("CompactFunction", "TableStream", SourceType.DYNAMODB, TABLE_STREAM_ARN, "TRIM_HORIZON", 500,
                        Duration.ofSeconds(1), 1, true, 10, Duration.ofSeconds(3600), true, DLQ_ARN,
                        List.of("{\"eventName\":[\"INSERT\",\"MODIFY\"],\"dynamodb\":{\"Keys\":{\"pk\":{\"S\":"
                                + "[{\"prefix\":\"P#\"},{\"prefix\":\"H#\"}]}}}}")));
    }

    @Test
    void resolve_whenParameterOverridden_mappingUsesIt() {
        MappingSpec ingest = stack(Map.of("BatchSize", "50", "StartingPosition", "TRIM_HORIZON",
                "MaximumRecordAgeInSeconds", "60", "ParallelizationFactor", "4")).mappings().get(0);

        assertThat(ingest.batchSize()).isEqualTo(50);
        assertThat(ingest.startingPosition()).isEqualTo("TRIM_HORIZON");
        assertThat(ingest.maxRecordAge()).isEqualTo(Duration.ofSeconds(60));
        assertThat(ingest.parallelizationFactor()).isEqualTo(4);
    }

    @Test
    void resolve_whenParameterOverridden_functionUsesIt() {
        FunctionSpec ingest = stack(Map.of("IngestMemorySize", "2048", "LogLevel", "DEBUG")).function("IngestFunction");

        assertThat(ingest.memoryMb()).isEqualTo(2048);
        assertThat(ingest.environment()).containsEntry("POWERTOOLS_LOG_LEVEL", "DEBUG");
    }

    @Test
    void routes_whenQueryApi_listBothRoutes() {
        assertThat(stack(Map.of()).routes()).containsExactly(
                new RouteSpec("QueryFunction", "POST", "/query", "Api"),
                new RouteSpec("QueryFunction", "GET", "/series", "Api"));
    }

    @Test
    void layers_whenCommonLayer_pointToItsDirectory() {
        assertThat(stack(Map.of()).layers())
                .containsExactly(new LayerSpec("CommonLayer", root.resolve("layers/common"), "makefile"));
    }

    @Test
    void resolvedProperties_whenOnDemand_removesShardCount() {
        var stream = stack(Map.of()).resolvedProperties("Stream");

        assertThat(stream.has("ShardCount")).isFalse();
        assertThat(stream.at("/StreamModeDetails/StreamMode").asText()).isEqualTo("ON_DEMAND");
        assertThat(stream.at("/StreamEncryption/KeyId").asText()).isEqualTo("key-1");
        assertThat(stream.get("RetentionPeriodHours").asText()).isEqualTo("24");
    }

    @Test
    void resolvedProperties_whenProvisioned_hasShardCount() {
        var stream = stack(Map.of("StreamMode", "PROVISIONED", "StreamShardCount", "4")).resolvedProperties("Stream");

        assertThat(stream.get("ShardCount").asText()).isEqualTo("4");
        assertThat(stream.at("/StreamModeDetails/StreamMode").asText()).isEqualTo("PROVISIONED");
    }

    @Test
    void resolvedProperties_whenResourceRefersToNoOther_callsNoBindings() {
        var table = template.resolve(Map.of(), MapBindings.none()).resolvedProperties("Table");

        assertThat(table.at("/StreamSpecification/StreamViewType").asText()).isEqualTo("NEW_IMAGE");
        assertThat(table.at("/KeySchema/0/AttributeName").asText()).isEqualTo("pk");
    }

    @Test
    void resolvedProperties_whenReplayBucketGiven_conditionPicksIt() {
        var bindings = new MapBindings(Map.of("Api", "local"), Map.of("LoadGenFunctionLogGroup.Arn", "lg", "Stream.Arn",
                STREAM_ARN, "StreamKey.Arn", "key"));

        var statements = template.resolve(Map.of("ReplayBucket", "recordings"), bindings)
                .resolvedProperties("LoadGenFunctionRole").at("/Policies/0/PolicyDocument/Statement");

        assertThat(statements.findValuesAsText("Resource"))
                .contains("arn:aws:s3:::recordings/*", "arn:aws:execute-api:us-east-1:000000000000:local/*/POST/query");
    }

    @Test
    void resolve_whenOverrideNamesUnknownParameter_throwsNamingIt() {
        assertThatThrownBy(() -> stack(Map.of("BatchSise", "10")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("BatchSise");
    }

    @Test
    void resolve_whenValueNotInAllowedValues_throwsNamingParameter() {
        assertThatThrownBy(() -> stack(Map.of("StreamMode", "FAST")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("StreamMode").hasMessageContaining("FAST");
    }

    @Test
    void resolve_whenValueBelowMinValue_throwsNamingParameter() {
        assertThatThrownBy(() -> stack(Map.of("StreamRetentionHours", "12")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("StreamRetentionHours")
                .hasMessageContaining("MinValue");
    }

    @Test
    void resolve_whenValueAboveMaxValueOrNotANumber_throwsNamingParameter() {
        assertThatThrownBy(() -> stack(Map.of("BatchSize", "10001")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("BatchSize").hasMessageContaining("MaxValue");
        assertThatThrownBy(() -> stack(Map.of("BatchSize", "many")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("BatchSize").hasMessageContaining("number");
    }

    @Test
    void resolve_whenValueBreaksAllowedPattern_throwsWithConstraintDescription() {
        assertThatThrownBy(() -> stack(Map.of("LogSampleRate", "2")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LogSampleRate")
                .hasMessageContaining("a number between 0 and 1");
    }

    @Test
    void parameter_whenOverridden_returnsOverrideElseDefault() {
        Stack stack = stack(Map.of("BatchSize", "42"));

        assertThat(stack.parameter("BatchSize")).isEqualTo("42");
        assertThat(stack.parameter("LogSampleRate")).isEqualTo("0.01");
        assertThat(template.parameterDefaults()).containsEntry("StreamMode", "ON_DEMAND").containsEntry("BatchSize", "500");
    }

    @Test
    void resourceIds_whenFunctionType_listsInTemplateOrder() {
        assertThat(template.resourceIds("AWS::Serverless::Function"))
                .containsExactly("IngestFunction", "CompactFunction", "QueryFunction", "LoadGenFunction");
        assertThat(template.resource("Table").get("Type").asText()).isEqualTo("AWS::DynamoDB::Table");
    }

    @Test
    void resource_whenUnknown_throwsNamingValidIds() {
        assertThatThrownBy(() -> template.resource("Tabel"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Tabel").hasMessageContaining("Table");
    }

    @Test
    void load_whenYamlIsBroken_namesFileAndLine(@TempDir Path dir) throws IOException {
        Path broken = Files.writeString(dir.resolve("template.yaml"), "Resources:\n  A:\n    Type: X\n    Properties: a: b\n");

        assertThatThrownBy(() -> SamTemplate.load(broken))
                .isInstanceOf(IOException.class).hasMessageContaining(broken + ":4:");
    }

    private static Map<String, String> linked(String... keysAndValues) {
        var map = new LinkedHashMap<String, String>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
