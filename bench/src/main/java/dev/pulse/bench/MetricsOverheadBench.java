package dev.pulse.bench;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import dev.pulse.bench.internal.JfrProfile;
import dev.pulse.testing.NoMetrics;
import dev.pulse.testing.StdoutCapture;
import dev.pulse.bench.internal.SynchronizedPublisher;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.query.QueryHandler;
import dev.pulse.testing.TestContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * metrics-overhead: what publishing the function's metrics costs a handler. The handler is QueryHandler on a
 * warm container (a cached day of 20 series, count/avg/max): CPU only, no I/O, so the cost of metrics is not
 * hidden behind network waits. First EMF at the end of the invocation (the product) versus no metrics at all;
 * then, with 8 threads invoking at once, EMF versus a shared publisher thread that sends from a synchronized
 * block to a slow endpoint.
 */
final class MetricsOverheadBench implements Benchmark {

    static final double TARGET_RATIO = 1.02;
    private static final int THREADS = 8;
    private static final long PACE_MILLIS = 20;
    private static final long PUBLISH_INTERVAL_MILLIS = 1_000;
    private static final long ENDPOINT_DELAY_MILLIS = 200;

    @Override
    public String name() {
        return "metrics-overhead";
    }

    @Override
    public String howToRead() {
        return """
                The handler is `QueryHandler` on a warm container answering a day of 20 series at PT5M (count, avg, \
                max) from its rollup cache: pure CPU, so nothing hides the cost of metrics. (1) The product, one EMF \
                document printed at the end of each invocation (`PulseMetrics`: the Powertools API, the query \
                function's 8 metrics printed from a template serialised once per container), against the same handler with \
                metrics switched off (a no-op sink), on the same warm container: 3,000 pairs of invocations, one of each, \
                alternating which goes first; the figure is the ratio of the median latencies, target <= 1.02. (2) 8 threads (8 warm \
                containers in one JVM, a day of 5 series each) invoke every 20 ms for 10 s, each with its own EMF \
                logger, against the pattern of the field \
                incident: every metric call goes into one buffer under `synchronized`, and a publisher thread sends \
                it every second, inside the monitor, to an HTTP endpoint on 127.0.0.1 that answers in 200 ms. The \
                ratio is the baseline's p99 latency over the product's; what it shows is that the product's tail \
                has no lock in it.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        QueryDataset data = QueryDataset.create(env, 20);
        DynamoDbAsyncClient client = env.dynamoAsync(32, true);
        List<String> stats = List.of("count", "avg", "max");
        APIGatewayV2HTTPEvent event = data.event(stats, null);
        List<String> details = new ArrayList<>();
        Map<String, Double> values = new LinkedHashMap<>();
        try (StdoutCapture out = StdoutCapture.install()) {
            // One handler, its metrics switched per invocation: the two sides share the container, its cache and
            // its compiled code, so the only difference measured is the metrics path.
            Switchable metrics = new Switchable(emf());
            QueryHandler handler = data.handler(client, metrics);
            for (int i = 0; i < env.scale(600, 40); i++) {
                metrics.on = i % 2 == 0;
                invoke(handler, event);
            }
            long emfBefore = out.emfDocuments();
            // Pairs: each iteration times one invocation of each, alternating which goes first, so drift, JIT and
            // GC timing favour neither; medians, because a busy machine adds spikes to either side.
            int pairs = env.scale(3_000, 100);
            double[] emfMs = new double[pairs];
            double[] offMs = new double[pairs];
            for (int i = 0; i < pairs; i++) {
                boolean emfFirst = i % 2 == 0;
                metrics.on = emfFirst;
                double first = timed(handler, event);
                metrics.on = !emfFirst;
                double second = timed(handler, event);
                emfMs[i] = emfFirst ? first : second;
                offMs[i] = emfFirst ? second : first;
            }
            long emfDocs = out.emfDocuments() - emfBefore;
            if (emfDocs != pairs) {
                throw new IllegalStateException("expected one EMF document per invocation: " + emfDocs + " for " + pairs);
            }
            Samples emf = Samples.of(emfMs);
            Samples off = Samples.of(offMs);
            double ratio = emf.median() / off.median();
            // The same ratio in blocks of 100 pairs: how much it moves on this machine.
            int blocks = Math.max(1, pairs / 100);
            double[] blockRatios = new double[blocks];
            for (int b = 0; b < blocks; b++) {
                int from = b * (pairs / blocks);
                int to = from + pairs / blocks;
                blockRatios[b] = Samples.of(java.util.Arrays.copyOfRange(emfMs, from, to)).median()
                        / Samples.of(java.util.Arrays.copyOfRange(offMs, from, to)).median();
            }
            details.add("EMF vs off over " + pairs + " pairs: median latency " + Format.millis(emf.median()) + " vs "
                    + Format.millis(off.median()) + ", ratio of medians " + Format.ratio(ratio) + "; of means "
                    + Format.ratio(emf.mean() / off.mean()));
            details.add("ratio of medians in blocks of 100 pairs: " + Samples.of(blockRatios).spread("%.3f"));
            String emfDoc = out.lastEmf();
            details.add("an EMF document as printed: " + (emfDoc == null ? "none" : emfDoc.length() > 400 ? emfDoc.substring(0, 400) + "..." : emfDoc));

            // (2) 8 threads: EMF per container versus the synchronized publisher.
            long seconds = env.scale(10, 2);
            QueryDataset small = QueryDataset.create(env, 5);
            APIGatewayV2HTTPEvent smallEvent = small.event(stats, null);
            Histogram emfTail = concurrent(small, client, smallEvent, seconds, i -> emf());
            Histogram lockTail;
            long sends;
            try (SynchronizedPublisher publisher = new SynchronizedPublisher(PUBLISH_INTERVAL_MILLIS, ENDPOINT_DELAY_MILLIS)) {
                lockTail = concurrent(small, client, smallEvent, seconds, i -> publisher.metrics());
                sends = publisher.sends();
            }
            if (sends == 0) {
                throw new IllegalStateException("the baseline publisher never sent: the comparison would be void");
            }
            double emfP99 = emfTail.getValueAtPercentile(99) / 1000.0;
            double lockP99 = lockTail.getValueAtPercentile(99) / 1000.0;
            details.add("8 threads, EMF: p50 " + Format.millis(emfTail.getValueAtPercentile(50) / 1000.0) + ", p99 "
                    + Format.millis(emfP99) + ", max " + Format.millis(emfTail.getMaxValue() / 1000.0) + " over "
                    + emfTail.getTotalCount() + " invocations");
            details.add("8 threads, synchronized publisher (" + sends + " sends of 200 ms): p50 "
                    + Format.millis(lockTail.getValueAtPercentile(50) / 1000.0) + ", p99 " + Format.millis(lockP99)
                    + ", max " + Format.millis(lockTail.getMaxValue() / 1000.0) + " over " + lockTail.getTotalCount()
                    + " invocations");
            boolean met = ratio <= TARGET_RATIO;
            if (!met) {
                metrics.on = true;
                details.addAll(JfrProfile.profile("the handler with EMF, " + env.scale(2_000, 100) + " invocations", () -> {
                    for (int i = 0; i < env.scale(2_000, 100); i++) {
                        invoke(handler, event);
                    }
                }, null, List.of("dev.pulse.metrics.", "software.amazon.lambda.powertools.metrics.",
                        "software.amazon.cloudwatchlogs.emf.")));
            }
            values.put("emfOverheadRatio", ratio);
            values.put("emfMedianMillis", emf.median());
            values.put("offMedianMillis", off.median());
            values.put("concurrentEmfP99Millis", emfP99);
            values.put("concurrentPublisherP99Millis", lockP99);
            return new Result(name(),
                    "EMF " + Format.ratio(ratio) + "x the handler without metrics; 8 threads p99 "
                            + Format.millis(emfP99),
                    "no metrics 1.000; synchronized publisher p99 " + Format.millis(lockP99),
                    Format.times(lockP99 / emfP99) + " lower p99",
                    "<= 1.02", met, details, values);
        }
    }

    /** The product's metrics, as {@code PulseMetrics.create} makes them for the query function. */
    private static Metrics emf() {
        return PulseMetrics.create("PulseBench", "query");
    }

    /** EMF when {@link #on}, nothing otherwise. */
    static final class Switchable extends NoMetrics {
        private final Metrics emf;
        volatile boolean on;

        Switchable(Metrics emf) {
            this.emf = emf;
        }

        @Override
        public void addMetric(String name, double value, software.amazon.lambda.powertools.metrics.model.MetricUnit unit,
                software.amazon.lambda.powertools.metrics.model.MetricResolution resolution) {
            if (on) {
                emf.addMetric(name, value, unit, resolution);
            }
        }

        @Override
        public void flush() {
            if (on) {
                emf.flush();
            }
        }
    }

    /** One invocation's latency in ms. */
    private static double timed(QueryHandler handler, APIGatewayV2HTTPEvent event) {
        long t0 = System.nanoTime();
        invoke(handler, event);
        return (System.nanoTime() - t0) / 1e6;
    }

    private static void invoke(QueryHandler handler, APIGatewayV2HTTPEvent event) {
        APIGatewayV2HTTPResponse r = handler.handleRequest(event, new TestContext("bench-query", "m", 29_000, 1024));
        if (r.getStatusCode() != 200) {
            throw new IllegalStateException("query answered " + r.getStatusCode() + ": " + r.getBody());
        }
    }

    /**
     * {@link #THREADS} warm containers, each invoked every {@link #PACE_MILLIS} for {@code seconds} (a steady
     * load well below what the two cores can serve, so the tail shows waiting on the metrics path rather than on
     * the CPU); latency histogram in µs, from each invocation's start.
     */
    private static Histogram concurrent(QueryDataset data, DynamoDbAsyncClient client, APIGatewayV2HTTPEvent event,
            long seconds, java.util.function.IntFunction<Metrics> metrics) throws Exception {
        List<QueryHandler> handlers = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            QueryHandler h = data.handler(client, metrics.apply(i));
            for (int w = 0; w < 20; w++) {
                invoke(h, event);
            }
            handlers.add(h);
        }
        Histogram all = new Histogram(60_000_000L, 3);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (QueryHandler h : handlers) {
            Histogram own = new Histogram(60_000_000L, 3);
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    long next = System.nanoTime();
                    while (next < end) {
                        long t0 = System.nanoTime();
                        invoke(h, event);
                        own.recordValue(Math.min(60_000_000L, (System.nanoTime() - t0) / 1000));
                        next += PACE_MILLIS * 1_000_000L;
                        java.util.concurrent.locks.LockSupport.parkNanos(next - System.nanoTime());
                    }
                    synchronized (all) {
                        all.add(own);
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a concurrent invocation failed", failure.get());
        }
        return all;
    }
}
