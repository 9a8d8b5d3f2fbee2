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
package dev.pulse.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.testing.DynamoDbLocalExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The oracle: every rule unit test in rules/tests/ passes under the real {@code promtool test rules} (Prometheus
 * 2.42) and under Pulse's evaluator ({@link PromtoolTestRunner}: input series through ingest into DynamoDB Local,
 * rules evaluated through the query service's PromQL), so both give the same firing alerts, labels, annotations and
 * recorded samples. The differences by design (minute resolution: inputs at 1m, evaluation at 1m, no 5-minute
 * lookback across gaps) are in the runner's Javadoc; the files stay inside them.
 */
class PromtoolOracleTest {

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    static Stream<String> testFiles() throws IOException {
        try (Stream<Path> s = Files.list(Promtool.rulesDir().resolve("tests"))) {
            return s
                    .map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".test.yml"))
                    .sorted()
                    .toList()
                    .stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("testFiles")
    void ruleTest_whenRunByPromtoolAndByPulse_passesUnderBoth(String file) throws Exception {
        Path tests = Promtool.rulesDir().resolve("tests");

        Promtool.Result promtool = Promtool.run(tests, "test", "rules", file);
        List<String> pulse = new PromtoolTestRunner(DYNAMO.async(), DYNAMO.reader()).run(tests.resolve(file));

        assertThat(promtool.exitCode()).as(promtool.output()).isZero();
        assertThat(promtool.output()).contains("SUCCESS");
        assertThat(pulse)
                .as("Pulse's evaluation differs from the file's expectations")
                .isEmpty();
    }

    @Test
    void testFiles_whenListed_coverEveryFeature() throws IOException {
        assertThat(testFiles().toList())
                .contains(
                        "for-pending.test.yml",
                        "keep-firing.test.yml",
                        "templates.test.yml",
                        "recording.test.yml",
                        "resolve.test.yml",
                        "bundled-pulse.test.yml",
                        "alerts-series.test.yml");
    }

    /** The comparison can fail: a wrong expectation (an alert said to fire before its `for`) fails under both. */
    @Test
    void ruleTest_whenAnExpectationIsWrong_failsUnderPromtoolAndPulse(@TempDir Path dir) throws Exception {
        Path tests = Promtool.rulesDir().resolve("tests");
        Files.copy(tests.resolve("for-pending.rules.yml"), dir.resolve("for-pending.rules.yml"));
        String expectation = "      - eval_time: 4m\n        alertname: InstanceDown\n        exp_alerts: []\n";
        String original = Files.readString(tests.resolve("for-pending.test.yml"));
        assertThat(original).contains(expectation);
        String wrong = original.replace(
                expectation,
                "      - eval_time: 4m\n        alertname: InstanceDown\n"
                        + "        exp_alerts:\n          - exp_labels: {severity: page, job: api, instance: a}\n"
                        + "            exp_annotations: {summary: \"a of api is down\"}\n");
        Files.writeString(dir.resolve("wrong.test.yml"), wrong);

        Promtool.Result promtool = Promtool.run(dir, "test", "rules", "wrong.test.yml");
        List<String> pulse = new PromtoolTestRunner(DYNAMO.async(), DYNAMO.reader()).run(dir.resolve("wrong.test.yml"));

        assertThat(promtool.exitCode()).isNotZero();
        assertThat(pulse).singleElement().asString().contains("alertname InstanceDown, eval_time 4m");
    }
}
