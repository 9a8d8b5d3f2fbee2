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

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.core.metrics.CoreMetric;
import software.amazon.awssdk.http.HttpMetric;
import software.amazon.awssdk.metrics.MetricCollection;
import software.amazon.awssdk.metrics.MetricPublisher;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;
import software.amazon.lambda.powertools.metrics.provider.EmfMetricsProvider;

/**
 * The SDK v2 clients' own metrics, folded per invocation: a {@link MetricPublisher} whose {@link #publish} runs on
 * the SDK's calling thread (it only adds the call to an in-memory aggregate per service and operation), and whose
 * {@link #flush} writes the aggregate as EMF through Powertools when the handler flushes its own metrics, on the
 * handler's thread. Nothing runs in the background and nothing is sent anywhere: the SDK's
 * {@code EmfMetricLoggingPublisher} would write one log line per API call instead (docs/metrics.md, "SDK client
 * metrics", has the measured difference).
 *
 * <p>Each (service, operation) that was called becomes one EMF document per invocation with the SDK's own metric
 * names, in the SDK publisher's namespace {@value #NAMESPACE}, with the dimensions {@code ServiceId},
 * {@code OperationName} and {@code Service} (the function's): EMF gives a document one value per dimension, so one
 * document cannot hold two operations under the same names.
 */
public final class SdkClientMetrics implements MetricPublisher {

    /** The namespace of the SDK's own EMF publisher: the same series whichever of the two a function uses. */
    public static final String NAMESPACE = "AwsSdk/JavaSdk2";
    /** EMF's limit of values per metric in one document. */
    static final int MAX_VALUES = 100;

    private static final SdkClientMetrics SHARED = new SdkClientMetrics();
    /** {@code ErrorType} of an attempt that was throttled (the SDK's {@code SdkErrorType.THROTTLING}, an internal class). */
    private static final String THROTTLING = "Throttling";

    private final Map<Operation, Aggregate> operations = new ConcurrentHashMap<>();
    private volatile String service = "unknown";
    private Metrics out;

    /** An aggregate of its own (tests); the functions use {@link #shared()}. */
    SdkClientMetrics() {}

    /** The process's aggregate: what {@code AwsClients} attaches to every client and each invocation flushes. */
    public static SdkClientMetrics shared() {
        return SHARED;
    }

    /** The function's {@code Service} dimension (what its own EMF documents carry). */
    public void service(String service) {
        this.service = service;
    }

    record Operation(String serviceId, String operationName) {}

    /**
     * Called by the SDK at the end of every API call, on the thread that completed it, before the future the client
     * returned completes (so a call the handler waited for is in its invocation's flush): a few field updates.
     */
    @Override
    public void publish(MetricCollection call) {
        String serviceId = first(call, CoreMetric.SERVICE_ID, "unknown");
        String operationName = first(call, CoreMetric.OPERATION_NAME, "unknown");
        operations
                .computeIfAbsent(new Operation(serviceId, operationName), k -> new Aggregate())
                .add(call);
    }

    @Override
    public void close() {
        // Nothing is held outside this object: what is left unflushed is dropped with the container.
    }

    /**
     * Writes one EMF document per (service, operation) called since the last flush and empties the aggregate; a
     * call that ends while this runs is counted in the next flush. Called on the handler's thread after its own
     * metrics are flushed.
     */
    public synchronized void flush() {
        for (Map.Entry<Operation, Aggregate> e : operations.entrySet()) {
            Snapshot s = e.getValue().drain();
            if (s == null) {
                continue;
            }
            if (out == null) {
                out = new EmfMetricsProvider().getMetricsInstance();
                out.setNamespace(NAMESPACE);
            }
            out.setDefaultDimensions(DimensionSet.of(
                    "Service", service,
                    "ServiceId", e.getKey().serviceId(),
                    "OperationName", e.getKey().operationName()));
            s.addTo(out);
            out.flush();
        }
    }

    /** What {@link #flush} would write, without writing it (tests). */
    synchronized Map<Operation, Snapshot> drain() {
        Map<Operation, Snapshot> out = new java.util.TreeMap<>(
                java.util.Comparator.comparing(Operation::serviceId).thenComparing(Operation::operationName));
        for (Map.Entry<Operation, Aggregate> e : operations.entrySet()) {
            Snapshot s = e.getValue().drain();
            if (s != null) {
                out.put(e.getKey(), s);
            }
        }
        return out;
    }

    /** One operation's calls since the last flush, as written. */
    record Snapshot(
            long calls,
            long failures,
            long retries,
            long throttles,
            double[] durations,
            double[] acquireDurations,
            long leasedMax,
            long pendingMax,
            long maxConcurrency) {

        void addTo(Metrics m) {
            m.addMetric("ApiCallCount", calls, MetricUnit.COUNT);
            m.addMetric("ApiCallFailures", failures, MetricUnit.COUNT);
            m.addMetric("RetryCount", retries, MetricUnit.COUNT);
            m.addMetric("ThrottleCount", throttles, MetricUnit.COUNT);
            for (double d : durations) {
                m.addMetric("ApiCallDuration", d, MetricUnit.MILLISECONDS);
            }
            for (double d : acquireDurations) {
                m.addMetric("ConcurrencyAcquireDuration", d, MetricUnit.MILLISECONDS);
            }
            if (maxConcurrency > 0) {
                m.addMetric("LeasedConcurrency", leasedMax, MetricUnit.COUNT);
                m.addMetric("PendingConcurrencyAcquires", pendingMax, MetricUnit.COUNT);
                m.addMetric("MaxConcurrency", maxConcurrency, MetricUnit.COUNT);
            }
        }
    }

    /**
     * One operation's running totals. Durations are kept as a uniform sample of at most {@value #MAX_VALUES} values
     * (reservoir sampling): EMF takes at most that many values of a metric in one document, and an invocation's
     * percentiles need the values, not a mean.
     */
    static final class Aggregate {
        private long calls;
        private long failures;
        private long retries;
        private long throttles;
        private final Reservoir durations = new Reservoir();
        private final Reservoir acquires = new Reservoir();
        private long leasedMax;
        private long pendingMax;
        private long maxConcurrency;

        synchronized void add(MetricCollection call) {
            calls++;
            for (Boolean ok : call.metricValues(CoreMetric.API_CALL_SUCCESSFUL)) {
                if (Boolean.FALSE.equals(ok)) {
                    failures++;
                }
            }
            for (Integer r : call.metricValues(CoreMetric.RETRY_COUNT)) {
                retries += r;
            }
            for (Duration d : call.metricValues(CoreMetric.API_CALL_DURATION)) {
                durations.add(millis(d));
            }
            for (MetricCollection attempt : call.children()) {
                for (String type : attempt.metricValues(CoreMetric.ERROR_TYPE)) {
                    if (THROTTLING.equals(type)) {
                        throttles++;
                    }
                }
                for (MetricCollection http : attempt.children()) {
                    for (Duration d : http.metricValues(HttpMetric.CONCURRENCY_ACQUIRE_DURATION)) {
                        acquires.add(millis(d));
                    }
                    for (Integer v : http.metricValues(HttpMetric.LEASED_CONCURRENCY)) {
                        leasedMax = Math.max(leasedMax, v);
                    }
                    for (Integer v : http.metricValues(HttpMetric.PENDING_CONCURRENCY_ACQUIRES)) {
                        pendingMax = Math.max(pendingMax, v);
                    }
                    for (Integer v : http.metricValues(HttpMetric.MAX_CONCURRENCY)) {
                        maxConcurrency = Math.max(maxConcurrency, v);
                    }
                }
            }
        }

        synchronized Snapshot drain() {
            if (calls == 0) {
                return null;
            }
            Snapshot s = new Snapshot(
                    calls,
                    failures,
                    retries,
                    throttles,
                    durations.drain(),
                    acquires.drain(),
                    leasedMax,
                    pendingMax,
                    maxConcurrency);
            calls = 0;
            failures = 0;
            retries = 0;
            throttles = 0;
            leasedMax = 0;
            pendingMax = 0;
            maxConcurrency = 0;
            return s;
        }
    }

    /** Algorithm R over {@link ThreadLocalRandom} (no shared entropy, never blocks). Guarded by its owner. */
    static final class Reservoir {
        private final double[] values = new double[MAX_VALUES];
        private long seen;

        void add(double v) {
            if (seen < MAX_VALUES) {
                values[(int) seen] = v;
            } else {
                long j = ThreadLocalRandom.current().nextLong(seen + 1);
                if (j < MAX_VALUES) {
                    values[(int) j] = v;
                }
            }
            seen++;
        }

        double[] drain() {
            double[] out = java.util.Arrays.copyOf(values, (int) Math.min(seen, MAX_VALUES));
            seen = 0;
            return out;
        }
    }

    private static double millis(Duration d) {
        return d.toNanos() / 1e6;
    }

    private static String first(MetricCollection c, software.amazon.awssdk.metrics.SdkMetric<String> m, String dflt) {
        List<String> v = c.metricValues(m);
        return v.isEmpty() ? dflt : v.get(0);
    }
}
