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
package dev.pulse.local;

import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.esm.KinesisShardSource;
import dev.pulse.local.esm.ShardProcessor;
import dev.pulse.local.esm.ShardSource;
import dev.pulse.local.esm.ShardStats;
import dev.pulse.local.lambda.FaultPlan;
import dev.pulse.local.lambda.LocalLambda;
import dev.pulse.local.template.MappingSpec;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * One event source mapping of the template, running: it discovers the stream's shards (and the children of a
 * resharded one, read from their start once the parent is done, as Lambda does) and runs a
 * {@link ShardProcessor} per shard on its own thread, invoking the function through the local Lambda service.
 */
public final class MappingRunner implements AutoCloseable {

    /** Where a mapping sends the failure record of a discarded batch: the destination ARN and the JSON. */
    @FunctionalInterface
    interface Destinations {
        void send(String arn, String json) throws Exception;
    }

    private static final System.Logger LOG = System.getLogger(MappingRunner.class.getName());

    private final MappingSpec spec;
    private final String functionName;
    private final LocalLambda lambda;
    private final Destinations destinations;
    private final KinesisClient kinesis;
    private final Map<String, Shard> shards = new ConcurrentHashMap<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final Thread discovery;
    private volatile boolean stopped;
    private volatile boolean started;

    /** A shard being read; {@code done} is set by its own thread once every record of a closed shard is settled. */
    private record Shard(
            ShardSource source,
            ShardProcessor processor,
            ShardStats stats,
            java.util.concurrent.atomic.AtomicBoolean done) {}

    private final FaultPlan faults;
    private final java.util.concurrent.atomic.AtomicLong duplicates = new java.util.concurrent.atomic.AtomicLong();

    private MappingRunner(
            MappingSpec spec,
            String functionName,
            LocalLambda lambda,
            Destinations destinations,
            URI kinesisEndpoint,
            FaultPlan faults) {
        this.faults = faults;
        this.spec = spec;
        this.functionName = functionName;
        this.lambda = lambda;
        this.destinations = destinations;
        kinesis = KinesisClient.builder()
                .endpointOverride(kinesisEndpoint)
                .region(Region.of(LocalDeployment.REGION))
                .credentialsProvider(LocalDeployment.CREDENTIALS)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
        discovery = Thread.ofPlatform()
                .daemon()
                .name("esm-" + spec.functionId() + "-discovery")
                .unstarted(this::discover);
    }

    static MappingRunner start(
            MappingSpec spec,
            String functionName,
            LocalLambda lambda,
            Destinations destinations,
            URI kinesisEndpoint,
            FaultPlan faults)
            throws InterruptedException {
        MappingRunner r = new MappingRunner(spec, functionName, lambda, destinations, kinesisEndpoint, faults);
        r.discovery.start();
        // The first discovery positions every shard's iterator: records put after start() returns are seen even
        // with StartingPosition LATEST.
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!r.started && System.nanoTime() < deadline && r.discovery.isAlive()) {
            Thread.sleep(20);
        }
        if (!r.started) {
            r.close();
            throw new IllegalStateException("event source mapping " + spec.functionId() + "." + spec.eventId()
                    + " could not list the shards of " + spec.sourceArn());
        }
        return r;
    }

    public MappingSpec spec() {
        return spec;
    }

    /** One line for the start-up summary. */
    public String describe() {
        String from = spec.sourceArn().substring(spec.sourceArn().lastIndexOf('/') + 1) + " (Kinesis)";
        return String.format(
                "%s -> %s: %d shard(s), batch %d, window %ds, bisect %s, retries %s, max age %s, %s%s",
                from,
                spec.functionId(),
                shards.size(),
                spec.batchSize(),
                spec.maxBatchingWindow().toSeconds(),
                spec.bisectOnError(),
                spec.maxRetryAttempts() < 0 ? "unlimited" : Integer.toString(spec.maxRetryAttempts()),
                spec.maxRecordAge() == null ? "none" : spec.maxRecordAge().toSeconds() + "s",
                spec.reportBatchItemFailures() ? "partial batch responses" : "whole batches",
                spec.parallelizationFactor() > 1
                        ? ", parallelization " + spec.parallelizationFactor() + " run as 1"
                        : "");
    }

    private void discover() {
        boolean first = true;
        while (!stopped) {
            try {
                for (var s : listShards()) {
                    if (shards.containsKey(s.id())) {
                        continue;
                    }
                    Shard parent = s.parent() == null ? null : shards.get(s.parent());
                    if (parent != null && !parent.done().get()) {
                        continue;
                    }
                    // Shards there at the start follow StartingPosition; shards that appear later (children of a
                    // resharded stream) are read whole, or records would be skipped.
                    String position = first ? spec.startingPosition() : "TRIM_HORIZON";
                    addShard(s.id(), position);
                }
                started = true;
                first = false;
            } catch (RuntimeException e) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "listing the shards of " + spec.sourceArn() + " failed: " + e.getMessage());
            }
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private record ShardInfo(String id, String parent) {}

    private List<ShardInfo> listShards() {
        String name = spec.sourceArn().substring(spec.sourceArn().indexOf(":stream/") + ":stream/".length());
        return kinesis.describeStream(b -> b.streamName(name)).streamDescription().shards().stream()
                .map(s -> new ShardInfo(s.shardId(), s.parentShardId()))
                .toList();
    }

    private void addShard(String shardId, String position) {
        ShardSource source =
                new KinesisShardSource(kinesis, spec.sourceArn(), shardId, position, LocalDeployment.REGION);
        ShardStats stats = new ShardStats();
        String arn = lambda.config(functionName).arn();
        ShardProcessor processor = new ShardProcessor(
                spec,
                source,
                this::invoke,
                spec.onFailureArn() == null ? null : json -> destinations.send(spec.onFailureArn(), json),
                Clock.systemUTC(),
                arn,
                stats);
        Shard shard = new Shard(source, processor, stats, new java.util.concurrent.atomic.AtomicBoolean());
        shards.put(shardId, shard);
        Thread t = Thread.ofPlatform()
                .daemon()
                .name("esm-" + spec.functionId() + "-" + shardId)
                .start(() -> {
                    try {
                        processor.runUntil(() -> stopped);
                        // ShardProcessor is confined to this thread; discovery learns of the end through the flag.
                        shard.done().set(processor.finished());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        LOG.log(
                                System.Logger.Level.ERROR,
                                "shard " + shardId + " of " + spec.functionId() + " stopped: " + e,
                                e);
                    }
                });
        threads.add(t);
    }

    /** Shards being read (closed parents included until they are done). */
    public int shardCount() {
        return shards.size();
    }

    /** Invokes the function; with a fault plan, sometimes delivers a successful batch a second time (at-least-once). */
    private InvokeResult invoke(byte[] payload) throws InterruptedException {
        InvokeResult r = lambda.invoke(functionName, payload);
        if (!r.failed() && faults.duplicateDelivery(spec.functionId())) {
            duplicates.incrementAndGet();
            lambda.invoke(functionName, payload);
        }
        return r;
    }

    /** Batches delivered twice on purpose (fault injection). */
    public long duplicateDeliveries() {
        return duplicates.get();
    }

    private long sum(ToLongFunction<ShardStats> f) {
        return shards.values().stream().mapToLong(s -> f.applyAsLong(s.stats())).sum();
    }

    public long recordsRead() {
        return sum(ShardStats::recordsRead);
    }

    public long recordsDone() {
        return sum(ShardStats::recordsDone);
    }

    public long invocations() {
        return sum(ShardStats::invocations);
    }

    public long functionErrors() {
        return sum(ShardStats::functionErrors);
    }

    public long recordsToDestination() {
        return sum(ShardStats::recordsToDestination);
    }

    /**
     * Records read and not settled yet, plus one per Kinesis shard whose reader reports being behind the tip
     * (Kinesis does; kinesalite always says 0, so callers also watch {@link #recordsRead()} settle).
     */
    public long backlog() {
        long behind = shards.values().stream()
                .filter(s -> s.source() instanceof KinesisShardSource k && k.millisBehindLatest() > 0)
                .count();
        return recordsRead() - recordsDone() + behind;
    }

    /** Age of the oldest unsettled work: now minus the newest arrival done, when anything is outstanding. */
    public long lagMillis() {
        if (backlog() == 0) {
            return 0;
        }
        Instant newest = shards.values().stream()
                .map(s -> s.stats().newestArrivalDone())
                .filter(java.util.Objects::nonNull)
                .max(Instant::compareTo)
                .orElse(null);
        return newest == null ? 0 : Math.max(0, System.currentTimeMillis() - newest.toEpochMilli());
    }

    @Override
    public void close() {
        stopped = true;
        discovery.interrupt();
        // A shard thread may be waiting on an invocation or a backoff: interrupt rather than wait it out.
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        kinesis.close();
    }
}
