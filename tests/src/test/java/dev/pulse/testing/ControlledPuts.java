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
package dev.pulse.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;

/**
 * The real async client with a hand on its PutItem calls (the compactor's rollup writes): it can hold the next
 * put until released (a write stuck in the network while a newer build lands), slow every put down (honouring
 * the call's {@code apiCallTimeout} the way the SDK does: a put that would outlast it fails and never reaches the
 * table), or fail every put after the first n (a process that died). It records what landed, per item and when.
 */
public final class ControlledPuts extends DelegatingDynamoDb {

    private final Map<String, AtomicInteger> landed = new ConcurrentHashMap<>();
    private final AtomicLong lastLandedNanos = new AtomicLong();
    private final AtomicInteger started = new AtomicInteger();
    private final List<Duration> callTimeouts = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger allowed = new AtomicInteger(Integer.MAX_VALUE);
    private final AtomicBoolean holdArmed = new AtomicBoolean();
    private volatile CompletableFuture<PutItemRequest> held = new CompletableFuture<>();
    private final CompletableFuture<Void> gate = new CompletableFuture<>();
    private volatile Duration latency = Duration.ZERO;

    public ControlledPuts(DynamoDbAsyncClient delegate) {
        super(delegate);
    }

    /** Holds the next put until {@link #release()}; the returned future completes with it once it is held. */
    public CompletableFuture<PutItemRequest> holdNext() {
        held = new CompletableFuture<>();
        holdArmed.set(true);
        return held;
    }

    public void release() {
        gate.complete(null);
    }

    /** Every put takes {@code d} before it is sent. */
    public void latency(Duration d) {
        latency = d;
    }

    /** Puts after the next {@code n} fail like a process that died. */
    public void failAfter(int n) {
        allowed.set(n);
    }

    @Override
    public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
        started.incrementAndGet();
        Duration cap = request.overrideConfiguration()
                .flatMap(AwsRequestOverrideConfiguration::apiCallTimeout)
                .orElse(null);
        callTimeouts.add(cap);
        if (allowed.getAndDecrement() <= 0) {
            return CompletableFuture.failedFuture(new FaultInjectingDynamoDb.SimulatedCrashException());
        }
        CompletableFuture<Void> before;
        if (holdArmed.compareAndSet(true, false)) {
            held.complete(request);
            before = gate;
        } else if (latency.isZero()) {
            before = CompletableFuture.completedFuture(null);
        } else if (cap != null && cap.compareTo(latency) < 0) {
            return CompletableFuture.supplyAsync(
                    () -> {
                        throw ApiCallTimeoutException.create(cap.toMillis());
                    },
                    CompletableFuture.delayedExecutor(cap.toMillis(), TimeUnit.MILLISECONDS));
        } else {
            before = CompletableFuture.runAsync(
                    () -> {}, CompletableFuture.delayedExecutor(latency.toMillis(), TimeUnit.MILLISECONDS));
        }
        String key =
                request.item().get("pk").s() + '|' + request.item().get("sk").s();
        return before.thenCompose(v -> delegate.putItem(request)).whenComplete((r, e) -> {
            if (e == null) {
                landed.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                lastLandedNanos.accumulateAndGet(System.nanoTime(), Math::max);
            }
        });
    }

    /** pk|sk -> how many puts of it landed. */
    public Map<String, Integer> landed() {
        Map<String, Integer> out = new java.util.TreeMap<>();
        landed.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    public int landedTotal() {
        return landed.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** {@link System#nanoTime()} when the last put landed (0: none). */
    public long lastLandedNanos() {
        return lastLandedNanos.get();
    }

    public int started() {
        return started.get();
    }

    /** The {@code apiCallTimeout} each put carried (null: none). */
    public List<Duration> callTimeouts() {
        synchronized (callTimeouts) {
            return new ArrayList<>(callTimeouts);
        }
    }
}
