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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The account-level log subscription of template.yaml (parameter SubscribeAccountLogs): off by default, and when on,
 * it can never subscribe one of Pulse's own log groups, and its filter pattern sends the lines Pulse decodes.
 */
class LogSubscriptionTemplateTest {

    private static final String ACCOUNT_POLICY = "AWS::Logs::AccountPolicy";
    private static final String LOG_GROUP = "AWS::Logs::LogGroup";
    private static final String STREAM_ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/pulse-stream";
    private static final String ROLE_ARN = "arn:aws:iam::000000000000:role/pulse-LogSubscriptionRole-LOCAL";
    private static final Map<String, String> ON = Map.of("SubscribeAccountLogs", "true");
    private static final Pattern SELECTION = Pattern.compile("LogGroupName NOT IN (\\[.*])", Pattern.DOTALL);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SamTemplate template;

    @BeforeAll
    static void load() throws IOException {
        Path dir = ProjectRoot.find();
        template = SamTemplate.load(dir.resolve("template.yaml"));
    }

    @Test
    void subscription_whenDefaults_createsNoSubscriptionResources() {
        Stack stack = template.resolve(Map.of(), MapBindings.none());

        assertThat(stack.parameter("SubscribeAccountLogs")).isEqualTo("false");
        assertThat(template.resourceIds(ACCOUNT_POLICY)).containsExactly("LogSubscriptionPolicy");
        assertThat(stack.resourceIds(ACCOUNT_POLICY)).isEmpty();
        assertThat(stack.resourceIds("AWS::IAM::Role")).doesNotContain("LogSubscriptionRole");
        assertThat(stack.resourceIds("AWS::Logs::SubscriptionFilter")).isEmpty();
    }

    @Test
    void selectionCriteria_whenOn_excludeEveryLogGroupOfTheStack() throws IOException {
        // What Ref returns for each log group of the stack: its name (here with the local stack's pseudo parameters).
        Stack unbound = template.resolve(ON, MapBindings.none());
        Map<String, String> logGroupNames = new LinkedHashMap<>();
        for (String id : unbound.resourceIds(LOG_GROUP)) {
            logGroupNames.put(
                    id, unbound.resolvedProperties(id).get("LogGroupName").textValue());
        }
        Stack stack = template.resolve(ON, bindings(logGroupNames));
        // Every function's log group: the one its LoggingConfig names, else Lambda's default /aws/lambda/<name>.
        List<String> functionLogGroups = new ArrayList<>();
        for (FunctionSpec function : stack.functions()) {
            JsonNode configured = stack.resolvedProperties(function.logicalId())
                    .path("LoggingConfig")
                    .get("LogGroup");
            functionLogGroups.add(
                    configured != null ? configured.textValue() : "/aws/lambda/" + function.functionName());
        }

        assertThat(stack.resourceIds(ACCOUNT_POLICY)).containsExactly("LogSubscriptionPolicy");
        JsonNode policy = stack.resolvedProperties("LogSubscriptionPolicy");
        assertThat(policy.get("PolicyType").textValue()).isEqualTo("SUBSCRIPTION_FILTER_POLICY");
        assertThat(policy.get("Scope").textValue()).isEqualTo("ALL");
        String criteria = policy.get("SelectionCriteria").textValue();
        Matcher selection = SELECTION.matcher(criteria);
        assertThat(selection.matches())
                .as("the only selection criteria CloudWatch Logs takes: %s", criteria)
                .isTrue();
        assertThat(criteria.getBytes(StandardCharsets.UTF_8).length)
                .as("selectionCriteria limit, UTF-8 bytes")
                .isLessThanOrEqualTo(25 * 1024);
        List<String> excluded = new ArrayList<>();
        JSON.readTree(selection.group(1)).forEach(name -> excluded.add(name.textValue()));

        assertThat(logGroupNames.values())
                .containsExactly(
                        "/aws/lambda/pulse-ingest",
                        "/aws/lambda/pulse-compact",
                        "/aws/lambda/pulse-rules",
                        "/aws/lambda/pulse-rules-api",
                        "/aws/lambda/pulse-push",
                        "/aws/lambda/pulse-metric-stream",
                        "/aws/http-api/pulse/access",
                        "/aws/lambda/pulse-query",
                        "/aws/lambda/pulse-loadgen");
        assertThat(functionLogGroups).hasSize(stack.functions().size()).isNotEmpty();
        assertThat(excluded).containsAll(functionLogGroups).containsExactlyInAnyOrderElementsOf(logGroupNames.values());
    }

    @Test
    void policyDocument_whenOn_sendsToTheStreamWithTheRole() throws IOException {
        JsonNode document = policyDocument();

        assertThat(document.get("DestinationArn").textValue()).isEqualTo(STREAM_ARN);
        assertThat(document.get("RoleArn").textValue()).isEqualTo(ROLE_ARN);
        assertThat(document.get("Distribution").textValue()).isEqualTo("Random");
    }

    @Test
    void role_whenOn_onlyCloudWatchLogsOfThisAccountAndRegionMayAssumeIt() {
        Stack stack = template.resolve(
                ON,
                new MapBindings(
                        Map.of(),
                        Map.of(
                                "Stream.Arn",
                                STREAM_ARN,
                                "StreamKey.Arn",
                                "arn:aws:kms:us-east-1:000000000000:key/key-1")));
        JsonNode role = stack.resolvedProperties("LogSubscriptionRole");
        JsonNode trust = role.at("/AssumeRolePolicyDocument/Statement/0");

        assertThat(trust.at("/Principal/Service").textValue()).isEqualTo("logs.amazonaws.com");
        assertThat(trust.at("/Condition/StringLike/aws:SourceArn").textValue())
                .isEqualTo("arn:aws:logs:us-east-1:000000000000:*");
        JsonNode statements = role.at("/Policies/0/PolicyDocument/Statement");
        assertThat(statements.get(0).get("Action").get(0).textValue()).isEqualTo("kinesis:PutRecord");
        assertThat(statements.get(0).get("Resource").textValue()).isEqualTo(STREAM_ARN);
        assertThat(statements.get(1).get("Action").get(0).textValue()).isEqualTo("kms:GenerateDataKey");
    }

    /**
     * No maintained library evaluates CloudWatch Logs filter patterns offline, so this checks the pattern against the
     * documented semantics of the one form it uses: {@code ?"phrase" ?"phrase" ...} matches an event that contains
     * any of the phrases, exactly and case-sensitively. A pattern of another form fails here rather than being
     * evaluated wrongly. The lines are what CloudWatchLogsDecoder turns into datapoints (text REPORT, EMF, JSON
     * platform.report) and ordinary lines it skips.
     */
    @Test
    void filterPattern_whenOn_matchesReportLinesAndEmfAndNotOrdinaryLines() throws IOException {
        List<String> phrases =
                anyOfPhrases(policyDocument().get("FilterPattern").textValue());

        assertThat(phrases).containsExactly("REPORT RequestId:", "_aws", "platform.report");
        assertThat(List.of(
                        "REPORT RequestId: 6f1c2b0e-1d7a-4c7e-9c1e-2a7f0c3d9b11\tDuration: 12.34 ms\tBilled Duration: 13 ms\t"
                                + "Memory Size: 1024 MB\tMax Memory Used: 150 MB\tInit Duration: 450.12 ms\t",
                        "REPORT RequestId: 6f1c2b0e-1d7a-4c7e-9c1e-2a7f0c3d9b11\tDuration: 2.01 ms\tBilled Duration: 3 ms\t"
                                + "Memory Size: 1024 MB\tMax Memory Used: 151 MB\t",
                        "{\"_aws\":{\"Timestamp\":1795262230000,\"CloudWatchMetrics\":[{\"Namespace\":\"Checkout\","
                                + "\"Dimensions\":[[\"service\"]],\"Metrics\":[{\"Name\":\"Latency\",\"Unit\":\"Milliseconds\"}]}]},"
                                + "\"service\":\"checkout\",\"Latency\":12.5}",
                        "{\"time\":\"2026-11-21T12:00:00.000Z\",\"type\":\"platform.report\",\"record\":{\"requestId\":\"6f1c\","
                                + "\"metrics\":{\"durationMs\":12.3,\"billedDurationMs\":13,\"memorySizeMB\":1024,"
                                + "\"maxMemoryUsedMB\":150}}}"))
                .allSatisfy(line -> assertThat(matches(phrases, line)).as(line).isTrue());
        assertThat(List.of(
                        "START RequestId: 6f1c2b0e-1d7a-4c7e-9c1e-2a7f0c3d9b11 Version: 7",
                        "END RequestId: 6f1c2b0e-1d7a-4c7e-9c1e-2a7f0c3d9b11",
                        "2026-11-21T12:00:00.000Z 6f1c2b0e INFO stored 500 records",
                        "{\"level\":\"INFO\",\"message\":\"batch stored\",\"service\":\"ingest\",\"records\":500}",
                        "{\"time\":\"2026-11-21T12:00:00.000Z\",\"type\":\"platform.start\",\"record\":{\"requestId\":\"6f1c\"}}",
                        "Monthly REPORT generated for RequestId 42",
                        "report RequestId: lower case is another phrase"))
                .allSatisfy(line -> assertThat(matches(phrases, line)).as(line).isFalse());
    }

    private static JsonNode policyDocument() throws IOException {
        Stack stack = template.resolve(ON, bindings(Map.of()));
        return JSON.readTree(stack.resolvedProperties("LogSubscriptionPolicy")
                .get("PolicyDocument")
                .textValue());
    }

    /**
     * Ref gives {@code refs}' value (the log groups' names), else a visible placeholder; GetAtt gives the stream's and
     * the role's ARN, else a placeholder. (Resolving a resource's properties resolves all of them.)
     */
    private static Bindings bindings(Map<String, String> refs) {
        Map<String, String> attributes = Map.of("Stream.Arn", STREAM_ARN, "LogSubscriptionRole.Arn", ROLE_ARN);
        return new Bindings() {
            @Override
            public String ref(String logicalId) {
                return refs.getOrDefault(logicalId, "unbound-" + logicalId);
            }

            @Override
            public String getAtt(String logicalId, String attribute) {
                return attributes.getOrDefault(logicalId + "." + attribute, "unbound-" + logicalId + "." + attribute);
            }

            @Override
            public PseudoParameters pseudo() {
                return PseudoParameters.local("pulse");
            }
        };
    }

    /** The phrases of a pattern of the form {@code ?"a" ?"b" ...}; anything else fails the test. */
    private static List<String> anyOfPhrases(String pattern) {
        assertThat(pattern)
                .as("filter pattern form this test can evaluate")
                .matches("\\?\"[^\"\\\\]+\"(\\s+\\?\"[^\"\\\\]+\")*");
        List<String> phrases = new ArrayList<>();
        Matcher m = Pattern.compile("\\?\"([^\"]+)\"").matcher(pattern);
        while (m.find()) {
            phrases.add(m.group(1));
        }
        return phrases;
    }

    private static boolean matches(List<String> phrases, String event) {
        return phrases.stream().anyMatch(event::contains);
    }
}
