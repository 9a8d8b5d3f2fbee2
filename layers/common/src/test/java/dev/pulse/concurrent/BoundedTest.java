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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BoundedTest {

    @Test
    void forEach_whenTasksComplete_neverExceedsConcurrencyAndRunsEveryTask() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        List<Integer> items = IntStream.range(0, 200).boxed().toList();

        Bounded.forEach(items, 3, i -> {
                    peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    return CompletableFuture.runAsync(
                            () -> {
                                ran.incrementAndGet();
                                inFlight.decrementAndGet();
                            },
                            CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS));
                })
                .get(30, TimeUnit.SECONDS);

        assertThat(ran.get()).isEqualTo(200);
        assertThat(peak.get()).isBetween(1, 3);
    }

    @Test
    void forEach_whenOneTaskFails_startsNoNewTaskAndFailsWithThatCause() {
        AtomicInteger started = new AtomicInteger();
        List<Integer> items = IntStream.range(0, 1000).boxed().toList();

        assertThatThrownBy(() -> Bounded.forEach(items, 2, i -> {
                            started.incrementAndGet();
                            return i == 5
                                    ? CompletableFuture.failedFuture(new IllegalStateException("boom"))
                                    : CompletableFuture.completedFuture(null);
                        })
                        .join())
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
        assertThat(started.get()).isLessThan(20);
    }

    @Test
    void forEach_whenTasksCompleteSynchronously_handlesManyItemsWithoutStackGrowth() {
        AtomicInteger ran = new AtomicInteger();
        Bounded.forEach(IntStream.range(0, 200_000).boxed().toList(), 1, i -> {
                    ran.incrementAndGet();
                    return CompletableFuture.completedFuture(null);
                })
                .join();
        assertThat(ran.get()).isEqualTo(200_000);
    }

    @Test
    void forEach_whenTaskThrowsInsteadOfReturningAFuture_failsWithIt() {
        assertThatThrownBy(() -> Bounded.forEach(List.of(1, 2), 2, i -> {
                            throw new IllegalArgumentException("sync");
                        })
                        .join())
                .cause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sync");
    }

    @Test
    void forEach_whenStopBecomesTrue_startsNoFurtherTaskAndFailsAsStopped() {
        AtomicInteger started = new AtomicInteger();
        List<Integer> items = IntStream.range(0, 1000).boxed().toList();

        assertThatThrownBy(() -> Bounded.forEach(
                                items,
                                2,
                                i -> {
                                    started.incrementAndGet();
                                    return CompletableFuture.completedFuture(null);
                                },
                                () -> started.get() >= 10)
                        .join())
                .cause()
                .isInstanceOf(Bounded.StoppedException.class);
        assertThat(started.get()).isBetween(10, 12);
    }
}
