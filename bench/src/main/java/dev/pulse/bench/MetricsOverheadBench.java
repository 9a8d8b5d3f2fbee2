package dev.pulse.bench;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import dev.pulse.bench.internal.NoMetrics;
import dev.pulse.bench.internal.StdoutCapture;
import dev.pulse.bench.internal.SynchronizedPublisher;
import dev.pulse.query.QueryHandler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.provider.EmfMetricsProvider;

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
                document printed at the end of each invocation (Powertools, 13 metrics), against the same handler with \
                metrics switched off (a no-op sink): rounds of 25 invocations of each, alternating; the figure is \
                the median over rounds of the per-round ratio of mean latencies, target <= 1.02. (2) 8 threads invoke \
                at once (8 warm containers in one JVM), each with its own EMF logger, against the pattern of the field \
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
            QueryHandler withEmf = data.handler(client, emf());
            QueryHandler without = data.handler(client, new NoMetrics());
            for (int i = 0; i < env.scale(300, 20); i++) {
                invoke(withEmf, event);
                invoke(without, event);
            }
            long emfBefore = out.emfDocuments();
            int rounds = env.scale(40, 4);
            double[] ratios = new double[rounds];
            double[] emfMeans = new double[rounds];
            double[] offMeans = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                // Alternate which goes first, so drift and GC timing favour neither.
                boolean emfFirst = r % 2 == 0;
                double a = emfFirst ? block(withEmf, event, 25) : 0;
                double b = block(without, event, 25);
                if (!emfFirst) {
                    a = block(withEmf, event, 25);
                }
                emfMeans[r] = a;
                offMeans[r] = b;
                ratios[r] = a / b;
            }
            long emfDocs = out.emfDocuments() - emfBefore;
            if (emfDocs != rounds * 25L) {
                throw new IllegalStateException("expected one EMF document per invocation: " + emfDocs + " for " + rounds * 25);
            }
            Samples ratio = Samples.of(ratios);
            Samples emfMs = Samples.of(emfMeans);
            Samples offMs = Samples.of(offMeans);
            details.add("EMF vs off, per-round ratio of means: " + ratio.spread("%.3f"));
            details.add("mean latency, EMF: " + emfMs.spread("%.3f") + " rounds, ms; off: " + offMs.spread("%.3f"));
            String emf = out.lastEmf();
            details.add("an EMF document as printed: " + (emf.length() > 400 ? emf.substring(0, 400) + "..." : emf));

            // (2) 8 threads: EMF per container versus the synchronized publisher.
            long seconds = env.scale(10, 2);
            Histogram emfTail = concurrent(data, client, event, seconds, i -> emf());
            Histogram lockTail;
            long sends;
            try (SynchronizedPublisher publisher = new SynchronizedPublisher(PUBLISH_INTERVAL_MILLIS, ENDPOINT_DELAY_MILLIS)) {
                lockTail = concurrent(data, client, event, seconds, i -> publisher.metrics());
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
            boolean met = ratio.median() <= TARGET_RATIO;
            values.put("emfOverheadRatio", ratio.median());
            values.put("emfMeanMillis", emfMs.median());
            values.put("offMeanMillis", offMs.median());
            values.put("concurrentEmfP99Millis", emfP99);
            values.put("concurrentPublisherP99Millis", lockP99);
            return new Result(name(),
                    "EMF " + Format.ratio(ratio.median()) + "x the handler without metrics; 8 threads p99 "
                            + Format.millis(emfP99),
                    "no metrics 1.000; synchronized publisher p99 " + Format.millis(lockP99),
                    Format.times(lockP99 / emfP99) + " lower p99",
                    "<= 1.02", met, details, values);
        }
    }

    private static Metrics emf() {
        Metrics m = new EmfMetricsProvider().getMetricsInstance();
        m.setNamespace("PulseBench");
        m.setDefaultDimensions(DimensionSet.of("Service", "query"));
        return m;
    }

    /** Mean latency in ms of {@code n} invocations. */
    private static double block(QueryHandler handler, APIGatewayV2HTTPEvent event, int n) {
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            invoke(handler, event);
        }
        return (System.nanoTime() - t0) / 1e6 / n;
    }

    private static void invoke(QueryHandler handler, APIGatewayV2HTTPEvent event) {
        APIGatewayV2HTTPResponse r = handler.handleRequest(event, new BenchContext("query", "m", 29_000, 1024));
        if (r.getStatusCode() != 200) {
            throw new IllegalStateException("query answered " + r.getStatusCode() + ": " + r.getBody());
        }
    }

    /** {@link #THREADS} warm containers invoked back to back for {@code seconds}; latency histogram in µs. */
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
                    while (System.nanoTime() < end) {
                        long t0 = System.nanoTime();
                        invoke(h, event);
                        own.recordValue(Math.min(60_000_000L, (System.nanoTime() - t0) / 1000));
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
