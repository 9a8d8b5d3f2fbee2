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
package dev.pulse.local.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The project's own template.yaml, resolved as the local stack resolves it. */
class SamTemplateTest {

    private static final String DLQ_URL = "http://127.0.0.1:4566/000000000000/pulse-dlq";
    private static final String DLQ_ARN = "arn:aws:sqs:us-east-1:000000000000:pulse-dlq";
    private static final String STREAM_ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/pulse-stream";
    private static final MapBindings BINDINGS = new MapBindings(
            Map.of(
                    "Table",
                    "pulse",
                    "DeadLetterQueue",
                    DLQ_URL,
                    "Stream",
                    "pulse-stream",
                    "Api",
                    "local",
                    "StreamKey",
                    "key-1",
                    "AlertTopic",
                    "arn:aws:sns:us-east-1:123456789012:pulse-alerts",
                    "MetricStreamAccessKey",
                    "arn:aws:secretsmanager:us-east-1:123456789012:secret:pulse-key-AbCdEf"),
            Map.of("Stream.Arn", STREAM_ARN, "DeadLetterQueue.Arn", DLQ_ARN));

    private static SamTemplate template;
    private static Path root;

    @BeforeAll
    static void load() throws IOException {
        Path dir = ProjectRoot.find();
        root = dir;
        template = SamTemplate.load(dir.resolve("template.yaml"));
    }

    private static Stack stack(Map<String, String> overrides) {
        return template.resolve(overrides, BINDINGS);
    }

    @Test
    void functions_whenDefaults_followTemplate() {
        assertThat(stack(Map.of()).functions())
                .extracting(
                        FunctionSpec::logicalId,
                        FunctionSpec::functionName,
                        FunctionSpec::handler,
                        FunctionSpec::memoryMb,
                        FunctionSpec::timeoutSeconds,
                        FunctionSpec::codeUri)
                .containsExactly(
                        tuple(
                                "IngestFunction",
                                "pulse-ingest",
                                "dev.pulse.ingest.IngestHandler::handleRequest",
                                1024,
                                60,
                                root.resolve("functions/ingest")),
                        tuple(
                                "CompactFunction",
                                "pulse-compact",
                                "dev.pulse.compact.CompactHandler::handleRequest",
                                1024,
                                60,
                                root.resolve("functions/compact")),
                        tuple(
                                "RulesFunction",
                                "pulse-rules",
                                "dev.pulse.rules.RulesHandler::handleRequest",
                                1024,
                                60,
                                root.resolve("functions/rules")),
                        tuple(
                                "RulesApiFunction",
                                "pulse-rules-api",
                                "dev.pulse.rules.RulesApiHandler::handleRequest",
                                512,
                                29,
                                root.resolve("functions/rules")),
                        tuple(
                                "PushFunction",
                                "pulse-push",
                                "dev.pulse.push.PushHandler::handleRequest",
                                1024,
                                29,
                                root.resolve("functions/push")),
                        tuple(
                                "MetricStreamFunction",
                                "pulse-metric-stream",
                                "dev.pulse.ingest.metricstream.MetricStreamHandler::handleRequest",
                                1024,
                                29,
                                root.resolve("functions/ingest")),
                        tuple(
                                "QueryFunction",
                                "pulse-query",
                                "dev.pulse.query.QueryHandler::handleRequest",
                                1024,
                                29,
                                root.resolve("functions/query")),
                        tuple(
                                "LoadGenFunction",
                                "pulse-loadgen",
                                "dev.pulse.loadgen.LoadGenHandler::handleRequest",
                                2048,
                                900,
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

    /** Their events point at the alias, which runs the published version's snapshot; the load generator is on demand. */
    @Test
    void functions_whenSnapStartOnPublishedVersionsWithAnAlias_runFromTheSnapshot() {
        assertThat(stack(Map.of()).functions())
                .filteredOn(FunctionSpec::snapStart)
                .extracting(FunctionSpec::logicalId)
                .containsExactly(
                        "IngestFunction",
                        "CompactFunction",
                        "RulesFunction",
                        "RulesApiFunction",
                        "PushFunction",
                        "MetricStreamFunction",
                        "QueryFunction");
        assertThat(stack(Map.of()).function("LoadGenFunction").snapStart()).isFalse();
    }

    @Test
    void functions_whenArchitectureOverridden_allRunOnIt() {
        assertThat(stack(Map.of("Architecture", "x86_64")).functions())
                .extracting(FunctionSpec::architecture)
                .containsOnly("x86_64");
    }

    /** The endpoint variables declared for sam local are AWS::NoValue: the local stack, like CloudFormation, drops them. */
    @Test
    void functions_whenEndpointVariablesDeclaredForSamLocal_carryNoneOfThem() {
        assertThat(stack(Map.of()).functions())
                .allSatisfy(function -> assertThat(function.environment().keySet())
                        .noneMatch(name -> name.startsWith("AWS_ENDPOINT_URL")));
    }

    @Test
    void function_whenIngest_environmentMergesGlobalsAndBindings() {
        assertThat(stack(Map.of()).function("IngestFunction").environment())
                .containsExactlyEntriesOf(linked(
                        "TABLE_NAME", "pulse",
                        "DLQ_URL", DLQ_URL,
                        "POWERTOOLS_LOG_LEVEL", "INFO",
                        "POWERTOOLS_LOGGER_SAMPLE_RATE", "0.01",
                        "POWERTOOLS_METRICS_NAMESPACE", "Pulse",
                        "PARTIAL_TTL_DAYS", "17",
                        "HOURLY_TTL_DAYS", "35",
                        "DAILY_TTL_DAYS", "3650",
                        "ACCEPT_PAST_SECONDS", "1209600",
                        "ACCEPT_FUTURE_SECONDS", "7200",
                        "MAX_RECORD_AGE_SECONDS", "-1",
                        "STREAM_RETENTION_HOURS", "24",
                        "INGEST_TIMEOUT_SECONDS", "60",
                        "COMPACT_GRACE_SECONDS", "300",
                        "JAVA_TOOL_OPTIONS",
                                "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 -XX:MaxRAMPercentage=75"
                                        + " -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true",
                        "POWERTOOLS_SERVICE_NAME", "ingest",
                        "WRITE_CONCURRENCY", "8",
                        "SAFETY_MARGIN_MS", "3000",
                        "RETRY_BASE_MS", "50",
                        "RETRY_CAP_MS", "5000"));
    }

    @Test
    void function_whenJvmOptionsChosenPerFunction_eachHasItsOwnWithTheSharedPart() {
        Stack stack = stack(Map.of());
        String shared = "-XX:MaxRAMPercentage=75 -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true";

        // Globals' value for every function (a function may set its own: SAM merges Environment.Variables key by key)
        assertThat(stack.function("QueryFunction").environment())
                .containsEntry("JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 " + shared);
        assertThat(stack.function("IngestFunction").environment())
                .containsEntry("JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 " + shared);
        assertThat(stack.function("CompactFunction").environment())
                .containsEntry("JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 " + shared);
        assertThat(stack.function("LoadGenFunction").environment())
                .containsEntry("JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1 " + shared);
    }

    @Test
    void function_whenRules_publishesToTheStacksTopicUnlessOneIsGiven() {
        assertThat(stack(Map.of()).function("RulesFunction").environment())
                .containsEntry("ALERT_TOPIC_ARN", "arn:aws:sns:us-east-1:123456789012:pulse-alerts")
                .containsEntry("RULES_CATCH_UP_LIMIT", "10")
                .containsEntry("RULES_EXTERNAL_URL", "")
                .containsEntry("ALERTMANAGER_URL", "")
                .containsEntry("ALERTMANAGER_AUTH", "none")
                .containsEntry("ALERTMANAGER_SECRET_ARN", "")
                .containsEntry("POWERTOOLS_SERVICE_NAME", "rules")
                .containsEntry("TABLE_NAME", "pulse");
        assertThat(stack(Map.of("AlertTopicArn", "arn:aws:sns:eu-west-1:123456789012:team-alerts"))
                        .function("RulesFunction")
                        .environment())
                .containsEntry("ALERT_TOPIC_ARN", "arn:aws:sns:eu-west-1:123456789012:team-alerts");
    }

    @Test
    void rulesRole_whenAnAlertmanagerSecretIsGiven_mayReadThatSecretOnly() {
        String secret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:pulse/am-AbCdEf";
        var bindings = new MapBindings(
                Map.of("AlertTopic", "arn:aws:sns:us-east-1:123456789012:pulse-alerts"),
                Map.of(
                        "RulesFunctionLogGroup.Arn", "lg",
                        "Table.Arn", "table",
                        "DeadLetterQueue.Arn", "dlq",
                        "StreamKey.Arn", "key"));
        Map<String, String> overrides = Map.of(
                "AlertmanagerUrl", "https://am.example.com",
                "AlertmanagerAuth", "bearer",
                "AlertmanagerSecretArn", secret);

        var with = template.resolve(overrides, bindings)
                .resolvedProperties("RulesFunctionRole")
                .at("/Policies/0/PolicyDocument/Statement");
        var without = template.resolve(Map.of(), bindings)
                .resolvedProperties("RulesFunctionRole")
                .at("/Policies/0/PolicyDocument/Statement");

        assertThat(with.findValuesAsText("Sid")).contains("ReadAlertmanagerCredentials");
        assertThat(with.toString()).contains("\"Action\":\"secretsmanager:GetSecretValue\",\"Resource\":\"" + secret);
        assertThat(without.findValuesAsText("Sid")).doesNotContain("ReadAlertmanagerCredentials");
        assertThat(without.toString()).doesNotContain("secretsmanager");
        assertThat(stack(overrides).function("RulesFunction").environment())
                .containsEntry("ALERTMANAGER_URL", "https://am.example.com")
                .containsEntry("ALERTMANAGER_AUTH", "bearer")
                .containsEntry("ALERTMANAGER_SECRET_ARN", secret);
        assertThatThrownBy(() -> stack(Map.of("AlertmanagerUrl", "https://user:pw@am.example.com")))
                .hasMessageContaining("AlertmanagerUrl");
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
                .hasMessageContaining("Nope")
                .hasMessageContaining(
                        "IngestFunction, CompactFunction, RulesFunction, RulesApiFunction, PushFunction, MetricStreamFunction, QueryFunction, LoadGenFunction");
    }

    @Test
    void mappings_whenDefaults_followTemplate() {
        // The compactor runs on a schedule: the ingest mapping is the only event source mapping. Retries and
        // record age are unlimited by default (-1): a failing batch waits on its shard instead of being discarded.
        assertThat(stack(Map.of()).mappings())
                .containsExactly(new MappingSpec(
                        "IngestFunction",
                        "Stream",
                        STREAM_ARN,
                        "LATEST",
                        500,
                        Duration.ofSeconds(1),
                        1,
                        true,
                        -1,
                        null,
                        true,
                        DLQ_ARN));
    }

    /** A template with one function whose events are {@code events} (YAML, indented as under Events:). */
    private static Stack inlineStack(Path dir, String events) throws IOException {
        Path file = Files.writeString(dir.resolve("template.yaml"), """
                Parameters:
                  Filtered: {Type: String, Default: 'false'}
                Conditions:
                  IsFiltered: !Equals [!Ref Filtered, 'true']
                Resources:
                  Stream: {Type: AWS::Kinesis::Stream}
                  Table: {Type: AWS::DynamoDB::Table}
                  Queue: {Type: AWS::SQS::Queue}
                  Fn:
                    Type: AWS::Serverless::Function
                    Properties:
                      CodeUri: fn
                      Handler: h
                      Events:
                """ + events.indent(8));
        return SamTemplate.load(file)
                .resolve(
                        Map.of(),
                        new MapBindings(
                                Map.of(),
                                Map.of(
                                        "Stream.Arn",
                                        STREAM_ARN,
                                        "Table.StreamArn",
                                        "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1",
                                        "Queue.Arn",
                                        DLQ_ARN)));
    }

    @Test
    void mappings_whenKinesisEventSetsEverySetting_resolveThem(@TempDir Path dir) throws IOException {
        Stack stack = inlineStack(dir, """
                In:
                  Type: Kinesis
                  Properties:
                    Stream: !GetAtt Stream.Arn
                    StartingPosition: TRIM_HORIZON
                    BatchSize: 250
                    MaximumBatchingWindowInSeconds: 2
                    ParallelizationFactor: 3
                    BisectBatchOnFunctionError: true
                    MaximumRetryAttempts: 10
                    MaximumRecordAgeInSeconds: 3600
                    FunctionResponseTypes: [ReportBatchItemFailures]
                    DestinationConfig: {OnFailure: {Type: SQS, Destination: !GetAtt Queue.Arn}}
                    FilterCriteria: !If [IsFiltered, {Filters: [{Pattern: '{"data": {"k": ["v"]}}'}]}, !Ref AWS::NoValue]
                """);

        assertThat(stack.mappings())
                .containsExactly(new MappingSpec(
                        "Fn",
                        "In",
                        STREAM_ARN,
                        "TRIM_HORIZON",
                        250,
                        Duration.ofSeconds(2),
                        3,
                        true,
                        10,
                        Duration.ofSeconds(3600),
                        true,
                        DLQ_ARN));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "FilterCriteria: {Filters: [{Pattern: '{\"data\": {\"k\": [\"v\"]}}'}]}",
                "FilterCriteria: {Filters: [{Pattern: {data: {k: [v]}}}]}",
                "FilterCriteria: {Filters: []}",
                "Enabled: false, FilterCriteria: {Filters: [{Pattern: '{}'}]}"
            })
    void mappings_whenKinesisEventHasFilterCriteria_throwNamingTheEventAndEventRuler(String setting, @TempDir Path dir)
            throws IOException {
        Stack stack = inlineStack(dir, """
                In:
                  Type: Kinesis
                  Properties: {Stream: !GetAtt Stream.Arn, StartingPosition: LATEST, %s}
                """.formatted(setting));

        assertThatThrownBy(stack::mappings)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Fn.Events.In has FilterCriteria, which the local stack does not apply")
                .hasMessageContaining("event-ruler");
    }

    @Test
    void mappings_whenDynamoDbStreamEvent_throwNamingTheEvent(@TempDir Path dir) throws IOException {
        Stack stack = inlineStack(dir, """
                In: {Type: Kinesis, Properties: {Stream: !GetAtt Stream.Arn, StartingPosition: LATEST}}
                TableStream: {Type: DynamoDB, Properties: {Stream: !GetAtt Table.StreamArn, StartingPosition: LATEST}}
                """);

        assertThatThrownBy(stack::mappings)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "Fn.Events.TableStream is a DynamoDB stream event, which the local stack does not run");
    }

    @Test
    void schedules_whenDefaults_buildEveryFiveMinutesWithoutAsyncRetries() {
        // EventInvokeConfig.MaximumRetryAttempts 0: a failed run is not retried, the next run takes what it left.
        assertThat(stack(Map.of()).schedules())
                .containsExactly(
                        new ScheduleSpec(
                                "CompactFunction",
                                "Build",
                                "rate(5 minutes)",
                                Duration.ofMinutes(5),
                                "pulse-CompactFunctionBuild-LOCAL",
                                null,
                                0),
                        new ScheduleSpec(
                                "RulesFunction",
                                "Evaluate",
                                "rate(1 minute)",
                                Duration.ofMinutes(1),
                                "pulse-RulesFunctionEvaluate-LOCAL",
                                null,
                                0));
        assertThat(stack(Map.of()).schedules().get(0).ruleArn("us-east-1", "000000000000"))
                .isEqualTo("arn:aws:events:us-east-1:000000000000:rule/pulse-CompactFunctionBuild-LOCAL");
    }

    @Test
    void schedules_whenBuildScheduleOverridden_periodFollowsRate() {
        Map<String, Duration> periods = new LinkedHashMap<>();
        for (String rate : List.of(
                "rate(1 minute)",
                "rate(15 minutes)",
                "rate(1 hour)",
                "rate(2 hours)",
                "rate(1 day)",
                "rate(7 days)",
                " rate( 10  minutes ) ")) {
            periods.put(
                    rate,
                    stack(Map.of("CompactSchedule", rate)).schedules().get(0).period());
        }

        assertThat(periods)
                .containsExactly(
                        Map.entry("rate(1 minute)", Duration.ofMinutes(1)),
                        Map.entry("rate(15 minutes)", Duration.ofMinutes(15)),
                        Map.entry("rate(1 hour)", Duration.ofHours(1)),
                        Map.entry("rate(2 hours)", Duration.ofHours(2)),
                        Map.entry("rate(1 day)", Duration.ofDays(1)),
                        Map.entry("rate(7 days)", Duration.ofDays(7)),
                        Map.entry(" rate( 10  minutes ) ", Duration.ofMinutes(10)));
    }

    @Test
    void schedules_whenCron_throwSayingOnlyRateRunsLocally() {
        assertThatThrownBy(() ->
                        stack(Map.of("CompactSchedule", "cron(0/5 * * * ? *)")).schedules())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CompactFunction.Events.Build.Schedule")
                .hasMessageContaining("cron(0/5 * * * ? *)")
                .hasMessageContaining("runs rate(...) schedules only");
    }

    @Test
    void schedules_whenRateMalformed_throwNamingTheEventAndTheRule() {
        Map<String, String> problems = new LinkedHashMap<>();
        problems.put("rate(5 minute)", "plural above 1");
        problems.put("rate(1 minutes)", "singular for 1");
        problems.put("rate(0 minutes)", "positive integer");
        problems.put("rate(-1 minutes)", "not a schedule expression");
        problems.put("rate(1.5 hours)", "not a schedule expression");
        problems.put("rate(2 weeks)", "unknown unit 'weeks'");
        problems.put("rate(99999999999999999999 days)", "too large");
        problems.put("every 5 minutes", "not a schedule expression");
        problems.forEach((rate, why) -> assertThatThrownBy(
                        () -> stack(Map.of("CompactSchedule", rate)).schedules())
                .as(rate)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CompactFunction.Events.Build.Schedule")
                .hasMessageContaining(why));
    }

    @Test
    void schedules_whenEventSetsNameInputStateAndFunctionItsRetries_followThem(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("template.yaml"), """
                Parameters:
                  Every: {Type: String, Default: rate(1 hour)}
                Globals:
                  Function:
                    EventInvokeConfig: {MaximumRetryAttempts: 0}
                Resources:
                  Fn:
                    Type: AWS::Serverless::Function
                    Properties:
                      CodeUri: fn
                      Handler: h
                      Events:
                        Named:
                          Type: Schedule
                          Properties: {Schedule: !Ref Every, Name: !Sub '${AWS::StackName}-hourly', Input: '{"mode": "full"}'}
                        Off: {Type: Schedule, Properties: {Schedule: 'cron(0 12 * * ? *)', Enabled: false}}
                        Disabled: {Type: Schedule, Properties: {Schedule: rate(1 day), State: DISABLED}}
                        On: {Type: Schedule, Properties: {Schedule: rate(1 day), State: ENABLED}}
                  Other:
                    Type: AWS::Serverless::Function
                    Properties:
                      CodeUri: other
                      Handler: h
                      EventInvokeConfig: {MaximumRetryAttempts: 1}
                      Events:
                        Tick: {Type: Schedule, Properties: {Schedule: rate(10 minutes)}}
                """);

        assertThat(SamTemplate.load(file).resolve(Map.of(), MapBindings.none()).schedules())
                .containsExactly(
                        new ScheduleSpec(
                                "Fn",
                                "Named",
                                "rate(1 hour)",
                                Duration.ofHours(1),
                                "pulse-hourly",
                                "{\"mode\": \"full\"}",
                                0),
                        new ScheduleSpec("Fn", "On", "rate(1 day)", Duration.ofDays(1), "pulse-FnOn-LOCAL", null, 0),
                        new ScheduleSpec(
                                "Other",
                                "Tick",
                                "rate(10 minutes)",
                                Duration.ofMinutes(10),
                                "pulse-OtherTick-LOCAL",
                                null,
                                1));
    }

    @Test
    void schedules_whenInputIsNotJson_throwNamingIt(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("template.yaml"), """
                Resources:
                  Fn:
                    Type: AWS::Serverless::Function
                    Properties:
                      CodeUri: fn
                      Handler: h
                      Events:
                        Tick: {Type: Schedule, Properties: {Schedule: rate(1 hour), Input: '{"a": 1} trailing'}}
                """);

        assertThatThrownBy(() -> SamTemplate.load(file)
                        .resolve(Map.of(), MapBindings.none())
                        .schedules())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Fn.Events.Tick.Input");
    }

    @Test
    void resolve_whenParameterOverridden_mappingUsesIt() {
        MappingSpec ingest = stack(Map.of(
                        "BatchSize",
                        "50",
                        "StartingPosition",
                        "TRIM_HORIZON",
                        "MaximumRecordAgeInSeconds",
                        "60",
                        "MaximumRetryAttempts",
                        "3"))
                .mappings()
                .get(0);

        assertThat(ingest.batchSize()).isEqualTo(50);
        assertThat(ingest.startingPosition()).isEqualTo("TRIM_HORIZON");
        assertThat(ingest.maxRecordAge()).isEqualTo(Duration.ofSeconds(60));
        assertThat(ingest.maxRetryAttempts()).isEqualTo(3);
        assertThat(ingest.parallelizationFactor()).isEqualTo(1);
    }

    @Test
    void resolve_whenRetryAndAgeLimitsAreMinusOne_mappingHasNoLimit() {
        Stack stack = stack(Map.of("MaximumRecordAgeInSeconds", "-1", "MaximumRetryAttempts", "-1"));
        MappingSpec ingest = stack.mappings().get(0);

        assertThat(ingest.maxRetryAttempts()).isEqualTo(-1);
        assertThat(ingest.maxRecordAge()).isNull();
        assertThat(stack.function("IngestFunction").environment()).containsEntry("MAX_RECORD_AGE_SECONDS", "-1");
    }

    @Test
    void resolve_whenRetryOrAgeLimitBelowMinusOne_throwsNamingParameter() {
        assertThatThrownBy(() -> stack(Map.of("MaximumRetryAttempts", "-2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MaximumRetryAttempts")
                .hasMessageContaining("MinValue -1");
        assertThatThrownBy(() -> stack(Map.of("MaximumRecordAgeInSeconds", "-2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MaximumRecordAgeInSeconds")
                .hasMessageContaining("MinValue -1");
    }

    @Test
    void resolve_whenParallelizationFactorAboveOne_throwsNamingAllowedValues() {
        // One committed position per shard: lanes would interleave it, so the template allows only 1.
        assertThatThrownBy(() -> stack(Map.of("ParallelizationFactor", "4")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("parameter ParallelizationFactor: '4' is not one of [1]");
        assertThat(stack(Map.of("ParallelizationFactor", "1")).mappings().get(0).parallelizationFactor())
                .isEqualTo(1);
    }

    @Test
    void resolve_whenParameterOverridden_functionUsesIt() {
        FunctionSpec ingest =
                stack(Map.of("IngestMemorySize", "2048", "LogLevel", "DEBUG")).function("IngestFunction");

        assertThat(ingest.memoryMb()).isEqualTo(2048);
        assertThat(ingest.environment()).containsEntry("POWERTOOLS_LOG_LEVEL", "DEBUG");
    }

    @Test
    void routes_whenQueryApi_listNativeAndPrometheusRoutes() {
        String p = "/prometheus/api/v1/";
        assertThat(stack(Map.of()).routes())
                .containsExactly(
                        new RouteSpec("RulesApiFunction", "GET", p + "rules", "Api"),
                        new RouteSpec("RulesApiFunction", "GET", p + "alerts", "Api"),
                        new RouteSpec("PushFunction", "POST", "/otlp/v1/metrics", "Api"),
                        new RouteSpec("PushFunction", "POST", p + "write", "Api"),
                        new RouteSpec("MetricStreamFunction", "POST", "/firehose/metric-stream", "Api"),
                        new RouteSpec("QueryFunction", "POST", "/query", "Api"),
                        new RouteSpec("QueryFunction", "GET", "/series", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "query_range", "Api"),
                        new RouteSpec("QueryFunction", "POST", p + "query_range", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "query", "Api"),
                        new RouteSpec("QueryFunction", "POST", p + "query", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "series", "Api"),
                        new RouteSpec("QueryFunction", "POST", p + "series", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "labels", "Api"),
                        new RouteSpec("QueryFunction", "POST", p + "labels", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "label/{name}/values", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "status/buildinfo", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "metadata", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "query_exemplars", "Api"),
                        new RouteSpec("QueryFunction", "POST", p + "query_exemplars", "Api"),
                        new RouteSpec("QueryFunction", "GET", p + "format_query", "Api"),
                        new RouteSpec("QueryFunction", "POST", p + "format_query", "Api"));
    }

    @Test
    void layers_whenCommonLayer_pointToItsDirectory() {
        assertThat(stack(Map.of()).layers())
                .containsExactly(new LayerSpec("CommonLayer", root.resolve("layers/common"), "makefile"));
    }

    @Test
    void function_whenStreamRetentionOverridden_ingestKnowsIt() {
        assertThat(stack(Map.of("StreamRetentionHours", "168", "PartialTtlDays", "23"))
                        .function("IngestFunction")
                        .environment())
                .containsEntry("STREAM_RETENTION_HOURS", "168")
                .containsEntry("PARTIAL_TTL_DAYS", "23");
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
        var stream = stack(Map.of("StreamMode", "PROVISIONED", "StreamShardCount", "4"))
                .resolvedProperties("Stream");

        assertThat(stream.get("ShardCount").asText()).isEqualTo("4");
        assertThat(stream.at("/StreamModeDetails/StreamMode").asText()).isEqualTo("PROVISIONED");
    }

    @Test
    void resolvedProperties_whenResourceRefersToNoOther_callsNoBindings() {
        var table = template.resolve(Map.of(), MapBindings.none()).resolvedProperties("Table");

        assertThat(table.has("StreamSpecification")).isFalse();
        assertThat(table.at("/KeySchema/0/AttributeName").asText()).isEqualTo("pk");
        assertThat(table.at("/GlobalSecondaryIndexes/0/IndexName").asText()).isEqualTo("due");
        assertThat(table.at("/GlobalSecondaryIndexes/0/KeySchema/0/AttributeName")
                        .asText())
                .isEqualTo("dq");
    }

    @Test
    void resolvedProperties_whenReplayBucketGiven_conditionPicksIt() {
        var bindings = new MapBindings(
                Map.of("Api", "local"),
                Map.of("LoadGenFunctionLogGroup.Arn", "lg", "Stream.Arn", STREAM_ARN, "StreamKey.Arn", "key"));

        var statements = template.resolve(Map.of("ReplayBucket", "recordings"), bindings)
                .resolvedProperties("LoadGenFunctionRole")
                .at("/Policies/0/PolicyDocument/Statement");

        assertThat(statements.findValuesAsText("Resource"))
                .contains("arn:aws:s3:::recordings/*", "arn:aws:execute-api:us-east-1:000000000000:local/*/POST/query");
    }

    @Test
    void resolve_whenOverrideNamesUnknownParameter_throwsNamingIt() {
        assertThatThrownBy(() -> stack(Map.of("BatchSise", "10")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BatchSise");
    }

    @Test
    void resolve_whenValueNotInAllowedValues_throwsNamingParameter() {
        assertThatThrownBy(() -> stack(Map.of("StreamMode", "FAST")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("StreamMode")
                .hasMessageContaining("FAST");
    }

    @Test
    void resolve_whenValueBelowMinValue_throwsNamingParameter() {
        assertThatThrownBy(() -> stack(Map.of("StreamRetentionHours", "12")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("StreamRetentionHours")
                .hasMessageContaining("MinValue");
    }

    @Test
    void resolve_whenValueAboveMaxValueOrNotANumber_throwsNamingParameter() {
        assertThatThrownBy(() -> stack(Map.of("BatchSize", "10001")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BatchSize")
                .hasMessageContaining("MaxValue");
        assertThatThrownBy(() -> stack(Map.of("BatchSize", "many")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BatchSize")
                .hasMessageContaining("number");
    }

    @Test
    void resolve_whenValueBreaksAllowedPattern_throwsWithConstraintDescription() {
        assertThatThrownBy(() -> stack(Map.of("LogSampleRate", "2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LogSampleRate")
                .hasMessageContaining("a number between 0 and 1");
    }

    @Test
    void parameter_whenOverridden_returnsOverrideElseDefault() {
        Stack stack = stack(Map.of("BatchSize", "42"));

        assertThat(stack.parameter("BatchSize")).isEqualTo("42");
        assertThat(stack.parameter("LogSampleRate")).isEqualTo("0.01");
        assertThat(template.parameterDefaults())
                .containsEntry("StreamMode", "ON_DEMAND")
                .containsEntry("BatchSize", "500");
    }

    @Test
    void resourceIds_whenFunctionType_listsInTemplateOrder() {
        assertThat(template.resourceIds("AWS::Serverless::Function"))
                .containsExactly(
                        "IngestFunction",
                        "CompactFunction",
                        "RulesFunction",
                        "RulesApiFunction",
                        "PushFunction",
                        "MetricStreamFunction",
                        "QueryFunction",
                        "LoadGenFunction");
        assertThat(template.resource("Table").get("Type").asText()).isEqualTo("AWS::DynamoDB::Table");
    }

    @Test
    void resource_whenUnknown_throwsNamingValidIds() {
        assertThatThrownBy(() -> template.resource("Tabel"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Tabel")
                .hasMessageContaining("Table");
    }

    @Test
    void load_whenYamlIsBroken_namesFileAndLine(@TempDir Path dir) throws IOException {
        Path broken = Files.writeString(
                dir.resolve("template.yaml"), "Resources:\n  A:\n    Type: X\n    Properties: a: b\n");

        assertThatThrownBy(() -> SamTemplate.load(broken))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(broken + ":4:");
    }

    private static Map<String, String> linked(String... keysAndValues) {
        var map = new LinkedHashMap<String, String>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
