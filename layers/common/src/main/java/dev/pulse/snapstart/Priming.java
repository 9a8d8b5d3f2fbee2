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
package dev.pulse.snapstart;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import dev.pulse.aggregate.Summary;
import dev.pulse.retry.Jitter;
import dev.pulse.store.codec.SummaryCodec;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A function's SnapStart runtime hooks (org.crac). {@link #beforeCheckpoint}, run by Lambda once the init is done
 * and before it takes the snapshot of a published version, primes: the function's own code runs on synthetic input
 * against {@link PrimingClients} (SDK clients whose HTTP client answers in memory), so classes are loaded, the JSON
 * and EMF paths and the SDK's marshalling have run, and nothing reaches AWS or the real table, stream or queue. The
 * production clients are never used before the snapshot: no connection is pooled and no credentials are resolved
 * in it. {@link #afterRestore}, run in every environment restored from the snapshot before its first invocation,
 * refreshes what must differ per environment: the backoff's random seed ({@link Jitter#reseed()}), plus whatever a
 * function adds in {@link #refresh()}.
 *
 * <p>A priming failure is logged and counted, never thrown: Lambda would fail the version's publication over an
 * optimisation. The runtime holds registered resources weakly: the handler keeps its {@code Priming} in a field.
 */
public abstract class Priming implements Resource {

    private static final Logger LOG = LoggerFactory.getLogger(Priming.class);

    private final String function;
    private final AtomicInteger primedPaths = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger restores = new AtomicInteger();
    private volatile double primingMillis;
    private final AtomicLong emfBytes = new AtomicLong();
    private volatile Map<String, Long> lastRequests = Map.of();

    protected Priming(String function) {
        this.function = function;
    }

    /** Registers {@code priming} with the global CRaC context (a no-op outside a runtime with CRaC) and returns it. */
    public static <P extends Priming> P register(P priming) {
        Core.getGlobalContext().register(priming);
        return priming;
    }

    /**
     * Exercises the function's hot paths without touching real data.
     *
     * @return how many paths were primed (one per synthetic invocation or codec round trip)
     */
    protected abstract int prime() throws Exception;

    /** Metrics named like the function's own, serialising each document and dropping it ({@link #emfBytes}). */
    protected final software.amazon.lambda.powertools.metrics.Metrics throwawayMetrics() {
        return ThrowawayMetrics.create(function, emfBytes);
    }

    /** Keeps what {@code clients} answered, for {@link #lastRequests}. */
    protected final void recordRequests(PrimingClients clients) {
        lastRequests = clients.requests();
    }

    /** The DynamoDB and SQS requests the last priming made, all answered in memory (tests). */
    public Map<String, Long> lastRequests() {
        return lastRequests;
    }

    /** Characters of EMF the priming serialised and dropped (tests). */
    public long emfBytes() {
        return emfBytes.get();
    }

    /** What else the function must make fresh after a restore; nothing by default. */
    protected void refresh() {}

    @Override
    public final void beforeCheckpoint(Context<? extends Resource> context) {
        long started = System.nanoTime();
        try {
            primedPaths.addAndGet(prime() + (PrimingClients.primeCrtHttpClient() ? 1 : 0));
            // Loaded and drawn from once here, so the first retry after a restore pays no class loading.
            Jitter.nextLong(2);
        } catch (Exception | LinkageError e) {
            failures.incrementAndGet();
            LOG.warn("snapstart priming failed; the snapshot is taken unprimed", e);
        } finally {
            primingMillis = (System.nanoTime() - started) / 1e6;
        }
        LOG.info(
                "snapstart priming done",
                entry("function", function),
                entry("paths", primedPaths.get()),
                entry("failures", failures.get()),
                entry("ms", Math.round(primingMillis)));
    }

    @Override
    public final void afterRestore(Context<? extends Resource> context) {
        Jitter.reseed();
        refresh();
        restores.incrementAndGet();
    }

    /**
     * The storage codecs' round trip with no I/O: a summary with a sketch encoded, decoded, merged and asked for a
     * percentile, and a rollup's bucket map encoded and decoded.
     *
     * @return the paths primed (2)
     */
    protected static int primeCodecs() {
        Summary a = new Summary();
        for (int i = 1; i <= 100; i++) {
            a.add(i * 1.5);
        }
        Summary back = SummaryCodec.decode(SummaryCodec.encode(a), true);
        back.merge(a);
        if (back.count() != 200 || !(back.quantile(0.99) > 0)) {
            throw new IllegalStateException("summary round trip: count " + back.count());
        }
        SortedMap<Integer, Summary> buckets = new TreeMap<>(Map.of(0, a, 1, back));
        if (SummaryCodec.decodeBuckets(SummaryCodec.encodeBuckets(buckets), true)
                        .size()
                != 2) {
            throw new IllegalStateException("bucket round trip");
        }
        return 2;
    }

    /** Paths primed by every {@link #beforeCheckpoint} so far. */
    public int primedPaths() {
        return primedPaths.get();
    }

    /** Priming runs that failed. */
    public int failures() {
        return failures.get();
    }

    /** {@link #afterRestore} runs so far. */
    public int restores() {
        return restores.get();
    }

    /** How long the last priming took. */
    public double primingMillis() {
        return primingMillis;
    }
}
