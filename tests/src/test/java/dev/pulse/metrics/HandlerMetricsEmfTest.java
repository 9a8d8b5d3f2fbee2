package dev.pulse.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.compact.CompactMetric;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.loadgen.LoadGenMetric;
import dev.pulse.query.QueryMetric;
import dev.pulse.testing.StdoutCapture;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.MetricsBuilder;

/**
 * Each function's metric enum through the metrics its handler gets ({@link PulseMetrics}), invoked as the handler
 * invokes it ({@link InvocationMetrics#measure}): the printed line parsed with Jackson, checked against the EMF
 * specification, the values recorded, and the document Powertools prints for the same invocation. Surefire runs
 * with {@code AWS_EMF_ENVIRONMENT=Local}.
 */
class HandlerMetricsEmfTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static Stream<Class<? extends Enum<?>>> metricEnums() {
        return Stream.of(IngestMetric.class, CompactMetric.class, QueryMetric.class, LoadGenMetric.class);
    }

    @ParameterizedTest
    @MethodSource("metricEnums")
    <M extends Enum<M> & MetricName> void measure_whenInvokedRepeatedly_printsOneValidDocumentWithEveryMetricOfTheEnum(
            Class<M> names) throws Exception {
        Metrics metrics = PulseMetrics.create("PulseTest", "svc");

        List<String> lines = StdoutCapture.lines(() -> {
            for (int i = 0; i < 3; i++) {
                invoke(names, metrics, i);
            }
        });

        assertThat(lines).hasSize(3);
        for (int i = 0; i < 3; i++) {
            JsonNode doc = JSON.readTree(lines.get(i));
            assertValidEmf(doc);
            JsonNode directive = doc.get("_aws").get("CloudWatchMetrics").get(0);
            assertThat(doc.get("_aws").get("CloudWatchMetrics")).hasSize(1);
            assertThat(directive.get("Namespace").asText()).isEqualTo("PulseTest");
            assertThat(directive.get("Dimensions").toString()).isEqualTo("[[\"Service\"]]");
            assertThat(doc.get("Service").asText()).isEqualTo("svc");
            Map<String, String> units = new TreeMap<>();
            directive.get("Metrics").forEach(m -> units.put(m.get("Name").asText(), m.get("Unit").asText()));
            Map<String, String> expectedUnits = new TreeMap<>();
            for (M m : names.getEnumConstants()) {
                expectedUnits.put(m.metricName(), m.unit().getName());
            }
            assertThat(units).isEqualTo(expectedUnits);
            for (Map.Entry<String, Double> e : expected(names, i).entrySet()) {
                assertThat(doc.get(e.getKey()).isNumber()).isTrue();
                assertThat(doc.get(e.getKey()).asDouble()).as("%s in invocation %d", e.getKey(), i).isEqualTo(e.getValue());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("metricEnums")
    <M extends Enum<M> & MetricName> void measure_whenPrintedFromTheTemplate_equalsWhatPowertoolsPrints(Class<M> names)
            throws Exception {
        Metrics metrics = PulseMetrics.create("PulseTest", "svc");
        Metrics powertools = MetricsBuilder.builder().withNamespace("PulseTest").withService("svc").build();

        List<String> ours = StdoutCapture.lines(() -> {
            invoke(names, metrics, 0);
            invoke(names, metrics, 2);
        });
        List<String> theirs = StdoutCapture.lines(() -> invoke(names, powertools, 2));

        assertThat(normalised(ours.get(1))).isEqualTo(normalised(theirs.get(0)));
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

    /** Without the timestamp, metric definitions in name order, members in name order (both orders are free). */
    private static JsonNode normalised(String line) throws Exception {
        ObjectNode doc = (ObjectNode) JSON.readTree(line);
        ObjectNode aws = (ObjectNode) doc.get("_aws");
        aws.remove("Timestamp");
        for (JsonNode directive : aws.get("CloudWatchMetrics")) {
            List<JsonNode> defs = new ArrayList<>();
            directive.get("Metrics").forEach(defs::add);
            defs.sort((a, b) -> a.get("Name").asText().compareTo(b.get("Name").asText()));
            ((ObjectNode) directive).putArray("Metrics").addAll(defs);
        }
        ObjectNode sorted = JSON.createObjectNode();
        List<String> members = new ArrayList<>();
        doc.fieldNames().forEachRemaining(members::add);
        members.stream().sorted().forEach(n -> sorted.set(n, doc.get(n)));
        return sorted;
    }

    /**
     * The EMF specification: {@code _aws.Timestamp} epoch ms, {@code _aws.CloudWatchMetrics[]} of Namespace,
     * Dimensions (arrays of names of top-level strings, at most 30 a set) and Metrics (1 to 100 definitions, each
     * Name a top-level finite number).
     */
    private static void assertValidEmf(JsonNode doc) {
        JsonNode aws = doc.get("_aws");
        assertThat(aws.isObject()).isTrue();
        assertThat(aws.get("Timestamp").isIntegralNumber()).isTrue();
        assertThat(aws.get("Timestamp").asLong()).isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis());
        assertThat(aws.get("CloudWatchMetrics").isArray()).isTrue();
        for (JsonNode d : aws.get("CloudWatchMetrics")) {
            assertThat(d.get("Namespace").isTextual()).isTrue();
            for (JsonNode set : d.get("Dimensions")) {
                assertThat(set.size()).isBetween(1, 30);
                set.forEach(k -> assertThat(doc.get(k.asText()).isTextual()).as("dimension %s", k).isTrue());
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
