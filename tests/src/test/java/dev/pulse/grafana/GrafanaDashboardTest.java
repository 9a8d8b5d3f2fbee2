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
package dev.pulse.grafana;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.query.promql.internal.PromQlParser;
import dev.pulse.testing.ExpectedResults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/grafana/pulse-dashboard.json: an importable Grafana dashboard whose every query stays inside the PromQL subset
 * Pulse's Prometheus API answers (checked by its own parser, {@link PromQlParser}), on series the bundled recording really has.
 */
class GrafanaDashboardTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DASHBOARD = ExpectedResults.repoRoot().resolve("docs/grafana/pulse-dashboard.json");
    /** What Grafana puts in place of its variables before it sends a query (the interval is at least 1m: timeInterval). */
    private static final List<String[]> VARIABLES = List.of(
            new String[] {"$__rate_interval", "1m"},
            new String[] {"$__interval", "1m"},
            new String[] {"$__range", "1h"},
            new String[] {"$function", "checkout-api|orders-worker"});

    private static JsonNode dashboard() throws Exception {
        return JSON.readTree(Files.readString(DASHBOARD));
    }

    static Stream<String> expressions() throws Exception {
        List<String> exprs = new ArrayList<>();
        for (JsonNode panel : dashboard().path("panels")) {
            for (JsonNode t : panel.path("targets")) {
                exprs.add(t.path("expr").asText());
            }
        }
        return exprs.stream();
    }

    private static String substitute(String expr) {
        String out = expr;
        for (String[] v : VARIABLES) {
            out = out.replace(v[0], v[1]);
        }
        return out;
    }

    @Test
    void dashboard_whenImported_hasWhatGrafanaNeedsAndOnePrometheusDataSourceVariable() throws Exception {
        JsonNode d = dashboard();

        assertThat(d.path("uid").asText()).matches("[a-z0-9-]{1,40}");
        assertThat(d.path("title").asText()).isNotBlank();
        assertThat(d.path("schemaVersion").asInt()).isPositive();
        JsonNode vars = d.path("templating").path("list");
        assertThat(vars.get(0).path("type").asText()).isEqualTo("datasource");
        assertThat(vars.get(0).path("query").asText()).isEqualTo("prometheus");
        Set<Integer> ids = new HashSet<>();
        assertThat(d.path("panels")).hasSizeGreaterThanOrEqualTo(6).allSatisfy(p -> {
            assertThat(ids.add(p.path("id").asInt()))
                    .as("unique panel id %s", p.path("id"))
                    .isTrue();
            assertThat(p.path("type").asText()).isEqualTo("timeseries");
            assertThat(p.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
            assertThat(p.path("gridPos").path("w").asInt()).isBetween(1, 24);
            assertThat(p.path("targets")).isNotEmpty().allSatisfy(t -> {
                assertThat(t.path("expr").asText()).isNotBlank();
                assertThat(t.path("refId").asText()).matches("[A-Z]");
            });
        });
        // The panels the issue asks for: duration percentiles, cold starts, errors.
        List<String> exprs = expressions().toList();
        assertThat(exprs).anyMatch(e -> e.startsWith("quantile_over_time(0.99, {__name__=\"lambda.duration\""));
        assertThat(exprs).anyMatch(e -> e.contains("count_over_time({__name__=\"lambda.init_duration\""));
        assertThat(exprs).anyMatch(e -> e.contains("failures"));
    }

    @ParameterizedTest
    @MethodSource("expressions")
    void expression_whenVariablesSubstituted_staysInsideTheSupportedSubset(String expr) {
        assertThatNoException().isThrownBy(() -> PromQlParser.parse(substitute(expr)));
    }

    @ParameterizedTest
    @MethodSource("expressions")
    void expression_whenNamesMetrics_namesOnlySeriesTheRecordingHas(String expr) throws Exception {
        // Metric names and labels of events/replay/sample.ndjson.gz (native datapoints, EMF, Lambda REPORT lines).
        Set<String> names = Set.of(
                "lambda.duration",
                "lambda.billed_duration",
                "lambda.memory_size",
                "lambda.max_memory_used",
                "lambda.init_duration",
                "checkout.latency",
                "Checkout/Latency",
                "login.failures");
        Set<String> labels = Set.of("__name__", "function", "service", "op");
        Matcher m = Pattern.compile("__name__=\"([^\"]+)\"").matcher(expr);
        while (m.find()) {
            assertThat(names).contains(m.group(1));
        }
        Matcher l = Pattern.compile("([a-zA-Z_]+)(=~|!~|!=|=)\"").matcher(expr);
        while (l.find()) {
            assertThat(labels).contains(l.group(1));
        }
    }

    @Test
    void variableQuery_whenFunctionListed_usesASupportedSelector() throws Exception {
        JsonNode fn = dashboard().path("templating").path("list").get(1);
        Matcher m = Pattern.compile("label_values\\((.*), function\\)")
                .matcher(fn.path("definition").asText());

        assertThat(m.matches()).isTrue();
        assertThatNoException().isThrownBy(() -> PromQlParser.parse(m.group(1)));
    }
}
