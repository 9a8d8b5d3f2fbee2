package dev.pulse.metrics;

import com.amazonaws.services.lambda.runtime.Context;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.cloudwatchlogs.emf.exception.InvalidMetricException;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricResolution;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;
import software.amazon.lambda.powertools.metrics.provider.EmfMetricsProvider;
import software.amazon.lambda.powertools.metrics.provider.MetricsProvider;

/**
 * Powertools {@link Metrics} whose end-of-invocation document costs a few numbers: the handlers keep calling
 * {@code addMetric} and {@code flush}, and when an invocation adds the same metrics as the one before (names,
 * units, order: what {@link InvocationMetrics} always does), the document is printed from an {@link EmfTemplate}
 * serialised once per container, with one write to stdout. Anything else goes to Powertools unchanged: the first
 * invocation (which also proves the names, units, namespace and dimensions valid before a template is made of
 * them), a different set of metrics, dimensions or metadata added during an invocation, high-resolution
 * metrics, the cold-start and single-metric helpers, and environments other than Lambda and
 * {@code AWS_EMF_ENVIRONMENT=Local} (aws-embedded-metrics sends to an agent there).
 *
 * <p>The document is the one aws-embedded-metrics prints for the same calls: namespace, one dimension set of the
 * default dimensions ({@code Service}), names, units and values, and in Lambda the environment's properties
 * ({@code executionEnvironment}, {@code functionVersion}, {@code logStreamId}, and {@code traceId} when the
 * invocation's X-Ray trace is sampled). A non-finite value is rejected by {@code addMetric} with
 * aws-embedded-metrics' exception, as before; {@code POWERTOOLS_METRICS_DISABLED=true} prints nothing.
 *
 * <p>An invocation is what is added between two {@code flush} calls within one request (the request's trace
 * header, {@code com.amazonaws.xray.traceHeader} as the Lambda runtime sets it, else {@code _X_AMZN_TRACE_ID}), as
 * Powertools' request-scoped proxy keeps it: what a request added and never flushed is dropped when another
 * request adds or flushes, never printed with it. A value is printed under the name it was added with: an
 * invocation keeps the template it started on and is printed from it only if that is still the template at its
 * flush, else Powertools prints it. A name Powertools rejects never enters a template, and a shape a template
 * cannot write (a name Jackson cannot encode, such as a lone surrogate) stays on Powertools.
 *
 * <p>Default dimensions, as Powertools' request-scoped proxy: {@code clearDefaultDimensions} clears them for the
 * current invocation only (its document is Powertools'; the next has the configured ones again), and {@code
 * getDefaultDimensions} answers the current invocation's Powertools instance when it has one, else the configured
 * ones ({@code addDimension} adds to the document, not to the default dimensions, in Powertools as here).
 *
 * <p>One invocation at a time per instance, as in a Lambda execution environment; the monitor guards only the
 * few fields an {@code addMetric} touches and is never held while printing. Nothing runs in the background.
 */
public final class EmfMetrics implements Metrics, org.crac.Resource {

    private static final String DISABLED_ENV = "POWERTOOLS_METRICS_DISABLED";
    private static final String TRACE_ENV = "_X_AMZN_TRACE_ID";
    /** The request's trace header, set by the Lambda Java runtime for each invocation. */
    private static final String TRACE_PROPERTY = "com.amazonaws.xray.traceHeader";
    private static final double[] NO_VALUES = {};

    /** Where aws-embedded-metrics would send the document. */
    enum Target {
        /** Lambda: stdout, with the function's properties. */
        LAMBDA,
        /** {@code AWS_EMF_ENVIRONMENT=Local}: stdout, no properties. */
        LOCAL,
        /** Anything else (an agent over TCP or UDP): always Powertools. */
        OTHER
    }

    private final MetricsProvider provider;
    private final Map<String, String> env;
    private final Target target;

    private String namespace;
    private Map<String, String> defaultDimensions = new LinkedHashMap<>();
    private boolean raiseOnEmptyMetrics;
    /** The shape of the last invocation that Powertools printed and that a template can print; null: none yet. */
    private volatile EmfTemplate template;
    /** The current invocation, null before its first call. */
    private Invocation current;

    /** Configured like {@code MetricsBuilder.builder().withNamespace(namespace).withService(service).build()}. */
    public static EmfMetrics create(String namespace, String service) {
        EmfMetrics m = new EmfMetrics(new EmfMetricsProvider(), System.getenv());
        m.setNamespace(namespace);
        m.setDefaultDimensions(DimensionSet.of("Service", service));
        return m;
    }

    /** @param env the process environment (tests pass their own; Powertools reads the real one either way) */
    EmfMetrics(MetricsProvider provider, Map<String, String> env) {
        this.provider = provider;
        this.env = env;
        this.target = target(env);
        org.crac.Core.getGlobalContext().register(this);
    }

    static Target target(Map<String, String> env) {
        String override = env.get("AWS_EMF_ENVIRONMENT");
        if (override == null || override.isBlank()) {
            return env.get("AWS_LAMBDA_FUNCTION_NAME") != null ? Target.LAMBDA : Target.OTHER;
        }
        return switch (override.trim()) {
            case "Lambda" -> Target.LAMBDA;
            case "Local" -> Target.LOCAL;
            default -> Target.OTHER;
        };
    }

    @Override
    public void addMetric(String name, double value, MetricUnit unit, MetricResolution resolution) {
        if (!Double.isFinite(value)) {
            // aws-embedded-metrics' check and message; what was added before stays for the flush, as before.
            throw new InvalidMetricException("Metric value is not a number");
        }
        synchronized (this) {
            Invocation inv = invocation();
            if (inv.take(name, value, unit, resolution)) {
                return;
            }
            if (inv.powertools == null) {
                toPowertools(inv);
            }
            inv.powertools.addMetric(name, value, unit, resolution);
            // Only once Powertools took it: a name it rejects (blank, null) never reaches a template.
            inv.record(name, unit, resolution);
        }
    }

    @Override
    public void flush() {
        Invocation inv;
        EmfTemplate t;
        synchronized (this) {
            inv = current;
            current = null;
            t = template;
        }
        if (inv != null && !inv.isFor(request())) {
            inv = null; // another request's, never flushed: not this one's (dropped, as the proxy never printed it)
        }
        if (disabled()) {
            return; // as Powertools: nothing printed, the invocation's metrics dropped
        }
        if (inv == null) {
            // Nothing added: Powertools warns (or raises) and prints what aws-embedded-metrics prints.
            configured().flush();
            return;
        }
        if (inv.powertools == null && t != null && inv.template == t && inv.size == t.size()) {
            byte[] line = t.render(System.currentTimeMillis(), inv.values, target == Target.LAMBDA ? sampledTrace() : null);
            PrintStream out = System.out;
            out.write(line, 0, line.length);
            out.flush();
            return;
        }
        if (inv.powertools == null) {
            // A prefix of its template's metrics, or a template replaced since: Powertools prints it.
            toPowertools(inv);
        }
        inv.powertools.flush();
        learn(inv);
    }

    /** After Powertools printed {@code inv}: its shape becomes the template if a template can print it. */
    private void learn(Invocation inv) {
        if (!inv.templatable || target == Target.OTHER || disabled()) {
            return;
        }
        Map<String, String> dims;
        String ns;
        synchronized (this) {
            if (inv.configVersion != configVersion) {
                return;
            }
            dims = validDimensions(defaultDimensions);
            ns = namespace;
        }
        EmfTemplate t;
        try {
            t = EmfTemplate.of(ns, dims, properties(), inv.names, inv.units, target == Target.LAMBDA);
        } catch (RuntimeException e) {
            // What Powertools printed but Jackson's encoder refuses (a lone surrogate): no template, Powertools'.
            t = null;
        }
        if (t != null) {
            template = t;
        }
    }

    /** The default dimensions aws-embedded-metrics keeps (Powertools drops the ones it rejects, silently). */
    private static Map<String, String> validDimensions(Map<String, String> dims) {
        Map<String, String> valid = new LinkedHashMap<>();
        dims.forEach((k, v) -> {
            try {
                software.amazon.cloudwatchlogs.emf.util.Validator.validateDimensionSet(k, v);
                valid.put(k, v);
            } catch (Exception e) {
                // as Powertools: ignored
            }
        });
        if (valid.size() > software.amazon.cloudwatchlogs.emf.Constants.MAX_DIMENSION_SET_SIZE) {
            return Map.of(); // aws-embedded-metrics refuses the set: no template
        }
        return valid;
    }

    /** aws-embedded-metrics' LambdaEnvironment properties that do not change within a container. */
    private Map<String, String> properties() {
        Map<String, String> p = new LinkedHashMap<>();
        if (target == Target.LAMBDA) {
            putIfPresent(p, "executionEnvironment", env.get("AWS_EXECUTION_ENV"));
            putIfPresent(p, "functionVersion", env.get("AWS_LAMBDA_FUNCTION_VERSION"));
            putIfPresent(p, "logStreamId", env.get("AWS_LAMBDA_LOG_STREAM_NAME"));
        }
        return p;
    }

    private static void putIfPresent(Map<String, String> p, String key, String value) {
        if (value != null) {
            p.put(key, value);
        }
    }

    /** The trace header when the invocation is sampled, as aws-embedded-metrics' LambdaEnvironment adds it. */
    private String sampledTrace() {
        String trace = env.get(TRACE_ENV);
        return trace != null && trace.contains("Sampled=1") ? trace : null;
    }

    private boolean disabled() {
        return "true".equalsIgnoreCase(env.get(DISABLED_ENV));
    }

    /** The request's invocation: the current one, or a new one if there is none or it is another request's. */
    private Invocation invocation() {
        Invocation inv = current;
        String request = request();
        if (inv == null || !inv.isFor(request)) {
            // Another request's, never flushed (a publish that failed): dropped, not merged into this one.
            inv = new Invocation(template, configVersion, request);
            current = inv;
        }
        return inv;
    }

    /** The current request's trace header (null outside Lambda): the same String for every call of a request. */
    private String request() {
        String header = System.getProperty(TRACE_PROPERTY);
        return header != null ? header : env.get(TRACE_ENV);
    }

    /** Moves {@code inv} to a Powertools instance: the values it took so far are added there, in order. */
    private void toPowertools(Invocation inv) {
        Metrics m = configured();
        EmfTemplate t = inv.template;
        for (int i = 0; i < inv.size; i++) {
            // matched its template: these names and units are t's
            String name = t.name(i);
            MetricUnit unit = t.unit(i);
            m.addMetric(name, inv.values[i], unit, MetricResolution.STANDARD);
            inv.record(name, unit, MetricResolution.STANDARD);
        }
        inv.size = 0;
        inv.powertools = m;
    }

    /** A fresh Powertools instance with this one's configuration (what Powertools' request-scoped proxy does). */
    private synchronized Metrics configured() {
        Metrics m = provider.getMetricsInstance();
        if (namespace != null) {
            m.setNamespace(namespace);
        }
        m.setRaiseOnEmptyMetrics(raiseOnEmptyMetrics);
        if (!defaultDimensions.isEmpty()) {
            m.setDefaultDimensions(DimensionSet.of(defaultDimensions));
        }
        return m;
    }

    /** Calls that no template prints: this invocation goes to Powertools. */
    private synchronized void offTemplate(Consumer<Metrics> call) {
        Invocation inv = invocation();
        if (inv.powertools == null) {
            toPowertools(inv);
        }
        inv.templatable = false;
        call.accept(inv.powertools);
    }

    private int configVersion;

    /** A configuration change: the next document is Powertools' and the template is made again from it. */
    private void reconfigured() {
        configVersion++;
        if (current != null && current.powertools == null) {
            toPowertools(current);
        }
        template = null;
    }

    @Override
    public void addDimension(DimensionSet dimensionSet) {
        offTemplate(m -> m.addDimension(dimensionSet));
    }

    @Override
    public void setTimestamp(Instant timestamp) {
        offTemplate(m -> m.setTimestamp(timestamp));
    }

    @Override
    public void addMetadata(String key, Object value) {
        offTemplate(m -> m.addMetadata(key, value));
    }

    @Override
    public synchronized void setDefaultDimensions(DimensionSet dimensionSet) {
        if (dimensionSet == null) {
            throw new IllegalArgumentException("DimensionSet cannot be null");
        }
        reconfigured();
        defaultDimensions = new LinkedHashMap<>(dimensionSet.getDimensions());
        if (current != null) {
            current.powertools.setDefaultDimensions(dimensionSet);
        }
    }

    /** As the proxy: the current invocation's Powertools instance's, if it has one, else the configured ones. */
    @Override
    public synchronized DimensionSet getDefaultDimensions() {
        Invocation inv = current;
        if (inv != null && inv.powertools != null && inv.isFor(request())) {
            return inv.powertools.getDefaultDimensions();
        }
        return DimensionSet.of(defaultDimensions);
    }

    @Override
    public synchronized void setNamespace(String namespace) {
        provider.getMetricsInstance().setNamespace(namespace); // Powertools' validation
        reconfigured();
        this.namespace = namespace;
        if (current != null) {
            current.powertools.setNamespace(namespace);
        }
    }

    @Override
    public synchronized void setRaiseOnEmptyMetrics(boolean raiseOnEmptyMetrics) {
        this.raiseOnEmptyMetrics = raiseOnEmptyMetrics;
        if (current != null && current.powertools != null) {
            current.powertools.setRaiseOnEmptyMetrics(raiseOnEmptyMetrics);
        }
    }

    /** As the proxy: for this invocation only (its document is Powertools'); the next has the configured ones. */
    @Override
    public void clearDefaultDimensions() {
        offTemplate(Metrics::clearDefaultDimensions);
    }

    @Override
    public void captureColdStartMetric(Context context, DimensionSet dimensions) {
        configured().captureColdStartMetric(context, dimensions);
    }

    @Override
    public void captureColdStartMetric(DimensionSet dimensions) {
        configured().captureColdStartMetric(dimensions);
    }

    @Override
    public void flushMetrics(Consumer<Metrics> metricsConsumer) {
        configured().flushMetrics(metricsConsumer);
    }

    @Override
    public void flushSingleMetric(String name, double value, MetricUnit unit, String namespace, DimensionSet dimensions) {
        configured().flushSingleMetric(name, value, unit, namespace, dimensions);
    }

    @Override
    public void beforeCheckpoint(org.crac.Context<? extends org.crac.Resource> context) {
    }

    /**
     * A restored snapshot may run under another environment: its first document is Powertools' again (an
     * invocation under way keeps its template for its names, and Powertools prints it).
     */
    @Override
    public synchronized void afterRestore(org.crac.Context<? extends org.crac.Resource> context) {
        template = null;
    }

    /** Whether the next invocation that adds the same metrics is printed from a template (tests). */
    boolean hasTemplate() {
        return template != null;
    }

    /** One invocation's metrics: values in its template's order, or a Powertools instance once off it. */
    private static final class Invocation {
        /** The template when the invocation started: the names of {@code values}; null: Powertools from the start. */
        final EmfTemplate template;
        final double[] values;
        int size;
        Metrics powertools;
        final int configVersion;
        /** The request it belongs to ({@link #request()}). */
        final String request;
        /** Only addMetric calls so far, each name once, standard resolution. */
        boolean templatable = true;
        final List<String> names = new ArrayList<>();
        final List<MetricUnit> units = new ArrayList<>();

        Invocation(EmfTemplate template, int configVersion, String request) {
            this.template = template;
            this.values = template == null ? NO_VALUES : new double[template.size()];
            this.configVersion = configVersion;
            this.request = request;
        }

        boolean isFor(String request) {
            return Objects.equals(this.request, request);
        }

        /** Keeps {@code value} if the metric is the next of this invocation's template; false: Powertools'. */
        boolean take(String name, double value, MetricUnit unit, MetricResolution resolution) {
            if (powertools != null || template == null || resolution == MetricResolution.HIGH
                    || !template.matches(size, name, unit)) {
                return false;
            }
            values[size++] = value;
            return true;
        }

        /** A call Powertools took, kept to make the next template from. */
        void record(String name, MetricUnit unit, MetricResolution resolution) {
            if (resolution == MetricResolution.HIGH || unit == null || names.contains(name)) {
                templatable = false;
            }
            names.add(name);
            units.add(unit);
        }
    }

    @Override
    public String toString() {
        EmfTemplate t = template;
        return "EmfMetrics[" + namespace + ", " + defaultDimensions + ", " + target + ", template of "
                + (t == null ? "none" : t.size() + " metrics") + "]";
    }
}
