package dev.pulse.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.cloudwatchlogs.emf.exception.InvalidMetricException;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;
import software.amazon.lambda.powertools.metrics.provider.EmfMetricsProvider;

/**
 * The end-of-invocation EMF document as printed: parsed with Jackson and checked against the EMF specification
 * (CloudWatch "Embedded metric format specification"), against the values recorded, and against the document
 * Powertools itself prints for the same calls. Surefire runs with {@code AWS_EMF_ENVIRONMENT=Local}.
 */
class EmfMetricsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> LOCAL = Map.of("AWS_EMF_ENVIRONMENT", "Local");

    enum TestMetric implements MetricName {
        LATENCY_MS {
            @Override
            public MetricUnit unit() {
                return MetricUnit.MILLISECONDS;
            }
        },
        ITEMS_READ,
        RATE {
            @Override
            public MetricUnit unit() {
                return MetricUnit.COUNT_SECOND;
            }
        },
        COLD_START
    }

    @Test
    void flush_whenInvokedRepeatedly_printsOneValidDocumentPerInvocationWithItsValues() throws Exception {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");

        List<String> lines = stdout(() -> {
            for (int i = 0; i < 4; i++) {
                invoke(metrics, i);
            }
        });

        assertThat(lines).hasSize(4);
        assertThat(metrics.hasTemplate()).isTrue();
        for (int i = 0; i < 4; i++) {
            JsonNode doc = JSON.readTree(lines.get(i));
            assertValidEmf(doc);
            JsonNode directive = doc.get("_aws").get("CloudWatchMetrics").get(0);
            assertThat(directive.get("Namespace").asText()).isEqualTo("PulseTest");
            assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"Service\"]]");
            assertThat(doc.get("Service").asText()).isEqualTo("query");
            assertThat(units(directive)).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "LatencyMs", "Milliseconds", "ItemsRead", "Count", "Rate", "Count/Second", "ColdStart", "Count"));
            assertThat(doc.get("LatencyMs").asDouble()).isEqualTo(latency(i));
            assertThat(doc.get("ItemsRead").asDouble()).isEqualTo(1_000L * i);
            assertThat(doc.get("Rate").asDouble()).isEqualTo(12.5 * i);
            assertThat(doc.get("ColdStart").asDouble()).isEqualTo(i == 0 ? 1 : 0);
            assertThat(doc.get("_aws").get("Timestamp").asLong())
                    .isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis());
        }
    }

    @Test
    void flush_whenPrintedFromTheTemplate_equalsPowertoolsDocumentButForTheTimestamp() throws Exception {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");
        Metrics powertools = powertools("PulseTest", "query");

        List<String> ours = stdout(() -> {
            invoke(metrics, 0);
            invoke(metrics, 3);
        });
        List<String> theirs = stdout(() -> invoke(powertools, 3));

        assertThat(ours).hasSize(2);
        assertThat(theirs).hasSize(1);
        assertThat(normalised(ours.get(1))).isEqualTo(normalised(theirs.get(0)));
        // The first document of a container is Powertools' own.
        assertThat(normalised(ours.get(0))).isNotEqualTo(normalised(ours.get(1)));
    }

    @Test
    void flush_whenPrintedFromTheTemplate_writesTheLineInOneWrite() {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");
        stdout(() -> invoke(metrics, 0));
        AtomicInteger writes = new AtomicInteger();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        OutputStream counting = new OutputStream() {
            @Override
            public void write(int b) {
                writes.incrementAndGet();
                bytes.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                writes.incrementAndGet();
                bytes.write(b, off, len);
            }
        };
        PrintStream original = System.out;
        System.setOut(new PrintStream(counting, false, StandardCharsets.UTF_8));
        try {
            invoke(metrics, 1);
        } finally {
            System.setOut(original);
        }

        assertThat(writes.get()).isEqualTo(1);
        String line = bytes.toString(StandardCharsets.UTF_8);
        assertThat(line).endsWith("}\n").startsWith("{\"_aws\":{\"Timestamp\":");
        assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
    }

    @Test
    void flush_whenInLambda_addsTheEnvironmentPropertiesAwsEmbeddedMetricsAdds() throws Exception {
        Map<String, String> env = new HashMap<>(Map.of(
                "AWS_LAMBDA_FUNCTION_NAME", "pulse-query",
                "AWS_EXECUTION_ENV", "AWS_Lambda_java21",
                "AWS_LAMBDA_FUNCTION_VERSION", "$LATEST",
                "AWS_LAMBDA_LOG_STREAM_NAME", "2026/11/22/[$LATEST]abc",
                "_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"));
        EmfMetrics metrics = emf(env, "PulseTest", "query");

        List<String> lines = stdout(() -> {
            invoke(metrics, 0);
            invoke(metrics, 1);
            env.put("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272794;Parent=53995c3f42cd8ad8;Sampled=0");
            invoke(metrics, 2);
        });

        // As aws-embedded-metrics 4.1.2's LambdaEnvironment (seen in a Lambda-like environment before this writer).
        JsonNode sampled = JSON.readTree(lines.get(1));
        assertValidEmf(sampled);
        assertThat(sampled.get("executionEnvironment").asText()).isEqualTo("AWS_Lambda_java21");
        assertThat(sampled.get("functionVersion").asText()).isEqualTo("$LATEST");
        assertThat(sampled.get("logStreamId").asText()).isEqualTo("2026/11/22/[$LATEST]abc");
        assertThat(sampled.get("traceId").asText()).isEqualTo(
                "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1");
        JsonNode unsampled = JSON.readTree(lines.get(2));
        assertValidEmf(unsampled);
        assertThat(unsampled.has("traceId")).isFalse();
        assertThat(unsampled.get("logStreamId").asText()).isEqualTo("2026/11/22/[$LATEST]abc");
    }

    @Test
    void render_whenStringsNeedEscaping_parsesBackToTheSameStrings() throws Exception {
        String value = "q\"uote\\back\\\\slash \u00e9\u2603\ud83d\ude00 tab\t nl\n ctl\u0001 </script>";
        Map<String, String> dims = new LinkedHashMap<>();
        dims.put("Service", value);
        dims.put("k\"ey\\", "v");
        EmfTemplate t = EmfTemplate.of("ns/\"x\\\u00e9", dims, Map.of("logStreamId", "2026/11/22/[$LATEST]\u00e9\"\\"),
                List.of("Na\"me\\\u2603", "Plain"), List.of(MetricUnit.COUNT, MetricUnit.PERCENT), true);

        String line = new String(t.render(1_763_740_800_123L, new double[] {1, 2.5}, "Root=\"\\\u00e9;Sampled=1"),
                StandardCharsets.UTF_8);

        assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
        JsonNode doc = JSON.readTree(line);
        assertValidEmf(doc);
        JsonNode directive = doc.get("_aws").get("CloudWatchMetrics").get(0);
        assertThat(directive.get("Namespace").asText()).isEqualTo("ns/\"x\\\u00e9");
        assertThat(directive.get("Dimensions").get(0).get(1).asText()).isEqualTo("k\"ey\\");
        assertThat(doc.get("Service").asText()).isEqualTo(value);
        assertThat(doc.get("k\"ey\\").asText()).isEqualTo("v");
        assertThat(doc.get("logStreamId").asText()).isEqualTo("2026/11/22/[$LATEST]\u00e9\"\\");
        assertThat(doc.get("traceId").asText()).isEqualTo("Root=\"\\\u00e9;Sampled=1");
        assertThat(doc.get("Na\"me\\\u2603").asDouble()).isEqualTo(1);
        assertThat(doc.get("Plain").asDouble()).isEqualTo(2.5);
    }

    @Test
    void flush_whenTheServiceHasQuotesAndBackslashes_printsWhatPowertoolsPrints() throws Exception {
        // Powertools accepts printable ASCII without spaces in a dimension value; non-ASCII it rejects.
        String service = "q\"u\\o/te'";
        EmfMetrics metrics = emf(LOCAL, "PulseTest", service);

        List<String> ours = stdout(() -> {
            invoke(metrics, 0);
            invoke(metrics, 1);
        });
        List<String> theirs = stdout(() -> invoke(powertools("PulseTest", service), 1));

        assertThat(JSON.readTree(ours.get(1)).get("Service").asText()).isEqualTo(service);
        assertThat(normalised(ours.get(1))).isEqualTo(normalised(theirs.get(0)));
    }

    @ParameterizedTest
    @EnumSource(MetricUnit.class)
    void flush_whenAMetricHasThisUnit_printsTheUnitPowertoolsPrints(MetricUnit unit) throws Exception {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");
        Metrics powertools = powertools("PulseTest", "query");

        List<String> ours = stdout(() -> {
            for (int i = 0; i < 2; i++) {
                metrics.addMetric("M", 3, unit);
                metrics.flush();
            }
        });
        List<String> theirs = stdout(() -> {
            powertools.addMetric("M", 3, unit);
            powertools.flush();
        });

        assertValidEmf(JSON.readTree(ours.get(1)));
        assertThat(metrics.hasTemplate()).isTrue();
        assertThat(normalised(ours.get(1))).isEqualTo(normalised(theirs.get(0)));
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void addMetric_whenTheValueIsNotFinite_throwsAsAwsEmbeddedMetricsDoes(double value) {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");
        stdout(() -> invoke(metrics, 0));

        assertThatThrownBy(() -> metrics.addMetric("LatencyMs", value, MetricUnit.MILLISECONDS))
                .isInstanceOf(InvalidMetricException.class).hasMessage("Metric value is not a number");
        assertThatThrownBy(() -> powertools("PulseTest", "query").addMetric("LatencyMs", value, MetricUnit.MILLISECONDS))
                .isInstanceOf(InvalidMetricException.class).hasMessage("Metric value is not a number");
    }

    @Test
    void measure_whenAGaugeIsNotFinite_printsTheOtherMetricsWithoutIt() throws Exception {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");
        List<String> lines = stdout(() -> {
            invoke(metrics, 0);
            assertThatCode(() -> InvocationMetrics.measure(TestMetric.class, metrics, c -> {
                c.add(TestMetric.ITEMS_READ, 3);
                c.set(TestMetric.LATENCY_MS, Double.NaN);
                return null;
            })).doesNotThrowAnyException();
        }).stream().filter(l -> l.startsWith("{\"_aws\"")).toList();

        assertThat(lines).hasSize(2);
        JsonNode doc = JSON.readTree(lines.get(1));
        assertValidEmf(doc);
        assertThat(doc.has("LatencyMs")).isFalse();
        assertThat(doc.get("ItemsRead").asDouble()).isEqualTo(3);
    }

    @Test
    void flush_whenAnInvocationAddsADimension_printsPowertoolsDocumentAndKeepsTheTemplateForTheNext() throws Exception {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");

        List<String> lines = stdout(() -> {
            invoke(metrics, 0);
            metrics.addDimension(DimensionSet.of("Route", "query"));
            invoke(metrics, 1);
            invoke(metrics, 2);
        });

        JsonNode withRoute = JSON.readTree(lines.get(1));
        assertValidEmf(withRoute);
        assertThat(withRoute.get("Route").asText()).isEqualTo("query");
        assertThat(withRoute.get("LatencyMs").asDouble()).isEqualTo(latency(1));
        JsonNode next = JSON.readTree(lines.get(2));
        assertValidEmf(next);
        assertThat(next.has("Route")).isFalse();
        assertThat(next.get("LatencyMs").asDouble()).isEqualTo(latency(2));
        assertThat(metrics.hasTemplate()).isTrue();
    }

    @Test
    void flush_whenTheMetricsChange_printsPowertoolsDocumentThenTemplatesTheNewSet() throws Exception {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");

        List<String> lines = stdout(() -> {
            invoke(metrics, 0);
            invoke(metrics, 1);
            for (int i = 0; i < 2; i++) {
                metrics.addMetric("Other", 7 + i, MetricUnit.BYTES);
                metrics.flush();
            }
            invoke(metrics, 2);
        });

        assertThat(lines).hasSize(5);
        for (String line : lines) {
            assertValidEmf(JSON.readTree(line));
        }
        assertThat(JSON.readTree(lines.get(2)).get("Other").asDouble()).isEqualTo(7);
        assertThat(JSON.readTree(lines.get(3)).get("Other").asDouble()).isEqualTo(8);
        assertThat(JSON.readTree(lines.get(3)).has("LatencyMs")).isFalse();
        assertThat(JSON.readTree(lines.get(4)).get("LatencyMs").asDouble()).isEqualTo(latency(2));
    }

    @Test
    void setDefaultDimensions_whenChangedBetweenInvocations_theNextDocumentHasTheNewDimensions() throws Exception {
        EmfMetrics metrics = emf(LOCAL, "PulseTest", "query");

        List<String> lines = stdout(() -> {
            invoke(metrics, 0);
            invoke(metrics, 1);
            metrics.setDefaultDimensions(DimensionSet.of("Service", "other", "Stage", "prod"));
            invoke(metrics, 2);
            invoke(metrics, 3);
        });

        for (int i = 2; i < 4; i++) {
            JsonNode doc = JSON.readTree(lines.get(i));
            assertValidEmf(doc);
            assertThat(doc.get("Service").asText()).isEqualTo("other");
            assertThat(doc.get("Stage").asText()).isEqualTo("prod");
            assertThat(doc.get("_aws").get("CloudWatchMetrics").get(0).get("Dimensions").toString())
                    .isEqualTo("[[\"Service\",\"Stage\"]]");
        }
    }

    @Test
    void flush_whenMetricsAreDisabled_printsNothing() {
        Map<String, String> env = new HashMap<>(LOCAL);
        EmfMetrics metrics = emf(env, "PulseTest", "query");
        List<String> lines = stdout(() -> {
            invoke(metrics, 0);
            env.put("POWERTOOLS_METRICS_DISABLED", "true");
            invoke(metrics, 1);
        });

        assertThat(lines).hasSize(1);
    }

    @Test
    void of_whenMoreThanAHundredMetricsOrANameCollides_makesNoTemplate() {
        List<String> many = IntStream.range(0, 101).mapToObj(i -> "M" + i).toList();
        List<MetricUnit> units = many.stream().map(n -> MetricUnit.COUNT).toList();
        assertThat(EmfTemplate.of("ns", Map.of("Service", "s"), Map.of(), many, units, false)).isNull();
        assertThat(EmfTemplate.of("ns", Map.of("Service", "s"), Map.of(), many.subList(0, 100), units.subList(0, 100), false))
                .isNotNull();
        assertThat(EmfTemplate.of("ns", Map.of("Service", "s"), Map.of(), List.of("Service"), List.of(MetricUnit.COUNT), false))
                .isNull();
        assertThat(EmfTemplate.of("ns", Map.of("Service", "s"), Map.of(), List.of("traceId"), List.of(MetricUnit.COUNT), true))
                .isNull();
        assertThat(EmfTemplate.of("ns", Map.of("Service", "s"), Map.of(), List.of("A", "A"),
                List.of(MetricUnit.COUNT, MetricUnit.COUNT), false)).isNull();
    }

    @Test
    void writeDouble_whenAnyFiniteValue_writesWhatDoubleToStringWrites() {
        SplittableRandom random = new SplittableRandom(14);
        List<Double> values = new ArrayList<>(List.of(0.0, -0.0, 1.0, -1.0, 9_999_999.0, 10_000_000.0, -9_999_999.0,
                -10_000_000.0, 0.001, 1e-4, 123.456, Double.MAX_VALUE, Double.MIN_VALUE, -Double.MAX_VALUE,
                (double) Long.MAX_VALUE, (double) Long.MIN_VALUE, 4.35, 1e21, 0.1 + 0.2));
        for (int i = 0; i < 20_000; i++) {
            values.add((double) random.nextLong(-20_000_000L, 20_000_000L));
            values.add(random.nextDouble(-1e9, 1e9));
            values.add(Double.longBitsToDouble(random.nextLong()));
        }
        byte[] buf = new byte[32];
        for (double v : values) {
            if (!Double.isFinite(v)) {
                continue;
            }
            int n = EmfTemplate.writeDouble(v, buf, 0);
            assertThat(new String(buf, 0, n, StandardCharsets.US_ASCII)).as("%s", v).isEqualTo(Double.toString(v));
        }
    }

    @Test
    void writeLong_whenAnyLong_writesItsDecimalDigits() {
        byte[] buf = new byte[24];
        for (long v : new long[] {0, 1, -1, 9, 10, -10, 1_795_316_367_775L, Long.MAX_VALUE, Long.MIN_VALUE}) {
            int n = EmfTemplate.writeLong(v, buf, 0);
            assertThat(new String(buf, 0, n, StandardCharsets.US_ASCII)).isEqualTo(Long.toString(v));
        }
    }

    // ---- helpers ----

    static EmfMetrics emf(Map<String, String> env, String namespace, String service) {
        EmfMetrics m = new EmfMetrics(new EmfMetricsProvider(), env);
        m.setNamespace(namespace);
        m.setDefaultDimensions(DimensionSet.of("Service", service));
        return m;
    }

    /** Today's path: a Powertools EMF logger with the same configuration. */
    static Metrics powertools(String namespace, String service) {
        Metrics m = new EmfMetricsProvider().getMetricsInstance();
        m.setNamespace(namespace);
        m.setDefaultDimensions(DimensionSet.of("Service", service));
        return m;
    }

    private static double latency(int i) {
        return 5.25 + i * 1.5;
    }

    /** One invocation as a handler makes it: counters and a gauge, published and flushed by measure. */
    private static void invoke(Metrics metrics, int i) {
        InvocationMetrics.measure(TestMetric.class, metrics, c -> {
            c.add(TestMetric.ITEMS_READ, 1_000L * i);
            c.set(TestMetric.RATE, 12.5 * i);
            c.add(TestMetric.COLD_START, i == 0 ? 1 : 0);
            c.set(TestMetric.LATENCY_MS, latency(i));
            return null;
        });
    }

    /** The lines {@code body} printed to stdout. */
    static List<String> stdout(Runnable body) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setOut(original);
        }
        String all = captured.toString(StandardCharsets.UTF_8);
        return all.isEmpty() ? List.of() : List.of(all.split("\n"));
    }

    private static Map<String, String> units(JsonNode directive) {
        Map<String, String> units = new TreeMap<>();
        directive.get("Metrics").forEach(m -> units.put(m.get("Name").asText(), m.get("Unit").asText()));
        return units;
    }

    /** The document without its timestamp and with its metric definitions in name order (their order is free). */
    static JsonNode normalised(String line) throws Exception {
        ObjectNode doc = (ObjectNode) JSON.readTree(line);
        ObjectNode aws = (ObjectNode) doc.get("_aws");
        aws.remove("Timestamp");
        for (JsonNode directive : aws.get("CloudWatchMetrics")) {
            List<JsonNode> defs = new ArrayList<>();
            directive.get("Metrics").forEach(defs::add);
            defs.sort((a, b) -> a.get("Name").asText().compareTo(b.get("Name").asText()));
            ((ObjectNode) directive).putArray("Metrics").addAll(defs);
        }
        // Members compare as a map: JSON object members have no order.
        ObjectNode sorted = JSON.createObjectNode();
        List<String> names = new ArrayList<>();
        doc.fieldNames().forEachRemaining(names::add);
        names.stream().sorted().forEach(n -> sorted.set(n, doc.get(n)));
        return sorted;
    }

    /**
     * The EMF specification's rules for a document: {@code _aws} an object with an integer {@code Timestamp} (epoch
     * ms) and a {@code CloudWatchMetrics} array of directives; each directive a {@code Namespace} string, a
     * {@code Dimensions} array of arrays of strings, each naming a top-level string member (at most 30 a set), and a
     * {@code Metrics} array (at most 100) of objects with a {@code Name} naming a top-level number (or array of
     * numbers), and an optional {@code Unit} from CloudWatch's list.
     */
    static void assertValidEmf(JsonNode doc) {
        assertThat(doc.isObject()).isTrue();
        JsonNode aws = doc.get("_aws");
        assertThat(aws).isNotNull();
        assertThat(aws.isObject()).isTrue();
        assertThat(aws.get("Timestamp").isIntegralNumber()).as("_aws.Timestamp an integer").isTrue();
        assertThat(aws.get("Timestamp").asLong()).isPositive();
        JsonNode directives = aws.get("CloudWatchMetrics");
        assertThat(directives.isArray()).isTrue();
        assertThat(directives.size()).isPositive();
        for (JsonNode d : directives) {
            assertThat(d.get("Namespace").isTextual()).isTrue();
            assertThat(d.get("Namespace").asText()).isNotBlank();
            assertThat(d.get("Dimensions").isArray()).isTrue();
            for (JsonNode set : d.get("Dimensions")) {
                assertThat(set.isArray()).isTrue();
                assertThat(set.size()).isLessThanOrEqualTo(30);
                for (JsonNode key : set) {
                    assertThat(key.isTextual()).isTrue();
                    assertThat(doc.get(key.asText())).as("dimension %s a top-level string", key).isNotNull();
                    assertThat(doc.get(key.asText()).isTextual()).isTrue();
                }
            }
            JsonNode metrics = d.get("Metrics");
            assertThat(metrics.isArray()).isTrue();
            assertThat(metrics.size()).isBetween(1, 100);
            for (JsonNode m : metrics) {
                String name = m.get("Name").asText();
                assertThat(name).isNotBlank();
                JsonNode value = doc.get(name);
                assertThat(value).as("metric %s a top-level member", name).isNotNull();
                if (value.isArray()) {
                    value.forEach(v -> assertThat(v.isNumber()).isTrue());
                } else {
                    assertThat(value.isNumber()).as("metric %s a number", name).isTrue();
                    assertThat(Double.isFinite(value.asDouble())).isTrue();
                }
                if (m.has("Unit")) {
                    assertThat(CLOUDWATCH_UNITS).contains(m.get("Unit").asText());
                }
            }
        }
        Iterator<String> names = doc.fieldNames();
        while (names.hasNext()) {
            assertThat(names.next()).isNotEmpty();
        }
    }

    static final List<String> CLOUDWATCH_UNITS = List.of("Seconds", "Microseconds", "Milliseconds", "Bytes",
            "Kilobytes", "Megabytes", "Gigabytes", "Terabytes", "Bits", "Kilobits", "Megabits", "Gigabits", "Terabits",
            "Percent", "Count", "Bytes/Second", "Kilobytes/Second", "Megabytes/Second", "Gigabytes/Second",
            "Terabytes/Second", "Bits/Second", "Kilobits/Second", "Megabits/Second", "Gigabits/Second",
            "Terabits/Second", "Count/Second", "None");
}
