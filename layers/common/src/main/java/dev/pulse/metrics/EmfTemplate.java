package dev.pulse.metrics;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * One EMF document shape, serialised once: everything but the timestamp, the sampled trace id and the metric
 * values is fixed for a container (namespace, metric names and units, the dimension set and its values, the
 * environment's properties), so it is kept as bytes and each document is those bytes with a few numbers between
 * them. Immutable and thread-safe; {@link #render} allocates only the line it returns.
 *
 * <p>The document is what aws-embedded-metrics writes for the same metrics (checked by EmfMetricsTest against
 * Powertools' own output), one line:
 * <pre>{"_aws":{"Timestamp":ms,"CloudWatchMetrics":[{"Namespace":ns,"Metrics":[{"Name":n,"Unit":u},...],
 * "Dimensions":[[k,...]]}]},k:v,...,property:value,...,["traceId":t,]n:value,...}</pre>
 */
final class EmfTemplate {

    /** CloudWatch extracts at most 100 metrics from one document (the EMF specification). */
    static final int MAX_METRICS = 100;
    /** The aws-embedded-metrics Lambda environment's per-invocation property: the sampled X-Ray trace header. */
    static final String TRACE_ID_PROPERTY = "traceId";

    private static final byte[] HEAD = "{\"_aws\":{\"Timestamp\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRACE_KEY = ",\"traceId\":".getBytes(StandardCharsets.US_ASCII);

    private final String[] names;
    private final MetricUnit[] units;
    /** From the end of the timestamp to the last fixed property: {@code ,"CloudWatchMetrics":[...]},"Service":"query",...}. */
    private final byte[] middle;
    /** Per metric, {@code ,"Name":}. */
    private final byte[][] keys;
    private final int fixedLength;
    private final boolean traceProperty;

    private EmfTemplate(String[] names, MetricUnit[] units, byte[] middle, byte[][] keys, boolean traceProperty) {
        this.names = names;
        this.units = units;
        this.middle = middle;
        this.keys = keys;
        this.traceProperty = traceProperty;
        int fixed = HEAD.length + middle.length + 2;
        for (byte[] k : keys) {
            fixed += k.length;
        }
        this.fixedLength = fixed;
    }

    /**
     * The template for these metrics, or null when the shape cannot be written as one flat document (no metric,
     * more than {@link #MAX_METRICS}, a name twice, or a metric named like a dimension or a property, which
     * aws-embedded-metrics would merge into one member).
     *
     * @param dimensions    the one dimension set, in order, with its values (at least one)
     * @param properties    members written as they are every time (the environment's)
     * @param traceProperty whether a document may carry {@value #TRACE_ID_PROPERTY} (named in no other map)
     */
    static EmfTemplate of(String namespace, Map<String, String> dimensions, Map<String, String> properties,
            List<String> metricNames, List<MetricUnit> metricUnits, boolean traceProperty) {
        int n = metricNames.size();
        if (n == 0 || n > MAX_METRICS || n != metricUnits.size() || dimensions.isEmpty()) {
            return null;
        }
        Set<String> members = new HashSet<>(dimensions.keySet());
        for (String p : properties.keySet()) {
            if (!members.add(p)) {
                return null;
            }
        }
        if (traceProperty && !members.add(TRACE_ID_PROPERTY)) {
            return null;
        }
        for (String m : metricNames) {
            if (!members.add(m) || "_aws".equals(m)) {
                return null;
            }
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream(256 + 48 * n);
        put(b, ",\"CloudWatchMetrics\":[{\"Namespace\":");
        quote(b, namespace);
        put(b, ",\"Metrics\":[");
        for (int i = 0; i < n; i++) {
            put(b, i == 0 ? "{\"Name\":" : ",{\"Name\":");
            quote(b, metricNames.get(i));
            put(b, ",\"Unit\":");
            quote(b, metricUnits.get(i).getName());
            put(b, "}");
        }
        put(b, "],\"Dimensions\":[[");
        boolean first = true;
        for (String k : dimensions.keySet()) {
            put(b, first ? "" : ",");
            quote(b, k);
            first = false;
        }
        put(b, "]]}]}");
        for (Map.Entry<String, String> d : dimensions.entrySet()) {
            member(b, d.getKey(), d.getValue());
        }
        for (Map.Entry<String, String> p : properties.entrySet()) {
            member(b, p.getKey(), p.getValue());
        }
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            ByteArrayOutputStream k = new ByteArrayOutputStream();
            put(k, ",");
            quote(k, metricNames.get(i));
            put(k, ":");
            keys[i] = k.toByteArray();
        }
        return new EmfTemplate(metricNames.toArray(String[]::new), metricUnits.toArray(MetricUnit[]::new),
                b.toByteArray(), keys, traceProperty);
    }

    int size() {
        return names.length;
    }

    String name(int i) {
        return names[i];
    }

    MetricUnit unit(int i) {
        return units[i];
    }

    /** Whether the {@code i}-th metric of a document is {@code name} in {@code unit}. */
    boolean matches(int i, String name, MetricUnit unit) {
        return i < names.length && units[i] == unit && names[i].equals(name);
    }

    /**
     * One document, newline included: {@code values[i]} is the {@code i}-th metric's (finite) value;
     * {@code traceId} is written when this template has the property and it is not null.
     */
    byte[] render(long timestampMillis, double[] values, String traceId) {
        byte[] trace = traceProperty && traceId != null ? quoted(traceId) : null;
        int capacity = fixedLength + 20 + 24 * names.length + (trace == null ? 0 : TRACE_KEY.length + trace.length);
        byte[] out = new byte[capacity];
        int p = copy(HEAD, out, 0);
        p = writeLong(timestampMillis, out, p);
        p = copy(middle, out, p);
        if (trace != null) {
            p = copy(TRACE_KEY, out, p);
            p = copy(trace, out, p);
        }
        for (int i = 0; i < names.length; i++) {
            p = copy(keys[i], out, p);
            p = writeDouble(values[i], out, p);
        }
        out[p++] = '}';
        out[p++] = '\n';
        return p == out.length ? out : Arrays.copyOf(out, p);
    }

    // The last trace header quoted: it changes per invocation at most, and usually not at all.
    private volatile Object[] lastTrace;

    private byte[] quoted(String s) {
        Object[] last = lastTrace;
        if (last != null && last[0] == s) {
            return (byte[]) last[1];
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream(s.length() + 2);
        quote(b, s);
        byte[] q = b.toByteArray();
        lastTrace = new Object[] {s, q};
        return q;
    }

    /**
     * A finite double as aws-embedded-metrics' Jackson writes it ({@link Double#toString}): whole numbers below
     * 10^7 (every counter in practice) take a shortcut with the same characters, {@code 42.0}.
     */
    static int writeDouble(double v, byte[] out, int p) {
        long l = (long) v;
        if (l == v && l > -10_000_000L && l < 10_000_000L && (l != 0 || Double.doubleToRawLongBits(v) == 0L)) {
            p = writeLong(l, out, p);
            out[p++] = '.';
            out[p++] = '0';
            return p;
        }
        String s = Double.toString(v);
        for (int i = 0; i < s.length(); i++) {
            out[p++] = (byte) s.charAt(i);
        }
        return p;
    }

    static int writeLong(long v, byte[] out, int p) {
        if (v == Long.MIN_VALUE) {
            String s = Long.toString(v);
            for (int i = 0; i < s.length(); i++) {
                out[p++] = (byte) s.charAt(i);
            }
            return p;
        }
        if (v < 0) {
            out[p++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        for (int i = p + digits - 1; i >= p; i--) {
            out[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return p + digits;
    }

    private static int copy(byte[] src, byte[] dst, int p) {
        System.arraycopy(src, 0, dst, p, src.length);
        return p + src.length;
    }

    private static void member(ByteArrayOutputStream b, String key, String value) {
        put(b, ",");
        quote(b, key);
        put(b, ":");
        quote(b, value);
    }

    private static void put(ByteArrayOutputStream b, String ascii) {
        b.writeBytes(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    /** A JSON string as Jackson writes it: quotes, backslashes and control characters escaped, the rest UTF-8. */
    private static void quote(ByteArrayOutputStream b, String s) {
        b.write('"');
        b.writeBytes(JsonStringEncoder.getInstance().quoteAsUTF8(s));
        b.write('"');
    }
}
