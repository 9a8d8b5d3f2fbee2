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

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The intrinsic functions template.yaml uses, SAM's Globals rules and Lambda's defaults, on small inline templates. */
class IntrinsicsTest {

    private static final String HEADER = """
            Parameters:
              Env: {Type: String, Default: prod, AllowedValues: [dev, prod]}
            Conditions:
              IsProd: !Equals [!Ref Env, prod]
              IsDev: !Not [!Equals [!Ref Env, prod]]
              IsOne: !Equals [1, '1']
            Mappings:
              Regions:
                us-east-1: {Ami: ami-1}
            """;
    private static final MapBindings BINDINGS =
            new MapBindings(Map.of("Bucket", "bucket-1"), Map.of("Bucket.Arn", "arn:aws:s3:::bucket-1"));

    @TempDir
    Path dir;

    private SamTemplate template(String yaml) throws IOException {
        return SamTemplate.load(Files.writeString(dir.resolve("template.yaml"), yaml));
    }

    /** {@code value} (one line of YAML) as the resolved Value property of a resource. */
    private JsonNode resolve(String value, Map<String, String> overrides) throws IOException {
        SamTemplate template = template(HEADER + """
                Resources:
                  Bucket:
                    Type: AWS::S3::Bucket
                  Thing:
                    Type: AWS::Test::Thing
                    Properties:
                      Value: %s
                """.formatted(value));
        return template.resolve(overrides, BINDINGS).resolvedProperties("Thing").get("Value");
    }

    private JsonNode resolve(String value) throws IOException {
        return resolve(value, Map.of());
    }

    @Test
    void sub_whenVariableMapGiven_usesItBeforeParametersAndResources() throws IOException {
        assertThat(resolve("!Sub ['${Name}/${Env}/${AWS::Region}/${Bucket}', {Name: !Ref Bucket, Env: staging}]")
                        .asText())
                .isEqualTo("bucket-1/staging/us-east-1/bucket-1");
    }

    @Test
    void sub_whenEscapedOrAttribute_keepsLiteralAndCallsGetAtt() throws IOException {
        assertThat(resolve("!Sub '${!Literal}-${Bucket.Arn}-${AWS::StackName}'").asText())
                .isEqualTo("${Literal}-arn:aws:s3:::bucket-1-pulse");
    }

    @Test
    void if_whenNested_evaluatesOnlyTheTakenBranches() throws IOException {
        // The untaken branches refer to a resource the bindings do not know: evaluating them would fail.
        String value = "!If [IsProd, !If [IsDev, !Ref Missing, inner], !GetAtt Missing.Arn]";
        String template = HEADER + """
                Resources:
                  Missing: {Type: AWS::S3::Bucket}
                  Thing: {Type: AWS::Test::Thing, Properties: {Value: %s}}
                """.formatted(value);

        assertThat(template(template)
                        .resolve(Map.of(), BINDINGS)
                        .resolvedProperties("Thing")
                        .get("Value")
                        .asText())
                .isEqualTo("inner");
        assertThatThrownBy(() -> template(template)
                        .resolve(Map.of("Env", "dev"), BINDINGS)
                        .resolvedProperties("Thing"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Missing.Arn");
    }

    @Test
    void condition_whenNotOfEquals_evaluatesWithTheParameter() throws IOException {
        assertThat(resolve("!If [IsDev, first, second]").asText()).isEqualTo("second");
        assertThat(resolve("!If [IsDev, first, second]", Map.of("Env", "dev")).asText())
                .isEqualTo("first");
        // Fn::Equals compares as strings after substitution, as CloudFormation does.
        assertThat(resolve("!If [IsOne, same, different]").asText()).isEqualTo("same");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "Fn::Base64      | !Base64 abc",
                "Fn::GetAZs      | !GetAZs ''",
                "Fn::And         | !If [IsProd, !And [!Equals [a, a], !Equals [b, b]], x]",
                "Fn::Condition   | !If [IsProd, !Condition IsProd, x]",
                "Fn::ImportValue | !ImportValue shared-vpc"
            })
    void resolve_whenFunctionTemplateDoesNotUse_throwsNamingIt(String function, String value) {
        assertThatThrownBy(() -> resolve(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unsupported intrinsic function " + function + " ")
                .hasMessageContaining(Intrinsics.SUPPORTED.toString());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "!Join ['-', [a, b]]                                  | a-b",
                "!Join ['', [a]]                                      | a",
                "!Select [1, [a, b]]                                  | b",
                "!Select [2, !Split [',', 'a,b,,']]                   | ''",
                "!Join ['+', !Split [',', 'a,b']]                     | a+b",
                "!Select [0, !Split [',', !Join ['', [x, ',,,']]]]    | x"
            })
    void resolve_whenJoinSplitOrSelect_evaluatesAsCloudFormation(String value, String expected) throws IOException {
        assertThat(resolve(value).asText()).isEqualTo(expected.equals("''") ? "" : expected);
    }

    @Test
    void resolve_whenSelectIndexIsOutsideTheList_throwsNamingIt() {
        assertThatThrownBy(() -> resolve("!Select [2, [a, b]]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index 2 is outside");
    }

    @Test
    void resolve_whenConditionUsesUnsupportedFunction_throwsNamingIt() {
        assertThatThrownBy(() -> template("""
                Conditions:
                  Either: !Or [!Condition A, !Condition B]
                Resources:
                  Bucket: {Type: AWS::S3::Bucket}
                """).resolve(Map.of(), BINDINGS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unsupported intrinsic function Fn::Or");
    }

    @ParameterizedTest
    @ValueSource(strings = {"AWS::StackId", "AWS::NotificationARNs", "AWS::Regoin"})
    void ref_whenPseudoParameterTemplateDoesNotUse_throwsNamingIt(String name) {
        assertThatThrownBy(() -> resolve("!Ref " + name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + name + "'");
    }

    @Test
    void findInMap_whenKeysResolve_returnsValue() throws IOException {
        assertThat(resolve("!FindInMap [Regions, !Ref AWS::Region, Ami]").asText())
                .isEqualTo("ami-1");
        // The template's JAVA_TOOL_OPTIONS: a lookup inside a join.
        assertThat(resolve("!Join [' ', [-XX:+A, !FindInMap [Regions, !Ref AWS::Region, Ami]]]")
                        .asText())
                .isEqualTo("-XX:+A ami-1");
        assertThatThrownBy(() -> resolve("!FindInMap [Regions, eu-west-1, Ami]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Regions.eu-west-1.Ami");
    }

    @Test
    void getAtt_whenListOrLongForm_callsBindings() throws IOException {
        assertThat(resolve("!GetAtt [Bucket, Arn]").asText()).isEqualTo("arn:aws:s3:::bucket-1");
        assertThat(resolve("{'Fn::GetAtt': Bucket.Arn}").asText()).isEqualTo("arn:aws:s3:::bucket-1");
        assertThat(resolve("{Ref: Bucket}").asText()).isEqualTo("bucket-1");
        assertThat(resolve("{'Fn::Sub': ['${X}', {X: {Ref: Env}}]}").asText()).isEqualTo("prod");
    }

    @Test
    void noValue_whenInListOrProperty_removesIt() throws IOException {
        assertThat(resolve("[a, !Ref AWS::NoValue, b]"))
                .extracting(JsonNode::asText)
                .containsExactly("a", "b");
        assertThat(resolve("!If [IsDev, x, !Ref AWS::NoValue]")).isNull();
    }

    @Test
    void ref_whenNameUnknown_throwsNamingIt() {
        assertThatThrownBy(() -> resolve("!Ref Bukket"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Bukket");
        assertThatThrownBy(() -> resolve("!If [IsStaging, a, b]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IsStaging");
    }

    @Test
    void resolve_whenConditionRefersToResource_throws() throws IOException {
        SamTemplate template = template("""
                Conditions:
                  Bad: !Equals [!Ref Bucket, x]
                Resources:
                  Bucket: {Type: AWS::S3::Bucket}
                """);

        assertThatThrownBy(() -> template.resolve(Map.of(), BINDINGS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Bad")
                .hasMessageContaining("Bucket");
    }

    @Test
    void load_whenKeyDuplicatedOrScalarAliased_throwsWithLine() {
        assertThatThrownBy(() -> template("Resources:\n  A: {Type: X}\n  A: {Type: Y}\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(":3:")
                .hasMessageContaining("duplicate key 'A'");
        assertThatThrownBy(() -> template("Resources:\n  A: {Type: &t X}\n  B: {Type: *t}\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(":3:")
                .hasMessageContaining("alias");
    }

    @Test
    void load_whenMappingAliased_copiesIt() throws IOException {
        SamTemplate template = template("Resources:\n  A: &a {Type: X, Properties: {V: !Ref AWS::Region}}\n  B: *a\n");

        assertThat(template.resolve(Map.of(), BINDINGS)
                        .resolvedProperties("B")
                        .get("V")
                        .asText())
                .isEqualTo("us-east-1");
    }

    @Test
    void functions_whenGlobalsAndFunctionOverlap_mergeBySamRules() throws IOException {
        Stack stack = template("""
                Globals:
                  Function:
                    Runtime: java21
                    MemorySize: 512
                    Layers: [!Ref Shared]
                    Environment:
                      Variables: {A: global, B: global, RATIO: 0.50, BIG: 1e3}
                Resources:
                  Shared: {Type: AWS::Serverless::LayerVersion, Properties: {ContentUri: layers/shared}}
                  Fn:
                    Type: AWS::Serverless::Function
                    Properties:
                      CodeUri: ./fn/../fn
                      Handler: h
                      MemorySize: 256
                      Layers: [!Ref Own, 'arn:aws:lambda:us-east-1:1:layer:x:1']
                      Environment: {Variables: {B: own, C: !Ref AWS::NoValue}}
                  Own: {Type: AWS::Serverless::LayerVersion, Properties: {ContentUri: layers/own}}
                """).resolve(Map.of(), BINDINGS);

        FunctionSpec fn = stack.function("Fn");

        assertThat(fn)
                .isEqualTo(new FunctionSpec(
                        "Fn",
                        "pulse-Fn-LOCAL",
                        dir.resolve("fn"),
                        "h",
                        "java21",
                        256,
                        3,
                        Map.of("A", "global", "B", "own", "RATIO", "0.5", "BIG", "1000"),
                        List.of("Shared", "Own"),
                        null,
                        "x86_64",
                        false));
        assertThat(fn.environment().keySet()).containsExactly("A", "B", "RATIO", "BIG");
        assertThat(stack.layers())
                .extracting(LayerSpec::contentUri)
                .containsExactly(dir.resolve("layers/shared"), dir.resolve("layers/own"));
    }

    @Test
    void mappings_whenEventSetsOnlyRequiredProperties_useLambdaDefaults() throws IOException {
        Stack stack = template("""
                Resources:
                  Stream: {Type: AWS::Kinesis::Stream}
                  Fn:
                    Type: AWS::Serverless::Function
                    Properties:
                      CodeUri: fn
                      Handler: h
                      Events:
                        In: {Type: Kinesis, Properties: {Stream: !GetAtt Stream.Arn, StartingPosition: LATEST}}
                        Off: {Type: Kinesis, Properties: {Stream: !GetAtt Stream.Arn, StartingPosition: LATEST, Enabled: false}}
                        Get: {Type: HttpApi, Properties: {Method: get, Path: /x}}
                        Any: {Type: HttpApi}
                """).resolve(Map.of(), new MapBindings(Map.of(), Map.of("Stream.Arn", "arn:s")));

        assertThat(stack.mappings())
                .containsExactly(new MappingSpec(
                        "Fn", "In", "arn:s", "LATEST", 100, Duration.ZERO, 1, false, -1, null, false, null));
        assertThat(stack.routes())
                .containsExactly(
                        new RouteSpec("Fn", "GET", "/x", "ServerlessHttpApi"),
                        new RouteSpec("Fn", "ANY", "$default", "ServerlessHttpApi"));
    }

    @Test
    void functions_whenResourceConditionFalse_leaveItOut() throws IOException {
        SamTemplate template = template(HEADER + """
                Resources:
                  Always: {Type: AWS::Serverless::Function, Properties: {CodeUri: a, Handler: h}}
                  DevOnly: {Type: AWS::Serverless::Function, Condition: IsDev, Properties: {CodeUri: d, Handler: h}}
                """);

        assertThat(template.resolve(Map.of(), BINDINGS).functions())
                .extracting(FunctionSpec::logicalId)
                .containsExactly("Always");
        assertThat(template.resolve(Map.of("Env", "dev"), BINDINGS).functions())
                .extracting(FunctionSpec::logicalId)
                .containsExactly("Always", "DevOnly");
    }

    @Test
    void functions_whenSnapStartWithoutAnAlias_runOnDemandAsTheirEventsCallLatest() throws IOException {
        SamTemplate template = template(HEADER + """
                Resources:
                  Aliased:
                    Type: AWS::Serverless::Function
                    Properties:
                      CodeUri: a
                      Handler: h
                      AutoPublishAlias: live
                      SnapStart: {ApplyOn: !If [IsDev, None, PublishedVersions]}
                  Unaliased:
                    Type: AWS::Serverless::Function
                    Properties: {CodeUri: u, Handler: h, SnapStart: {ApplyOn: PublishedVersions}}
                  Plain: {Type: AWS::Serverless::Function, Properties: {CodeUri: p, Handler: h, AutoPublishAlias: live}}
                """);

        assertThat(template.resolve(Map.of(), BINDINGS).functions())
                .extracting(FunctionSpec::logicalId, FunctionSpec::snapStart)
                .containsExactly(tuple("Aliased", true), tuple("Unaliased", false), tuple("Plain", false));
        assertThat(template.resolve(Map.of("Env", "dev"), BINDINGS)
                        .function("Aliased")
                        .snapStart())
                .isFalse();
    }
}
