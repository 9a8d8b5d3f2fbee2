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
package dev.pulse.query.promql.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.model.MetricKind;
import dev.pulse.model.MetricKind.Temporality;
import dev.pulse.model.MetricKind.Type;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Prometheus names OpenTelemetry's compatibility rules give OTLP metrics: the examples are the names the
 * OpenTelemetry demo's and the Collector's dashboards query (semantic-convention HTTP and runtime metrics).
 */
class OtelNamesTest {

    @ParameterizedTest(name = "{0} {1} [{2}] -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "http.server.request.duration | histogram     | s         | http_server_request_duration_seconds",
                "http.server.duration         | histogram     | ms        | http_server_duration_milliseconds",
                "http.server.active_requests  | updowncounter | {request} | http_server_active_requests",
                "http.server.requests         | counter       | {request} | http_server_requests_total",
                "app.requests.total           | counter       | 1         | app_requests_total",
                "system.cpu.utilization       | gauge         | 1         | system_cpu_utilization_ratio",
                "process.memory.usage         | gauge         | By        | process_memory_usage_bytes",
                "jvm.memory.used              | updowncounter | By        | jvm_memory_used_bytes",
                "process.runtime.jvm.gc.duration | histogram  | s         | process_runtime_jvm_gc_duration_seconds",
                "network.io                   | counter       | By/s      | network_io_bytes_per_second_total",
                "latency_seconds              | gauge         | s         | latency_seconds",
                "2xx.count                    | counter       | ''        | _2xx_count_total",
                "queue.size                   | gauge         | widgets   | queue_size_widgets",
                "weird name-with spaces       | gauge         | ''        | weird_name_with_spaces",
                "café.latency                 | gauge         | ms        | caf_latency_milliseconds",
            })
    void metricName_whenOtlpMetric_followsTheCompatibilityRules(String name, String type, String unit, String want) {
        MetricKind kind = MetricKind.of(type(type), Temporality.DELTA, unit);
        assertThat(OtelNames.metricName(name, kind)).isEqualTo(want);
    }

    private static Type type(String code) {
        for (Type t : Type.values()) {
            if (t.code().equals(code)) {
                return t;
            }
        }
        throw new IllegalArgumentException(code);
    }

    @Test
    void aliases_whenHistogram_answersAsBucketCountAndSum() {
        MetricKind kind = MetricKind.histogram(Temporality.DELTA, "s", List.of(0.1, 0.5, 1.0));
        assertThat(OtelNames.aliases("http.server.request.duration", kind))
                .containsExactly(
                        new OtelNames.Alias("http_server_request_duration_seconds_bucket", OtelNames.View.BUCKET),
                        new OtelNames.Alias("http_server_request_duration_seconds_count", OtelNames.View.COUNT),
                        new OtelNames.Alias("http_server_request_duration_seconds_sum", OtelNames.View.SUM));
    }

    @Test
    void aliases_whenSummaryParts_answerAsCountAndSumOfTheSummaryName() {
        assertThat(OtelNames.aliases(
                        "rpc.duration.count", MetricKind.of(Type.SUMMARY_COUNT, Temporality.CUMULATIVE, "ms")))
                .containsExactly(new OtelNames.Alias("rpc_duration_milliseconds_count", OtelNames.View.RAW));
        assertThat(OtelNames.aliases("rpc.duration.sum", MetricKind.of(Type.SUMMARY_SUM, Temporality.CUMULATIVE, "ms")))
                .containsExactly(new OtelNames.Alias("rpc_duration_milliseconds_sum", OtelNames.View.RAW));
    }

    @Test
    void aliases_whenNameAlreadyPrometheusName_addsNoSecondName() {
        assertThat(OtelNames.aliases("queue_depth", MetricKind.of(Type.GAUGE, Temporality.NONE, "")))
                .isEmpty();
    }

    @Test
    void aliases_whenNoKind_isEmpty() {
        assertThat(OtelNames.aliases("lambda.duration", null)).isEmpty();
    }

    @Test
    void aliases_whenNameHasNoLetterOrDigit_isEmpty() {
        assertThat(OtelNames.aliases("...", MetricKind.of(Type.GAUGE, Temporality.NONE, "")))
                .isEmpty();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "http.route, http_route",
        "service.name, service_name",
        "k8s.pod.name, k8s_pod_name",
        "2xx, key_2xx",
        "_private, key_private",
        "__reserved, __reserved",
        "a-b/c, a_b_c",
        "le, le",
        "Ünicode, key_nicode",
    })
    void labelName_whenAttributeKey_replacesInvalidCharacters(String key, String want) {
        assertThat(OtelNames.labelName(key)).isEqualTo(want);
    }

    /** The specification: values of keys that become one label name are joined with ';' in the original keys' order. */
    @Test
    void labels_whenTwoKeysNormaliseAlike_keepsBothValuesJoinedInKeyOrder() {
        assertThat(OtelNames.labels(Map.of("a_b", "second", "a.b", "first")))
                .containsExactly(Map.entry("a_b", "first;second"));
    }

    @Test
    void labels_whenServiceNameAndNamespace_addsJob() {
        assertThat(OtelNames.labels(Map.of("service.name", "checkout", "service.namespace", "shop")))
                .containsEntry("job", "shop/checkout")
                .containsEntry("service_name", "checkout")
                .containsEntry("service_namespace", "shop");
        assertThat(OtelNames.labels(Map.of("service.name", "checkout"))).containsEntry("job", "checkout");
    }

    @Test
    void labels_whenAttributeNamedJob_keepsIt() {
        assertThat(OtelNames.labels(Map.of("service.name", "checkout", "job", "batch")))
                .containsEntry("job", "batch");
    }
}
