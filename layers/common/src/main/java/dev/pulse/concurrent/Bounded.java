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
package dev.pulse.concurrent;

import java.util.Collection;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Runs asynchronous tasks over a collection with at most {@code concurrency} in flight, without blocking a
 * thread per task. After the first failure no new task starts; the result completes, exceptionally with
 * that failure, once every started task has ended, so no task of a call outlives it.
 */
public final class Bounded {

    private Bounded() {}

    public static <T> CompletableFuture<Void> forEach(
            Collection<T> items, int concurrency, Function<T, CompletableFuture<?>> task) {
        return forEach(items, concurrency, task, () -> false);
    }

    /**
     * As {@link #forEach(Collection, int, Function)}, and no new task starts once {@code stop} is true (a
     * caller that gave up at its deadline must not leave work running into the next invocation).
     */
    // The callback handles every outcome, failures included, and completes the future returned: its stage adds nothing.
    @SuppressWarnings("FutureReturnValueIgnored")
    public static <T> CompletableFuture<Void> forEach(
            Collection<T> items,
            int concurrency,
            Function<T, CompletableFuture<?>> task,
            java.util.function.BooleanSupplier stop) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1");
        }
        Queue<T> queue = new ConcurrentLinkedQueue<>(items);
        int lanes = Math.min(concurrency, items.size());
        if (lanes == 0) {
            return CompletableFuture.completedFuture(null);
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger open = new AtomicInteger(lanes);
        CompletableFuture<Void> done = new CompletableFuture<>();
        for (int i = 0; i < lanes; i++) {
            lane(queue, task, failure, stop).whenComplete((v, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, unwrap(e));
                }
                if (open.decrementAndGet() == 0) {
                    Throwable f = failure.get();
                    if (f == null) {
                        done.complete(null);
                    } else {
                        done.completeExceptionally(f);
                    }
                }
            });
        }
        return done;
    }

    private static <T> CompletableFuture<Void> lane(
            Queue<T> queue,
            Function<T, CompletableFuture<?>> task,
            AtomicReference<Throwable> failure,
            java.util.function.BooleanSupplier stop) {
        if (failure.get() == null && !queue.isEmpty() && stop.getAsBoolean()) {
            failure.compareAndSet(null, new StoppedException("stopped with " + queue.size() + " tasks left"));
        }
        T next = failure.get() == null ? queue.poll() : null;
        if (next == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?> started;
        try {
            started = task.apply(next);
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        // The next task starts on the pool, not in the completing thread: no stack growth per item.
        return started.handle((v, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, unwrap(e));
                    }
                    return null;
                })
                .thenComposeAsync(v -> lane(queue, task, failure, stop));
    }

    /** The result of a run whose stop condition became true before every task started. */
    public static final class StoppedException extends RuntimeException {
        public StoppedException(String message) {
            super(message, null, false, false);
        }
    }

    /** The cause inside {@link CompletionException} wrappers. */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
