package dev.pulse.metrics;

import static dev.pulse.metrics.EmfMetricsTest.emf;
import static dev.pulse.metrics.EmfMetricsTest.normalised;
import static dev.pulse.metrics.EmfMetricsTest.stdout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.internal.RequestScopedMetricsProxy;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;
import software.amazon.lambda.powertools.metrics.provider.EmfMetricsProvider;
import software.amazon.lambda.powertools.metrics.provider.MetricsProvider;

/**
 * Adversarial review of EmfMetrics / EmfTemplate (review 2). Each test states what "before" (Powertools'
 * RequestScopedMetricsProxy, which MetricsBuilder.build() returned) does and what EmfMetrics does: the defects
 * found (F1 to F6) are asserted fixed, and what held up stays checked against Powertools.
 */
class EmfMetricsAttackTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> LOCAL = Map.of("AWS_EMF_ENVIRONMENT", "Local");

    /** What PulseMetrics returned before: MetricsBuilder's request-scoped proxy, configured the same way. */
    static Metrics before(String namespace, String service) {
        Metrics m = new RequestScopedMetricsProxy(new EmfMetricsProvider());
        m.setNamespace(namespace);
        m.setDefaultDimensions(DimensionSet.of("Service", service));
        return m;
    }

    /** The EMF documents among the lines (Powertools' log lines go to stdout too). */
    private static List<String> emfLines(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("{\"_aws\"")).toList();
    }

    private static void addAll(Metrics m, List<String> names, double[] values) {
        for (int i = 0; i < names.size(); i++) {
            m.addMetric(names.get(i), values[i], MetricUnit.COUNT);
        }
    }

    // ---------------------------------------------------------------- held up: escaping and numbers

    @Test
    void escapingAndNumberFormatting_fastPathLineEqualsPowertoolsLine() throws Exception {
        List<String> names = List.of("q\"uo\\te", "ctl\u0001\u001f\u007f", "ls\u2028ps\u2029", "nl\n\r\t",
                "emoji\ud83d\ude00", "</script>", "\u00e9\u00e8");
        double[] values = {-0.0, 1e-320, 9007199254740993.0, 1e7, 1e21, Double.MIN_VALUE, -9_999_999.0};
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        List<String> a = stdout(() -> {
            for (int i = 0; i < 2; i++) {
                addAll(ours, names, values);
                ours.flush();
            }
        });
        assertThat(ours.hasTemplate()).isTrue();
        Metrics theirs = before("PulseTest", "query");
        List<String> b = stdout(() -> {
            addAll(theirs, names, values);
            theirs.flush();
        });
        assertThat(normalised(a.get(1))).isEqualTo(normalised(b.get(0)));
        // Raw text of every top-level number too (JsonNode equality would hide 1.0E7 vs 10000000 etc.).
        assertThat(rawNumbers(a.get(1))).isEqualTo(rawNumbers(b.get(0))).hasSize(names.size());
    }

    /** Top-level member name to the raw text of its number, as written. */
    private static Map<String, String> rawNumbers(String line) throws Exception {
        Map<String, String> out = new java.util.TreeMap<>();
        try (var p = JSON.getFactory().createParser(line)) {
            p.nextToken();
            while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String name = p.currentName();
                var t = p.nextToken();
                if (t.isNumeric()) {
                    out.put(name, p.getText());
                } else {
                    p.skipChildren();
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- F1: lone surrogate in a metric name

    @Test
    void flush_whenAMetricNameHasALoneSurrogate_printsPowertoolsLinesAndDoesNotThrow() {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        Metrics theirs = before("PulseTest", "query");
        for (Metrics m : List.of(ours, theirs)) {
            List<String> lines = stdout(() -> {
                for (int i = 0; i < 2; i++) {
                    m.addMetric("bad\ud800", i, MetricUnit.COUNT);
                    assertThatCode(m::flush).as("%s flush %d", m, i).doesNotThrowAnyException();
                }
            });
            assertThat(lines).as("%s", m).hasSize(2);
        }
        // Jackson's encoder refuses the name: no template, the shape stays on Powertools.
        assertThat(ours.hasTemplate()).isFalse();
    }

    // ---------------------------------------------------------------- F2: a rejected addMetric poisons the template

    @Test
    void addMetric_whenPowertoolsRejectsTheName_throwsEveryInvocationAndNoDocumentHasIt() throws Exception {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        List<Throwable> errors = new ArrayList<>();
        List<String> lines = stdout(() -> {
            for (int i = 0; i < 3; i++) {
                ours.addMetric("A", i, MetricUnit.COUNT);
                try {
                    ours.addMetric("   ", 7, MetricUnit.COUNT); // blank: aws-embedded-metrics rejects it
                } catch (RuntimeException e) {
                    errors.add(e);
                }
                ours.flush();
            }
        });
        assertThat(errors).hasSize(3);
        assertThat(lines).hasSize(3);
        for (int i = 0; i < 3; i++) {
            JsonNode doc = JSON.readTree(lines.get(i));
            assertThat(doc.has("   ")).as(lines.get(i)).isFalse();
            assertThat(doc.get("_aws").get("CloudWatchMetrics").get(0).get("Metrics")).hasSize(1);
            assertThat(doc.get("A").asDouble()).isEqualTo(i);
        }
    }

    @Test
    void flush_whenANullNameWasRejected_printsTheOtherMetricsAsPowertools() throws Exception {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        Metrics theirs = before("PulseTest", "query");
        for (Metrics m : List.of(ours, theirs)) {
            List<String> lines = stdout(() -> {
                for (int i = 0; i < 2; i++) {
                    m.addMetric("A", 1, MetricUnit.COUNT);
                    assertThat(catchThrowable(() -> m.addMetric(null, 1, MetricUnit.COUNT))).isNotNull();
                    assertThatCode(m::flush).as("%s flush %d", m, i).doesNotThrowAnyException();
                }
            });
            assertThat(lines).as("%s", m).hasSize(2);
            assertThat(JSON.readTree(lines.get(1)).get("A").asDouble()).isEqualTo(1);
        }
    }

    // ---------------------------------------------------------------- F3: a failed publish leaks into the next doc

    @Test
    void measure_whenAGaugeIsNotFinite_nextInvocationsDocumentHasOnlyItsOwnValues() throws Exception {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        List<String> lines = stdout(() -> {
            for (double latency : new double[] {5, Double.NaN, 7}) {
                InvocationMetrics.measure(EmfMetricsTest.TestMetric.class, ours, c -> {
                    c.add(EmfMetricsTest.TestMetric.ITEMS_READ, (long) (latency * 100));
                    c.set(EmfMetricsTest.TestMetric.LATENCY_MS, latency);
                    return null;
                });
            }
        });
        assertThat(lines.stream().filter(l -> l.contains("\"WARN\"") && l.contains("LatencyMs=NaN"))).hasSize(1);
        lines = emfLines(lines);
        assertThat(lines).hasSize(3);
        JsonNode failed = JSON.readTree(lines.get(1));
        assertThat(failed.has("LatencyMs")).isFalse();
        assertThat(failed.get("ItemsRead").isNumber()).as(lines.get(1)).isTrue();
        JsonNode third = JSON.readTree(lines.get(2));
        assertThat(third.get("LatencyMs").isNumber()).as(lines.get(2)).isTrue();
        assertThat(third.get("LatencyMs").asDouble()).isEqualTo(7);
        assertThat(third.get("ItemsRead").isNumber()).as(lines.get(2)).isTrue();
        assertThat(third.get("ItemsRead").asDouble()).isEqualTo(700);
    }

    @Test
    void addMetric_whenThePreviousRequestNeverFlushed_itsValuesAreNotInThisRequestsDocument() throws Exception {
        String property = "com.amazonaws.xray.traceHeader";
        String saved = System.getProperty(property);
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        List<String> lines;
        try {
            lines = stdout(() -> {
                System.setProperty(property, "Root=1-0-1;Sampled=0");
                ours.addMetric("A", 1, MetricUnit.COUNT);
                ours.addMetric("B", 1, MetricUnit.COUNT);
                ours.addMetric("C", 1, MetricUnit.COUNT);
                ours.flush();
                // request 2: as a publish that fails after A (a caller without InvocationMetrics): no flush.
                System.setProperty(property, "Root=1-0-2;Sampled=0");
                ours.addMetric("A", 1000, MetricUnit.COUNT);
                catchThrowable(() -> ours.addMetric("B", Double.NaN, MetricUnit.COUNT));
                // request 3, normal; then request 4 flushes only.
                System.setProperty(property, "Root=1-0-3;Sampled=0");
                ours.addMetric("A", 3, MetricUnit.COUNT);
                ours.addMetric("B", 3, MetricUnit.COUNT);
                ours.addMetric("C", 3, MetricUnit.COUNT);
                ours.flush();
                System.setProperty(property, "Root=1-0-4;Sampled=0");
                ours.addMetric("A", 4000, MetricUnit.COUNT);
                System.setProperty(property, "Root=1-0-5;Sampled=0");
                ours.flush();
            });
        } finally {
            if (saved == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, saved);
            }
        }
        // Request 5 added nothing: Powertools prints no document for it (and request 4's A is not printed).
        assertThat(emfLines(lines)).hasSize(2);
        JsonNode third = JSON.readTree(lines.get(1));
        assertThat(third.get("A").toString()).isEqualTo("3.0");
        assertThat(ours.hasTemplate()).isTrue();
    }

    // ---------------------------------------------------------------- F4: concurrent add during flush mislabels

    @Test
    void flush_whenAValueIsAddedWhilePowertoolsPrints_printsItUnderItsOwnName() throws Exception {
        AtomicReference<EmfMetrics> self = new AtomicReference<>();
        AtomicReference<Runnable> afterPowertoolsFlush = new AtomicReference<>(() -> { });
        EmfMetricsProvider real = new EmfMetricsProvider();
        MetricsProvider hooked = () -> {
            Metrics delegate = real.getMetricsInstance();
            return (Metrics) java.lang.reflect.Proxy.newProxyInstance(Metrics.class.getClassLoader(),
                    new Class<?>[] {Metrics.class}, (p, method, args) -> {
                        Object r;
                        try {
                            r = method.invoke(delegate, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                        if (method.getName().equals("flush")) {
                            afterPowertoolsFlush.get().run();
                        }
                        return r;
                    });
        };
        EmfMetrics ours = new EmfMetrics(hooked, LOCAL);
        ours.setNamespace("PulseTest");
        ours.setDefaultDimensions(DimensionSet.of("Service", "query"));
        self.set(ours);

        List<String> lines = stdout(() -> {
            ours.addMetric("Requests", 1, MetricUnit.COUNT);
            ours.flush(); // Powertools; template [Requests/Count]
            ours.addMetric("Requests", 2, MetricUnit.COUNT);
            ours.flush(); // template
            // An invocation with another metric: Powertools prints it, then learn() makes [Errors/Count].
            // While Powertools is printing (monitor not held), an SDK callback thread adds Requests=42 for the
            // next invocation.
            afterPowertoolsFlush.set(() -> {
                afterPowertoolsFlush.set(() -> { });
                Thread t = new Thread(() -> self.get().addMetric("Requests", 42, MetricUnit.COUNT));
                t.start();
                try {
                    t.join();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            ours.addMetric("Errors", 9, MetricUnit.COUNT);
            ours.flush();
            // Next invocation: nothing else added; flush.
            ours.flush();
        });
        assertThat(lines).hasSize(4);
        JsonNode last = JSON.readTree(lines.get(3));
        assertThat(last.has("Errors")).as(lines.get(3)).isFalse();
        assertThat(last.get("Requests").asDouble()).isEqualTo(42);
        assertThat(last.get("_aws").get("CloudWatchMetrics").get(0).get("Metrics").get(0).get("Name").asText())
                .isEqualTo("Requests");
    }

    // ---------------------------------------------------------------- F5: afterRestore during an invocation

    @Test
    void afterRestore_whenAnInvocationIsOnTheTemplate_itIsPrintedByPowertoolsWithItsNames() throws Exception {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        List<String> lines = stdout(() -> {
            ours.addMetric("A", 1, MetricUnit.COUNT);
            ours.addMetric("B", 1, MetricUnit.COUNT);
            ours.flush();
            ours.addMetric("A", 2, MetricUnit.COUNT); // on the template
            ours.afterRestore(null);
            assertThatCode(() -> ours.addMetric("B", 2, MetricUnit.COUNT)).doesNotThrowAnyException();
            assertThatCode(ours::flush).doesNotThrowAnyException();
            ours.addMetric("A", 3, MetricUnit.COUNT);
            ours.addMetric("B", 3, MetricUnit.COUNT);
            ours.flush();
        });
        assertThat(lines).hasSize(3);
        for (int i = 1; i < 3; i++) {
            JsonNode doc = JSON.readTree(lines.get(i));
            assertThat(doc.get("A").asDouble()).as(lines.get(i)).isEqualTo(i + 1);
            assertThat(doc.get("B").asDouble()).as(lines.get(i)).isEqualTo(i + 1);
        }
        assertThat(ours.hasTemplate()).isTrue();
    }

    // ---------------------------------------------------------------- F6: clearDefaultDimensions scope

    @Test
    void clearDefaultDimensions_whenCalledDuringAnInvocation_lastsThatInvocationOnlyAsPowertools() throws Exception {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        Metrics theirs = before("PulseTest", "query");
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        List<Map<String, String>> defaultsOurs = new ArrayList<>();
        List<Map<String, String>> defaultsTheirs = new ArrayList<>();
        for (Metrics m : List.of(ours, theirs)) {
            List<Map<String, String>> defaults = m == ours ? defaultsOurs : defaultsTheirs;
            List<String> out = stdout(() -> {
                m.addMetric("A", 1, MetricUnit.COUNT);
                m.clearDefaultDimensions();
                defaults.add(m.getDefaultDimensions().getDimensions());
                m.addDimension(DimensionSet.of("Route", "x"));
                defaults.add(m.getDefaultDimensions().getDimensions());
                m.flush();
                defaults.add(m.getDefaultDimensions().getDimensions());
                m.addMetric("A", 2, MetricUnit.COUNT);
                m.flush();
            });
            (m == ours ? a : b).addAll(out);
        }
        assertThat(a).hasSameSizeAs(b).hasSize(2);
        for (int i = 0; i < a.size(); i++) {
            assertThat(normalised(a.get(i))).as("%s vs %s", a.get(i), b.get(i)).isEqualTo(normalised(b.get(i)));
        }
        assertThat(JSON.readTree(a.get(1)).get("Service").asText()).isEqualTo("query");
        assertThat(defaultsOurs).isEqualTo(defaultsTheirs);
    }

    // ---------------------------------------------------------------- held up: other fallbacks equal Powertools

    @Test
    void fallbacks_unitOrderDimensionMetadataTimestampNamespace_equalPowertools() throws Exception {
        List<java.util.function.Consumer<Metrics>> invocations = List.of(
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); m.addMetric("B", 2, MetricUnit.BYTES); },
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); m.addMetric("B", 2, MetricUnit.BYTES); },
                m -> { m.addMetric("A", 1, MetricUnit.MILLISECONDS); m.addMetric("B", 2, MetricUnit.BYTES); },
                m -> { m.addMetric("B", 2, MetricUnit.BYTES); m.addMetric("A", 1, MetricUnit.COUNT); },
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); m.addMetadata("k", "v"); m.addMetric("B", 2, MetricUnit.BYTES); },
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); m.addDimension(DimensionSet.of("R", "x")); m.addMetric("B", 2, MetricUnit.BYTES); },
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); m.addMetric("B", 2, MetricUnit.BYTES); m.addMetric("A", 5, MetricUnit.COUNT); },
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); },
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); m.addMetric("B", 2, MetricUnit.BYTES); m.setNamespace("Other"); },
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); m.addMetric("B", 2, MetricUnit.BYTES); },
                m -> { m.addMetric("A", 1, MetricUnit.COUNT); m.addMetric("B", 2, MetricUnit.BYTES,
                        software.amazon.lambda.powertools.metrics.model.MetricResolution.HIGH); });
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        Metrics theirs = before("PulseTest", "query");
        for (int i = 0; i < invocations.size(); i++) {
            var inv = invocations.get(i);
            List<String> a = stdout(() -> { inv.accept(ours); ours.flush(); });
            List<String> b = stdout(() -> { inv.accept(theirs); theirs.flush(); });
            assertThat(a).as("invocation %d", i).hasSameSizeAs(b);
            for (int j = 0; j < a.size(); j++) {
                assertThat(normalised(a.get(j))).as("invocation %d: %s vs %s", i, a.get(j), b.get(j))
                        .isEqualTo(normalised(b.get(j)));
            }
        }
    }
}
