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
package dev.pulse.local.lambda;

import dev.pulse.local.esm.InvokeResult;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The Lambda service on one machine: functions by name or ARN, each with a pool of execution environments that
 * grows when every environment is busy (as Lambda scales out on concurrent invocations, up to a cap) and reuses
 * warm ones. The load generator's self-invocation for workers and the event source mappings both come through
 * here.
 */
public final class LocalLambda implements AutoCloseable {

    /** Invocation counters of one function. */
    public static final class Stats {
        private final AtomicLong invocations = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();
        private final AtomicLong coldStarts = new AtomicLong();

        /** Invocations, failed ones included. */
        public long invocations() {
            return invocations.get();
        }

        /** Invocations that ended in a function error, and environments that could not start. */
        public long errors() {
            return errors.get();
        }

        /** Execution environments started. */
        public long coldStarts() {
            return coldStarts.get();
        }
    }

    private final Map<String, Pool> byName = new LinkedHashMap<>();
    private final Function<FunctionConfig, java.util.function.Consumer<String>> logs;
    private final int maxConcurrency;
    private final FaultPlan faults;

    /**
     * @param functions      the functions to serve
     * @param logs           where each function's output lines go
     * @param maxConcurrency environments per function at most (invocations beyond it wait, as if throttled and
     *                       retried)
     */
    public LocalLambda(
            Collection<FunctionConfig> functions,
            Function<FunctionConfig, java.util.function.Consumer<String>> logs,
            int maxConcurrency) {
        this(functions, logs, maxConcurrency, FaultPlan.NONE);
    }

    /** As above, with faults injected into invocations ({@link FaultPlan#NONE} for none). */
    public LocalLambda(
            Collection<FunctionConfig> functions,
            Function<FunctionConfig, java.util.function.Consumer<String>> logs,
            int maxConcurrency,
            FaultPlan faults) {
        this.logs = logs;
        this.maxConcurrency = maxConcurrency;
        this.faults = faults;
        for (FunctionConfig f : functions) {
            Pool pool = new Pool(f);
            byName.put(f.name(), pool);
            byName.put(f.arn(), pool);
            byName.put(f.logicalId(), pool);
        }
    }

    /** True if {@code nameOrArn} is a function name, ARN (optionally qualified with $LATEST) or logical id. */
    public boolean has(String nameOrArn) {
        return pool(nameOrArn) != null;
    }

    public FunctionConfig config(String nameOrArn) {
        return require(nameOrArn).config;
    }

    public Stats stats(String nameOrArn) {
        return require(nameOrArn).stats;
    }

    /** A synchronous (RequestResponse) invocation. */
    public InvokeResult invoke(String nameOrArn, byte[] payload) throws InterruptedException {
        return require(nameOrArn).invoke(payload);
    }

    /**
     * Starts {@code count} environments of a function together and waits for their init, so a run's first
     * invocations do not queue behind JVM start-up (counted as cold starts all the same). Environments already
     * running count towards {@code count}. A SnapStart function gets its spare too, one more environment,
     * initialised with them, and keeps one from then on.
     *
     * @return how many came up; the others failed their init (their output is in the function's log)
     */
    public int prewarm(String nameOrArn, int count) throws InterruptedException {
        return require(nameOrArn).prewarm(count);
    }

    /** The PIDs of every running environment. */
    public List<Long> pids() {
        List<Long> out = new ArrayList<>();
        for (Pool p : distinctPools()) {
            out.addAll(p.pids());
        }
        return out;
    }

    private Pool require(String nameOrArn) {
        Pool p = pool(nameOrArn);
        if (p == null) {
            throw new IllegalArgumentException("Function not found: " + nameOrArn);
        }
        return p;
    }

    private Pool pool(String nameOrArn) {
        String key = nameOrArn;
        if (key.startsWith("arn:") && key.split(":").length > 7) {
            key = key.substring(0, key.lastIndexOf(':'));
        }
        return byName.get(key);
    }

    private Collection<Pool> distinctPools() {
        return new java.util.LinkedHashSet<>(byName.values());
    }

    @Override
    public void close() {
        for (Pool p : distinctPools()) {
            p.close();
        }
    }

    private final class Pool {
        final FunctionConfig config;
        final Stats stats = new Stats();
        final Semaphore slots = new Semaphore(maxConcurrency, true);
        final Deque<ExecutionEnvironment> idle = new ArrayDeque<>();
        /** Environments started ahead of need (warm-up, spare) and not yet initialised; an invocation may claim one. */
        final List<ExecutionEnvironment> warming = new ArrayList<>();

        final List<ExecutionEnvironment> all = new ArrayList<>();
        /** True for a SnapStart function: it keeps an initialised spare (see {@link #replenish()}). */
        final boolean spare;
        /**
         * Set by the warm-up: the spare is kept from then on. A single invocation (make invoke, the tests) starts no
         * spare it would never use.
         */
        volatile boolean warmed;
        /** A spare is being started (not yet in {@link #warming}): one at a time. */
        boolean spareStarting;

        volatile boolean closed;

        Pool(FunctionConfig config) {
            this.config = config;
            this.spare = config.init() != FunctionConfig.Init.ON_DEMAND;
        }

        InvokeResult invoke(byte[] payload) throws InterruptedException {
            slots.acquire();
            try {
                ExecutionEnvironment env;
                try {
                    env = take();
                } catch (IOException e) {
                    stats.errors.incrementAndGet();
                    throw new IllegalStateException("could not start " + config.logicalId() + ": " + e.getMessage(), e);
                }
                stats.invocations.incrementAndGet();
                InvokeResult r;
                try {
                    r = env.invoke(payload, faults.beforeInvoke(config.logicalId()));
                } catch (InterruptedException | RuntimeException e) {
                    // The invocation's outcome is unknown: the environment cannot be handed out again.
                    env.close();
                    throw e;
                }
                if (closed) {
                    // Stopping killed the environment under the invocation: that is not the function's error.
                    throw new IllegalStateException("the local Lambda service is stopping");
                }
                if (r.failed()) {
                    stats.errors.incrementAndGet();
                }
                give(env);
                return r;
            } finally {
                slots.release();
            }
        }

        int prewarm(int count) throws InterruptedException {
            List<Thread> threads = new ArrayList<>();
            java.util.concurrent.atomic.AtomicInteger ready = new java.util.concurrent.atomic.AtomicInteger();
            // A SnapStart function's spare is initialised with the others, before traffic, as Lambda has the
            // snapshot before the version can be invoked.
            warmed = true;
            int total = Math.min(spare ? count + 1 : count, maxConcurrency);
            // Environments already started (a schedule's first run may come before the warm-up) count.
            int existing = pids().size();
            for (int i = existing; i < total; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        if (startClaimable("prewarm")) {
                            ready.incrementAndGet();
                        }
                    } catch (IOException | InterruptedException | RuntimeException e) {
                        stats.errors.incrementAndGet();
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            return Math.min(existing + ready.get(), count);
        }

        synchronized List<Long> pids() {
            return all.stream()
                    .filter(e -> !e.dead())
                    .map(ExecutionEnvironment::pid)
                    .toList();
        }

        private ExecutionEnvironment take() throws IOException {
            List<ExecutionEnvironment> stale = new ArrayList<>();
            ExecutionEnvironment e;
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the local Lambda service is stopping");
                }
                while ((e = idle.poll()) != null && e.dead()) {
                    all.remove(e);
                    stale.add(e);
                }
                if (e == null && !warming.isEmpty()) {
                    // One started ahead is still initialising: waiting for it is sooner than a JVM of our own.
                    e = warming.removeFirst();
                }
            }
            closeAll(stale);
            if (e == null) {
                e = start(false);
            }
            replenish();
            return e;
        }

        /**
         * Keeps a SnapStart function's spare: when every environment is busy and none is initialising, one more starts
         * in the background (up to the cap). Lambda restores a new environment from the snapshot in well under a
         * second; a JVM started on demand here takes several (and far more on a loaded machine), so the local stand-in
         * for the restore is an environment initialised before it is needed, not one started when it is.
         */
        private void replenish() {
            synchronized (this) {
                if (!spare
                        || !warmed
                        || closed
                        || spareStarting
                        || !idle.isEmpty()
                        || !warming.isEmpty()
                        || all.size() >= maxConcurrency) {
                    return;
                }
                spareStarting = true;
            }
            Thread.ofVirtual().name(config.logicalId() + "-spare").start(() -> {
                try {
                    if (!startClaimable("spare") && !closed) {
                        stats.errors.incrementAndGet();
                    }
                } catch (IOException | RuntimeException e) {
                    if (!closed) {
                        stats.errors.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    synchronized (this) {
                        spareStarting = false;
                    }
                }
            });
        }

        /**
         * Starts an environment that an invocation may claim while it initialises ({@link #warming}), waits for its
         * init and then makes it idle, unless an invocation claimed it (that invocation waits for the init itself).
         *
         * @return true when the init succeeded
         */
        private boolean startClaimable(String why) throws IOException, InterruptedException {
            ExecutionEnvironment e = start(true);
            boolean ok = false;
            try {
                ok = e.awaitInit(why) == null;
                return ok;
            } finally {
                boolean claimed;
                synchronized (this) {
                    claimed = !warming.remove(e);
                }
                if (!claimed) {
                    if (ok) {
                        give(e);
                    } else {
                        synchronized (this) {
                            all.remove(e);
                        }
                        e.close();
                    }
                }
            }
        }

        /** Starts an environment; a claimable one goes to {@link #warming} in the same step. */
        private ExecutionEnvironment start(boolean claimable) throws IOException {
            ExecutionEnvironment e = ExecutionEnvironment.start(config, logs.apply(config));
            stats.coldStarts.incrementAndGet();
            synchronized (this) {
                all.add(e);
                if (claimable) {
                    warming.add(e);
                }
                if (closed) {
                    e.close();
                    throw new IllegalStateException("the local Lambda service is stopping");
                }
            }
            return e;
        }

        /** Releases what a dead environment still holds (its Runtime API server), outside the pool's lock. */
        private static void closeAll(List<ExecutionEnvironment> dead) {
            dead.forEach(ExecutionEnvironment::close);
        }

        private synchronized void give(ExecutionEnvironment e) {
            if (e.dead()) {
                all.remove(e);
                e.close();
            } else {
                idle.push(e);
            }
        }

        void close() {
            List<ExecutionEnvironment> envs;
            synchronized (this) {
                closed = true;
                envs = new ArrayList<>(all);
                all.clear();
                idle.clear();
                warming.clear();
            }
            // In parallel and outside the lock: each may take seconds to exit.
            envs.parallelStream().forEach(ExecutionEnvironment::close);
        }
    }
}
