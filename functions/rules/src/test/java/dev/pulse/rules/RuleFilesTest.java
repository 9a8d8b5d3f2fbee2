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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rule files: the bundled ones pass {@code promtool check rules} unchanged and load in Pulse; each bad file of the
 * table is refused by both promtool and Pulse, Pulse naming the file, the group, the rule and the reason; what Pulse
 * alone refuses (minute resolution, its template subset, its bounds) is refused with the reason.
 */
class RuleFilesTest {

    @Test
    void bundledRules_whenCheckedByPromtoolAndLoadedByPulse_passBoth() throws Exception {
        Path dir = Promtool.rulesDir();
        List<String> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".yml"))
                    .sorted()
                    .toList();
        }

        Promtool.Result promtool = Promtool.run(
                dir, Stream.concat(Stream.of("check", "rules"), files.stream()).toArray(String[]::new));
        RuleSet pulse = RuleFiles.loadDirectory(dir);

        assertThat(files).contains("pulse.rules.yml", "replay.rules.yml");
        assertThat(promtool.exitCode()).as(promtool.output()).isZero();
        assertThat(promtool.output()).doesNotContain("FAILED");
        assertThat(pulse.groups())
                .extracting(RuleGroup::name)
                .containsExactly("pulse-self", "loadgen-canary", "replay-services");
        assertThat(pulse.ruleCount()).isEqualTo(10);
    }

    @Test
    void bundledRules_whenLoadedFromTheArtifact_areTheRepositoryFiles() throws Exception {
        RuleSet packaged = RulesFunction.bundledRules();

        assertThat(packaged.groups()).extracting(RuleGroup::file).containsOnly("pulse.rules.yml", "replay.rules.yml");
        assertThat(packaged.ruleCount())
                .isEqualTo(RuleFiles.loadDirectory(Promtool.rulesDir()).ruleCount());
    }

    static Stream<Arguments> badFiles() {
        return Stream.of(
                Arguments.of(
                        "duplicate group",
                        "groups:\n- name: g\n  rules: [{record: a, expr: '1'}]\n- name: g\n  rules: [{record: b, expr: '1'}]\n",
                        "group \"g\": groupname: \"g\" is repeated in the same file"),
                Arguments.of(
                        "bad for",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: 'up == 0', for: 5x}]\n",
                        "group \"g\", rule 1 (\"A\"): for: not a valid duration string: \"5x\""),
                Arguments.of(
                        "units out of order",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: 'up', keep_firing_for: 5s1m}]\n",
                        "keep_firing_for: not a valid duration string: \"5s1m\""),
                Arguments.of(
                        "duration whose milliseconds overflow to a negative number",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, for: 999999999999y}]\n",
                        "group \"g\", rule 1 (\"A\"): for: duration out of range: \"999999999999y\""),
                Arguments.of(
                        "duration whose milliseconds wrap around to 338 days",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, keep_firing_for: 584942417356y}]\n",
                        "keep_firing_for: duration out of range: \"584942417356y\""),
                Arguments.of(
                        "bad interval",
                        "groups:\n- name: g\n  interval: 1x\n  rules: [{record: a, expr: up}]\n",
                        "group \"g\": interval: not a valid duration string: \"1x\""),
                Arguments.of(
                        "bad PromQL",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: 'sum(up'}]\n",
                        "group \"g\", rule 1 (\"A\"): could not parse expression: 1:"),
                Arguments.of(
                        "bad label name",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, labels: {bad-name: x}}]\n",
                        "rule 1 (\"A\"): invalid label name: bad-name"),
                Arguments.of(
                        "__name__ label",
                        "groups:\n- name: g\n  rules: [{record: a, expr: up, labels: {__name__: y}}]\n",
                        "rule 1 (\"a\"): invalid label name: __name__"),
                Arguments.of(
                        "bad annotation name",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, annotations: {0x: y}}]\n",
                        "invalid annotation name: 0x"),
                Arguments.of(
                        "unclosed template",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, annotations: {s: '{{ $labels.job '}}]\n",
                        "rule 1 (\"A\"): annotation s: template: __alert_A:1: unclosed action"),
                Arguments.of(
                        "undefined variable",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, annotations: {s: '{{ $foo }}'}}]\n",
                        "undefined variable \"$foo\""),
                Arguments.of(
                        "undefined function",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, labels: {s: '{{ nosuch $value }}'}}]\n",
                        "label s: template: __alert_A:1: function \"nosuch\" not defined"),
                Arguments.of(
                        "bad record name",
                        "groups:\n- name: g\n  rules: [{record: 'bad name', expr: up}]\n",
                        "rule 1 (\"bad name\"): invalid recording rule name: bad name"),
                Arguments.of(
                        "record and alert",
                        "groups:\n- name: g\n  rules: [{record: a, alert: A, expr: up}]\n",
                        "rule 1: only one of 'record' and 'alert' must be set"),
                Arguments.of(
                        "neither",
                        "groups:\n- name: g\n  rules: [{expr: up}]\n",
                        "rule 1: one of 'record' or 'alert' must be set"),
                Arguments.of(
                        "no expr",
                        "groups:\n- name: g\n  rules: [{alert: A}]\n",
                        "rule 1 (\"A\"): field 'expr' must be set in rule"),
                Arguments.of(
                        "annotations on a record",
                        "groups:\n- name: g\n  rules: [{record: a, expr: up, annotations: {x: y}}]\n",
                        "invalid field 'annotations' in recording rule"),
                Arguments.of(
                        "for on a record",
                        "groups:\n- name: g\n  rules: [{record: a, expr: up, for: 5m}]\n",
                        "invalid field 'for' in recording rule"),
                Arguments.of(
                        "keep_firing_for on a record",
                        "groups:\n- name: g\n  rules: [{record: a, expr: up, keep_firing_for: 5m}]\n",
                        "invalid field 'keep_firing_for' in recording rule"),
                Arguments.of(
                        "unknown field",
                        "groups:\n- name: g\n  rules: [{alert: A, exprs: up}]\n",
                        "field exprs not found in a rule"),
                Arguments.of(
                        "duplicate key",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, expr: down}]\n",
                        "Duplicate field 'expr'"),
                Arguments.of(
                        "empty group name",
                        "groups:\n- name: ''\n  rules: [{alert: A, expr: up}]\n",
                        "group 1: Groupname must not be empty"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void parse_whenTheFileIsBad_isRefusedByPromtoolAndByPulseWithTheReason(
            String name, String yaml, String reason, @TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("bad.yml"), yaml);

        Promtool.Result promtool = Promtool.run(dir, "check", "rules", "bad.yml");

        assertThat(promtool.exitCode()).as(promtool.output()).isNotZero();
        assertThatThrownBy(() -> RuleFiles.parse("bad.yml", yaml))
                .isInstanceOf(RuleFileException.class)
                .hasMessageStartingWith("bad.yml: ")
                .hasMessageContaining(reason);
    }

    static Stream<Arguments> refusedByPulseOnly() {
        String nested = "(".repeat(70) + "up" + ")".repeat(70);
        return Stream.of(
                Arguments.of(
                        "interval below a minute",
                        "groups:\n- name: g\n  interval: 30s\n  rules: [{record: a, expr: up}]\n",
                        "group \"g\": interval 30s is not a whole number of minutes"),
                Arguments.of(
                        "if in a template",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, annotations: {s: '{{ if $value }}x{{ end }}'}}]\n",
                        "{{if}} is not supported by Pulse's templates"),
                Arguments.of(
                        "query in a template",
                        "groups:\n- name: g\n  rules: [{alert: A, expr: up, annotations: {s: '{{ query \"up\" }}'}}]\n",
                        "the function \"query\" is not supported by Pulse's templates"),
                Arguments.of(
                        "aliased expression (promtool reads the anchor's name as the expression)",
                        "groups:\n- name: g\n  rules:\n  - {alert: A, expr: &e up == 0}\n  - {alert: B, expr: *e}\n",
                        "line 5: the alias *e: YAML aliases are not supported, write the value out"),
                Arguments.of(
                        "aliased labels",
                        "groups:\n- name: g\n  rules:\n  - {alert: A, expr: up, labels: &l {team: a}}\n"
                                + "  - {alert: B, expr: up, labels: *l}\n",
                        "the alias *l: YAML aliases are not supported"),
                Arguments.of(
                        "deeply nested expression",
                        "groups:\n- name: g\n  rules: [{record: a, expr: '" + nested + "'}]\n",
                        "could not parse expression"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedByPulseOnly")
    void parse_whenPromtoolAcceptsWhatPulseCannotRun_isRefusedByPulseWithTheReason(
            String name, String yaml, String reason, @TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("f.yml"), yaml);

        Promtool.Result promtool = Promtool.run(dir, "check", "rules", "f.yml");

        assertThat(promtool.exitCode()).as(promtool.output()).isZero();
        assertThatThrownBy(() -> RuleFiles.parse("f.yml", yaml))
                .isInstanceOf(RuleFileException.class)
                .hasMessageStartingWith("f.yml: ")
                .hasMessageContaining(reason);
    }

    @Test
    void parse_whenTheFileIsTenMegabytes_isRefusedBeforeParsing() {
        String big = "groups:\n- name: g\n  rules:\n" + "  - {record: a, expr: up}\n".repeat(400_000);

        assertThat(big.length()).isGreaterThan(10_000_000);
        assertThatThrownBy(() -> RuleFiles.parse("big.yml", big))
                .isInstanceOf(RuleFileException.class)
                .hasMessage("big.yml: more than 1048576 bytes");
    }

    @Test
    void load_whenFilesHoldTenThousandRules_isRefusedNamingTheLimit() {
        StringBuilder file = new StringBuilder("groups:\n");
        for (int g = 0; g < 10; g++) {
            file.append("- name: g").append(g).append("\n  rules:\n");
            file.append("  - {record: a, expr: up}\n".repeat(1_000));
        }

        assertThatThrownBy(() -> RuleFiles.load(Map.of("many.yml", file.toString())))
                .isInstanceOf(RuleFileException.class)
                .hasMessageContaining("many.yml: more than 2000 rules");
    }

    @Test
    void parse_whenAnAnchorWouldExpandExponentially_isRefusedWithoutExpandingIt() {
        StringBuilder yaml = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < 12; i++) {
            yaml.append("a").append(i).append(": &a").append(i).append(" [");
            yaml.append(("*a" + (i - 1) + ", ").repeat(9))
                    .append("*a")
                    .append(i - 1)
                    .append("]\n");
        }
        yaml.append("groups: []\n");

        // 10^12 elements if the aliases were expanded: the parse must finish at once and refuse the file.
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                java.time.Duration.ofSeconds(5),
                () -> assertThatThrownBy(() -> RuleFiles.parse("laughs.yml", yaml.toString()))
                        .isInstanceOf(RuleFileException.class)
                        .hasMessageStartingWith("laughs.yml: "));
    }

    @Test
    void parse_whenRulesRepeatANameOrALabelHoldsANewline_acceptsThemAsPrometheusDoes() throws Exception {
        String yaml = "groups:\n- name: g\n  rules:\n  - {alert: A, expr: up, labels: {team: \"a\\nb\"}}\n"
                + "  - {alert: A, expr: up == 0}\n";

        List<RuleGroup> groups = RuleFiles.parse("dup.yml", yaml);

        assertThat(groups.get(0).rules()).hasSize(2).extracting(Rule::name).containsOnly("A");
        assertThat(groups.get(0).rules().get(0).labels()).containsEntry("team", "a\nb");
        assertThat(GroupEvaluator.ruleKey(groups.get(0), 0)).isNotEqualTo(GroupEvaluator.ruleKey(groups.get(0), 1));
    }

    @Test
    void parse_whenLabelsAndAnnotationsLookLikeNumbersOrBooleans_keepsTheTextAsWrittenAsPromtoolDoes(@TempDir Path dir)
            throws Exception {
        String yaml = "groups:\n- name: g\n  rules:\n  - alert: A\n    expr: up == 0\n"
                + "    labels: {version: 1.10, id: 007, paged: yes, big: 1e3, hex: 0x1F, upper: TRUE}\n"
                + "    annotations: {build: 2.50, zero: 0.0}\n";
        Files.writeString(dir.resolve("r.yml"), yaml);
        Files.writeString(
                dir.resolve("t.yml"),
                "rule_files: [r.yml]\nevaluation_interval: 1m\ntests:\n- interval: 1m\n"
                        + "  input_series: [{series: 'up{job=\"x\"}', values: '0 0'}]\n"
                        + "  alert_rule_test:\n  - eval_time: 1m\n    alertname: A\n    exp_alerts:\n"
                        + "    - exp_labels: {job: x, version: '1.10', id: '007', paged: 'yes', big: '1e3',"
                        + " hex: '0x1F', upper: 'TRUE'}\n"
                        + "      exp_annotations: {build: '2.50', zero: '0.0'}\n");

        Promtool.Result promtool = Promtool.run(dir, "test", "rules", "t.yml");
        AlertingRule rule =
                (AlertingRule) RuleFiles.parse("r.yml", yaml).get(0).rules().get(0);

        assertThat(promtool.exitCode()).as(promtool.output()).isZero();
        assertThat(rule.labels())
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "version", "1.10", "id", "007", "paged", "yes", "big", "1e3", "hex", "0x1F", "upper", "TRUE"));
        assertThat(rule.annotations()).containsExactlyInAnyOrderEntriesOf(Map.of("build", "2.50", "zero", "0.0"));
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.CsvSource({"10,10", "+10,10", "0x0a,10", "0o12,10", "0,0"})
    void parse_whenTheLimitIsAYamlInteger_readsItAsPromtoolDoes(String written, int limit, @TempDir Path dir)
            throws Exception {
        String yaml = "groups:\n- name: g\n  limit: " + written + "\n  rules: [{record: a, expr: up}]\n";
        Files.writeString(dir.resolve("l.yml"), yaml);

        Promtool.Result promtool = Promtool.run(dir, "check", "rules", "l.yml");

        assertThat(promtool.exitCode()).as(promtool.output()).isZero();
        assertThat(RuleFiles.parse("l.yml", yaml).get(0).limit()).isEqualTo(limit);
    }

    @Test
    void parse_whenFieldsAreOmitted_usesPrometheusDefaults() throws Exception {
        List<RuleGroup> groups = RuleFiles.parse("d.yml", "groups:\n- name: g\n  rules: [{alert: A, expr: up}]\n");

        assertThat(groups.get(0).intervalMillis()).isEqualTo(60_000);
        assertThat(groups.get(0).limit()).isZero();
        AlertingRule a = (AlertingRule) groups.get(0).rules().get(0);
        assertThat(a.forMillis()).isZero();
        assertThat(a.keepFiringForMillis()).isZero();
    }
}
