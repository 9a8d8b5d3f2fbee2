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
 * RequestScopedMetricsProxy, which MetricsBuilder.build() returned) does and what EmfMetrics does. The tests that
 * document a defect assert the current (defective) behaviour, so the suite stays green; the message says what
 * should happen instead.
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
    void loneSurrogateName_flushThrowsAfterPowertoolsPrinted() {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        List<String> lines = stdout(() -> {
            ours.addMetric("bad\ud800", 1, MetricUnit.COUNT);
            thrown.set(catchThrowable(ours::flush));
        });
        Metrics theirs = before("PulseTest", "query");
        List<String> b = stdout(() -> {
            theirs.addMetric("bad\ud800", 1, MetricUnit.COUNT);
            theirs.flush();
        });
        System.err.println("F1 EmfMetrics lines=" + lines + " thrown=" + thrown.get());
        System.err.println("F1 Powertools lines=" + b);
        // Defect: Powertools' flush returns normally; EmfMetrics.flush throws from learn() -> EmfTemplate.of -> quote.
        assertThat(thrown.get()).as("flush should not throw where Powertools does not").isNotNull();
    }

    // ---------------------------------------------------------------- F2: a rejected addMetric poisons the template

    @Test
    void invalidNameRejectedByPowertools_isRecordedInTheTemplate_andThenAcceptedSilently() throws Exception {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        List<Throwable> errors = new ArrayList<>();
        List<String> lines = stdout(() -> {
            for (int i = 0; i < 2; i++) {
                ours.addMetric("A", i, MetricUnit.COUNT);
                try {
                    ours.addMetric("   ", 7, MetricUnit.COUNT); // blank: aws-embedded-metrics rejects it
                } catch (RuntimeException e) {
                    errors.add(e);
                }
                ours.flush();
            }
        });
        System.err.println("F2 errors=" + errors + "\nF2 lines=" + lines);
        // Invocation 1: Powertools threw and printed A only. Invocation 2: no exception, and a blank metric name
        // is printed from the template (CloudWatch rejects a blank MetricName).
        assertThat(errors).hasSize(1);
        JsonNode second = JSON.readTree(lines.get(1));
        assertThat(second.has("   ")).isTrue();
        assertThat(second.get("_aws").get("CloudWatchMetrics").get(0).get("Metrics").toString()).contains("\"   \"");
    }

    @Test
    void nullNameRejectedByPowertools_thenFlushThrowsNpe() {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        stdout(() -> {
            ours.addMetric("A", 1, MetricUnit.COUNT);
            Throwable add = catchThrowable(() -> ours.addMetric(null, 1, MetricUnit.COUNT));
            System.err.println("F2b add(null) threw " + add);
            thrown.set(catchThrowable(ours::flush));
        });
        System.err.println("F2b flush threw " + thrown.get());
        Metrics theirs = before("PulseTest", "query");
        stdout(() -> {
            theirs.addMetric("A", 1, MetricUnit.COUNT);
            catchThrowable(() -> theirs.addMetric(null, 1, MetricUnit.COUNT));
            assertThatCode(theirs::flush).doesNotThrowAnyException();
        });
        assertThat(thrown.get()).isInstanceOf(NullPointerException.class);
    }

    // ---------------------------------------------------------------- F3: a failed publish leaks into the next doc

    @Test
    void publishAbortedByNaN_leftoverValuesAreMergedIntoTheNextInvocationsDocument() throws Exception {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        List<String> lines = stdout(() -> {
            ours.addMetric("A", 1, MetricUnit.COUNT);
            ours.addMetric("B", 1, MetricUnit.COUNT);
            ours.addMetric("C", 1, MetricUnit.COUNT);
            ours.flush();
            // invocation 2: as InvocationMetrics.publishTo when a gauge is NaN: A added, B throws, no flush.
            ours.addMetric("A", 1000, MetricUnit.COUNT);
            catchThrowable(() -> ours.addMetric("B", Double.NaN, MetricUnit.COUNT));
            // invocation 3, normal.
            ours.addMetric("A", 3, MetricUnit.COUNT);
            ours.addMetric("B", 3, MetricUnit.COUNT);
            ours.addMetric("C", 3, MetricUnit.COUNT);
            ours.flush();
        });
        System.err.println("F3 lines=" + lines);
        JsonNode third = JSON.readTree(lines.get(1));
        // Invocation 2's A (1000) is in invocation 3's document: A: [1000.0, 3.0].
        assertThat(third.get("A").toString()).isEqualTo("[1000.0,3.0]");
    }

    // ---------------------------------------------------------------- F4: concurrent add during flush mislabels

    @Test
    void addDuringFlushOfAnOffTemplateInvocation_valueIsPrintedUnderAnotherMetricsName() throws Exception {
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
        System.err.println("F4 lines=" + lines);
        JsonNode last = JSON.readTree(lines.get(3));
        // Requests=42 was added; the document says Errors=42 and has no Requests.
        assertThat(last.has("Requests")).isFalse();
        assertThat(last.get("Errors").asDouble()).isEqualTo(42);
    }

    // ---------------------------------------------------------------- F5: afterRestore during an invocation

    @Test
    void afterRestoreWithAnInvocationOnTheTemplate_flushThrowsNpe() {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        stdout(() -> {
            ours.addMetric("A", 1, MetricUnit.COUNT);
            ours.addMetric("B", 1, MetricUnit.COUNT);
            ours.flush();
            ours.addMetric("A", 2, MetricUnit.COUNT); // on the template
            ours.afterRestore(null);
            thrown.set(catchThrowable(() -> ours.addMetric("B", 2, MetricUnit.COUNT)));
        });
        System.err.println("F5 addMetric after afterRestore threw " + thrown.get());
        assertThat(thrown.get()).isInstanceOf(NullPointerException.class);
    }

    // ---------------------------------------------------------------- F6: clearDefaultDimensions scope

    @Test
    void clearDefaultDimensions_before_lastedOneInvocation_now_lastsForever() throws Exception {
        EmfMetrics ours = emf(LOCAL, "PulseTest", "query");
        Metrics theirs = before("PulseTest", "query");
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        for (Metrics m : List.of(ours, theirs)) {
            List<String> out = stdout(() -> {
                m.addMetric("A", 1, MetricUnit.COUNT);
                m.clearDefaultDimensions();
                m.addDimension(DimensionSet.of("Route", "x"));
                m.flush();
                m.addMetric("A", 2, MetricUnit.COUNT);
                m.flush();
            });
            (m == ours ? a : b).addAll(out);
        }
        System.err.println("F6 ours=" + a + "\nF6 before=" + b);
        assertThat(JSON.readTree(b.get(1)).get("Service")).isNotNull();
        assertThat(JSON.readTree(a.get(1)).get("Service")).isNull();
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
