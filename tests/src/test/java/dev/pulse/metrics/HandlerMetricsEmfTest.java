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
package dev.pulse.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.compact.CompactMetric;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.loadgen.LoadGenMetric;
import dev.pulse.query.QueryMetric;
import dev.pulse.testing.EmfOutput;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.MetricsFactory;
import software.amazon.lambda.powertools.metrics.provider.EmfMetricsProvider;

/**
 * Each function's metric enum through the Powertools metrics its handler gets ({@link PulseMetrics}), invoked as the
 * handler invokes it ({@link InvocationMetrics#measure}): the printed lines parsed with Jackson and checked against
 * the EMF specification, one document per invocation with that invocation's values, names, units and the one
 * {@code Service} dimension. Both ways a handler gets its metrics are covered: the Powertools singleton the deployed
 * handlers use and the standalone logger of tests and benchmarks. Surefire runs with {@code AWS_EMF_ENVIRONMENT=Local}
 * (stdout, as in Lambda).
 */
class HandlerMetricsEmfTest {

    /** The singleton is the process's: each test configures it afresh, as a new execution environment would. */
    @AfterEach
    void resetPowertoolsSingleton() {
        MetricsFactory.setMetricsProvider(new EmfMetricsProvider());
    }

    enum Source {
        /** {@code PulseMetrics.create(service)}: what the deployed handlers use. */
        LAMBDA_SINGLETON {
            @Override
            Metrics create(String service) {
                return PulseMetrics.create(Map.of(PulseMetrics.NAMESPACE_ENV, "PulseTest"), service);
            }
        },
        /** {@code PulseMetrics.create(namespace, service)}: tests and benchmarks hosting several handlers. */
        STANDALONE {
            @Override
            Metrics create(String service) {
                return PulseMetrics.create("PulseTest", service);
            }
        };

        abstract Metrics create(String service);
    }

    static Stream<Arguments> enumsAndSources() {
        return Stream.of(IngestMetric.class, CompactMetric.class, QueryMetric.class, LoadGenMetric.class)
                .flatMap(e -> Stream.of(Source.values()).map(s -> Arguments.of(e, s)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("enumsAndSources")
    <M extends Enum<M> & MetricName>
            void measure_whenInvokedRepeatedly_printsOneValidDocumentPerInvocationWithItsValues(
                    Class<M> names, Source source) throws Exception {
        Metrics metrics = source.create("svc");

        EmfOutput out = EmfOutput.during(() -> {
            for (int i = 0; i < 3; i++) {
                invoke(names, metrics, i);
            }
        });

        assertThat(out.documents()).hasSize(3);
        for (int i = 0; i < 3; i++) {
            JsonNode doc = out.documents().get(i);
            assertValidEmf(doc);
            assertThat(doc.get("_aws").get("CloudWatchMetrics")).hasSize(1);
            JsonNode directive = doc.get("_aws").get("CloudWatchMetrics").get(0);
            assertThat(directive.get("Namespace").asText()).isEqualTo("PulseTest");
            assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"Service\"]]");
            assertThat(doc.get("Service").asText()).isEqualTo("svc");
            assertThat(units(directive)).isEqualTo(expectedUnits(names));
            for (Map.Entry<String, Double> e : expected(names, i).entrySet()) {
                assertThat(doc.get(e.getKey()).isNumber())
                        .as("%s is a number", e.getKey())
                        .isTrue();
                assertThat(doc.get(e.getKey()).asDouble())
                        .as("%s in invocation %d", e.getKey(), i)
                        .isEqualTo(e.getValue());
            }
        }
    }

    static Stream<Arguments> environments() {
        return Stream.of(
                Arguments.of(Map.of(), "Pulse", "query"),
                Arguments.of(Map.of(PulseMetrics.NAMESPACE_ENV, "Pulse-dev"), "Pulse-dev", "query"),
                Arguments.of(
                        Map.of(PulseMetrics.NAMESPACE_ENV, "Pulse-dev", PulseMetrics.SERVICE_ENV, "query-eu"),
                        "Pulse-dev",
                        "query-eu"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("environments")
    void create_whenTheEnvironmentNamesNamespaceOrService_isPowertoolsSingletonPrintingThem(
            Map<String, String> env, String namespace, String service) throws Exception {
        Metrics metrics = PulseMetrics.create(env, "query");

        JsonNode doc =
                EmfOutput.during(() -> invoke(QueryMetric.class, metrics, 0)).single();

        assertThat(metrics).isSameAs(MetricsFactory.getMetricsInstance());
        assertThat(doc.get("_aws")
                        .get("CloudWatchMetrics")
                        .get(0)
                        .get("Namespace")
                        .asText())
                .isEqualTo(namespace);
        assertThat(doc.get("Service").asText()).isEqualTo(service);
    }

    @ParameterizedTest
    @EnumSource(Source.class)
    void measure_whenItReturns_theDocumentWasPrintedOnTheHandlerThread(Source source) throws Exception {
        Metrics metrics = source.create("svc");

        EmfOutput out = EmfOutput.during(() -> invoke(QueryMetric.class, metrics, 0));

        assertThat(out.documents()).hasSize(1);
        assertThat(out.writers()).containsExactly(Thread.currentThread());
    }

    @Test
    void measure_whenTheBodyThrows_printsTheDocumentAndRethrows() throws Exception {
        Metrics metrics = Source.LAMBDA_SINGLETON.create("svc");

        EmfOutput out = EmfOutput.during(() -> assertThatThrownBy(() ->
                        InvocationMetrics.measure(QueryMetric.class, metrics, c -> {
                            c.add(QueryMetric.SERIES_REQUESTED, 4);
                            throw new IllegalStateException("the query failed");
                        }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the query failed"));

        JsonNode doc = out.single();
        assertValidEmf(doc);
        assertThat(doc.get("SeriesRequested").asDouble()).isEqualTo(4.0);
        assertThat(units(doc.get("_aws").get("CloudWatchMetrics").get(0))).isEqualTo(expectedUnits(QueryMetric.class));
    }

    @ParameterizedTest
    @EnumSource(Source.class)
    void measure_whenNothingWasCounted_printsEveryMetricAtZero(Source source) throws Exception {
        Metrics metrics = source.create("svc");

        JsonNode doc = EmfOutput.during(() -> InvocationMetrics.measure(IngestMetric.class, metrics, c -> null))
                .single();

        assertValidEmf(doc);
        assertThat(units(doc.get("_aws").get("CloudWatchMetrics").get(0))).isEqualTo(expectedUnits(IngestMetric.class));
        for (IngestMetric m : IngestMetric.values()) {
            assertThat(doc.get(m.metricName()).asDouble()).as(m.metricName()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void measure_whenAGaugeIsNotFinite_printsTheOtherMetricsAndTheNextDocumentOnlyItsOwn(double gauge)
            throws Exception {
        Metrics metrics = Source.LAMBDA_SINGLETON.create("svc");

        EmfOutput out = EmfOutput.during(() -> {
            InvocationMetrics.measure(QueryMetric.class, metrics, c -> {
                c.add(QueryMetric.ITEMS_READ, 7);
                c.set(QueryMetric.QUERY_LATENCY_MS, gauge);
                return null;
            });
            InvocationMetrics.measure(QueryMetric.class, metrics, c -> {
                c.add(QueryMetric.ITEMS_READ, 2);
                c.set(QueryMetric.QUERY_LATENCY_MS, 1.5);
                return null;
            });
        });

        assertThat(out.documents()).hasSize(2);
        JsonNode first = out.documents().get(0);
        assertValidEmf(first);
        assertThat(first.has("QueryLatencyMs")).isFalse();
        assertThat(units(first.get("_aws").get("CloudWatchMetrics").get(0)))
                .doesNotContainKey("QueryLatencyMs")
                .hasSize(QueryMetric.values().length - 1);
        assertThat(first.get("ItemsRead").asDouble()).isEqualTo(7.0);
        JsonNode second = out.documents().get(1);
        assertValidEmf(second);
        assertThat(second.get("ItemsRead").asDouble()).isEqualTo(2.0);
        assertThat(second.get("QueryLatencyMs").asDouble()).isEqualTo(1.5);
    }

    /** Invocation {@code i}: every counter gets a distinct count, every non-Count metric a fractional gauge. */
    private static <M extends Enum<M> & MetricName> void invoke(Class<M> names, Metrics metrics, int i) {
        Map<String, Double> expected = expected(names, i);
        InvocationMetrics.measure(names, metrics, c -> {
            for (M m : names.getEnumConstants()) {
                double v = expected.get(m.metricName());
                if (m.unit().getName().equals("Count")) {
                    c.add(m, (long) v);
                } else {
                    c.set(m, v);
                }
            }
            return null;
        });
    }

    private static <M extends Enum<M> & MetricName> Map<String, Double> expected(Class<M> names, int i) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (M m : names.getEnumConstants()) {
            boolean count = m.unit().getName().equals("Count");
            out.put(m.metricName(), count ? (double) (m.ordinal() * 1_000 + i) : m.ordinal() + i + 0.125);
        }
        return out;
    }

    /** What docs/operations.md and the dashboard name: each constant's CloudWatch name and unit. */
    private static <M extends Enum<M> & MetricName> Map<String, String> expectedUnits(Class<M> names) {
        Map<String, String> out = new TreeMap<>();
        for (M m : names.getEnumConstants()) {
            out.put(m.metricName(), m.unit().getName());
        }
        return out;
    }

    private static Map<String, String> units(JsonNode directive) {
        Map<String, String> units = new TreeMap<>();
        directive
                .get("Metrics")
                .forEach(m -> units.put(m.get("Name").asText(), m.get("Unit").asText()));
        return units;
    }

    /**
     * The EMF specification: {@code _aws.Timestamp} epoch ms, {@code _aws.CloudWatchMetrics[]} of Namespace,
     * Dimensions (arrays of names of top-level strings, at most 30 a set) and Metrics (1 to 100 definitions, each
     * Name a top-level finite number).
     */
    static void assertValidEmf(JsonNode doc) {
        JsonNode aws = doc.get("_aws");
        assertThat(aws.isObject()).isTrue();
        assertThat(aws.get("Timestamp").isIntegralNumber()).isTrue();
        assertThat(aws.get("Timestamp").asLong())
                .isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis());
        assertThat(aws.get("CloudWatchMetrics").isArray()).isTrue();
        for (JsonNode d : aws.get("CloudWatchMetrics")) {
            assertThat(d.get("Namespace").isTextual()).isTrue();
            for (JsonNode set : d.get("Dimensions")) {
                assertThat(set.size()).isBetween(1, 30);
                set.forEach(k -> assertThat(doc.get(k.asText()).isTextual())
                        .as("dimension %s", k)
                        .isTrue());
            }
            assertThat(d.get("Metrics").size()).isBetween(1, 100);
            for (JsonNode m : d.get("Metrics")) {
                JsonNode v = doc.get(m.get("Name").asText());
                assertThat(v).as("metric %s a top-level member", m.get("Name")).isNotNull();
                assertThat(v.isNumber()).isTrue();
                assertThat(Double.isFinite(v.asDouble())).isTrue();
            }
        }
    }
}
