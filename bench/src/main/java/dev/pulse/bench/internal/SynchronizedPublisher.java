package dev.pulse.bench.internal;

import com.sun.net.httpserver.HttpServer;
import dev.pulse.testing.NoMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import software.amazon.lambda.powertools.metrics.model.MetricResolution;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The anti-pattern the product exists to avoid, rebuilt as a baseline: handlers record metrics into one shared
 * buffer guarded by {@code synchronized}, and a background publisher thread, inside the same monitor, sends the
 * buffer every {@code intervalMillis} to an endpoint that takes {@code endpointDelayMillis} to answer (a
 * PutMetricData call to a slow or throttled endpoint). While it sends, every handler that records a metric waits.
 * The endpoint is an HTTP server on 127.0.0.1 in this process, stopped by {@link #close()}.
 */
public final class SynchronizedPublisher implements AutoCloseable {

    private final HttpServer endpoint;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread publisher;
    private final List<String> buffer = new ArrayList<>();
    private final long intervalMillis;
    private volatile boolean running = true;
    private long sends;

    public SynchronizedPublisher(long intervalMillis, long endpointDelayMillis) throws IOException {
        this.intervalMillis = intervalMillis;
        this.endpoint = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        endpoint.createContext("/", ex -> {
            try (InputStream in = ex.getRequestBody()) {
                in.readAllBytes();
                Thread.sleep(endpointDelayMillis);
                ex.sendResponseHeaders(200, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                ex.close();
            }
        });
        endpoint.setExecutor(Executors.newFixedThreadPool(2));
        endpoint.start();
        this.publisher = Thread.ofPlatform().daemon().name("metrics-publisher").start(this::loop);
    }

    /** What a handler's metric call does: append under the shared monitor. */
    public synchronized void record(String name, double value, MetricUnit unit, MetricResolution resolution) {
        buffer.add(name + "=" + value + unit);
    }

    public synchronized long sends() {
        return sends;
    }

    private void loop() {
        URI uri = URI.create("http://127.0.0.1:" + endpoint.getAddress().getPort() + "/metrics");
        while (running) {
            try {
                Thread.sleep(intervalMillis);
                synchronized (this) {
                    String body = String.join("\n", buffer);
                    buffer.clear();
                    http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                            HttpResponse.BodyHandlers.discarding());
                    sends++;
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                // A failed send loses the buffer, as such publishers do; the baseline's latency is what matters.
            }
        }
    }

    /** Handler-side metrics that go through this publisher. */
    public NoMetrics metrics() {
        return new NoMetrics() {
            @Override
            public void addMetric(String name, double value, MetricUnit unit, MetricResolution resolution) {
                record(name, value, unit, resolution);
            }
        };
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        publisher.interrupt();
        publisher.join(5_000);
        endpoint.stop(0);
        ((java.util.concurrent.ExecutorService) endpoint.getExecutor()).shutdownNow();
        http.close();
    }
}
