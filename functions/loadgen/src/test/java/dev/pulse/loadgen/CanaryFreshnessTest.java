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
package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A canary's freshness is the time from its send to the first read that counted it. The coordinator reads while the
 * load runs ({@link CanaryWatch}); reads after the load only catch the canaries those did not count.
 */
class CanaryFreshnessTest {

    private static List<Integer> none(int n) {
        return Collections.nCopies(n, 0);
    }

    @Test
    void verify_whenReadsDuringTheLoadCountedCanaries_freshnessIsFromThoseReads() throws Exception {
        // Canaries sent at 0, 1000, 2000, 3000 ms; the reads during the load counted 1 at 1500, 3 at 2500 ms.
        List<Long> sendTimes = List.of(0L, 1_000L, 2_000L, 3_000L);
        List<CanaryWatch.Poll> during =
                List.of(new CanaryWatch.Poll(500, 0), new CanaryWatch.Poll(1_500, 1), new CanaryWatch.Poll(2_500, 3));
        long after = System.currentTimeMillis();

        CanaryVerifier.Verdict v = CanaryVerifier.verify(
                "run",
                sendTimes,
                none(4),
                during,
                (id, from, to) -> new CanaryVerifier.Observed(4, 10),
                Deadline.inMillis(1_000),
                10);

        assertThat(v.freshnessMs()[0]).isEqualTo(1_500);
        assertThat(v.freshnessMs()[1]).isEqualTo(1_500);
        assertThat(v.freshnessMs()[2]).isEqualTo(500);
        // The last one was only counted by the check after the load.
        assertThat(v.freshnessMs()[3]).isGreaterThanOrEqualTo(after - 3_000);
        assertThat(v.ok()).isTrue();
    }

    @Test
    void verify_whenNoReadDuringTheLoad_measuresFromTheCheckAfterIt() throws Exception {
        long now = System.currentTimeMillis();
        List<Long> sendTimes = List.of(now - 10_000, now - 5_000);

        CanaryVerifier.Verdict v = CanaryVerifier.verify(
                "run",
                sendTimes,
                none(2),
                List.of(),
                (id, from, to) -> new CanaryVerifier.Observed(2, 3),
                Deadline.inMillis(1_000),
                10);

        assertThat(v.freshnessMs()[0]).isGreaterThanOrEqualTo(10_000);
        assertThat(v.freshnessMs()[1]).isGreaterThanOrEqualTo(5_000);
    }

    @Test
    void verify_whenACountDuringTheLoadFallsLater_keepsTheFirstTimeEachCanaryWasCounted() throws Exception {
        // A read that lands on a replica behind the previous one may count fewer: a canary once counted stays counted.
        List<CanaryWatch.Poll> during =
                List.of(new CanaryWatch.Poll(100, 2), new CanaryWatch.Poll(200, 1), new CanaryWatch.Poll(300, 2));

        CanaryVerifier.Verdict v = CanaryVerifier.verify(
                "run",
                List.of(0L, 50L),
                none(2),
                during,
                (id, from, to) -> new CanaryVerifier.Observed(2, 3),
                Deadline.inMillis(1_000),
                10);

        assertThat(v.freshnessMs()).containsExactly(100, 50);
    }

    @Test
    void stop_whenTheReaderCountsMoreOverTime_answersEveryReadInTimeOrder() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        AtomicLong clock = new AtomicLong(1_000_000);
        List<long[]> ranges = Collections.synchronizedList(new ArrayList<>());
        CanaryWatch w = CanaryWatch.start(
                "run",
                (id, from, to) -> {
                    ranges.add(new long[] {from, to});
                    clock.addAndGet(7);
                    return new CanaryVerifier.Observed(reads.incrementAndGet(), 0);
                },
                1,
                clock::get);
        while (reads.get() < 5) {
            Thread.sleep(1);
        }

        List<CanaryWatch.Poll> polls = w.stop();

        assertThat(polls).hasSizeGreaterThanOrEqualTo(5);
        for (int i = 0; i < polls.size(); i++) {
            assertThat(polls.get(i).count()).isEqualTo(i + 1);
            if (i > 0) {
                assertThat(polls.get(i).atMillis())
                        .isGreaterThan(polls.get(i - 1).atMillis());
            }
        }
        // Every read covers the minute before the watch started up to a minute past the read.
        assertThat(ranges.get(0)[0]).isEqualTo(1_000_000 - 60_000);
        assertThat(ranges.get(0)[1]).isEqualTo(1_000_000 + 60_000);
        assertThat(w.failedReads()).isZero();
    }

    @Test
    void stop_whenSomeReadsFail_skipsThemAndCountsThem() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CanaryWatch w = CanaryWatch.start(
                "run",
                (id, from, to) -> {
                    int c = calls.incrementAndGet();
                    if (c % 2 == 1) {
                        throw new IllegalStateException("query API answered 503");
                    }
                    return new CanaryVerifier.Observed(c, 0);
                },
                1,
                System::currentTimeMillis);
        while (calls.get() < 6) {
            Thread.sleep(1);
        }

        List<CanaryWatch.Poll> polls = w.stop();

        assertThat(polls).isNotEmpty().allSatisfy(p -> assertThat(p.count() % 2).isZero());
        assertThat(w.failedReads()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void stop_whenAReadNeverAnswersAndIgnoresInterrupts_returnsTheReadsSoFar() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CanaryWatch w = CanaryWatch.start(
                "run",
                (id, from, to) -> {
                    if (calls.incrementAndGet() < 3) {
                        return new CanaryVerifier.Observed(calls.get(), 0);
                    }
                    while (true) { // a stuck call that swallows interrupts
                        try {
                            Thread.sleep(60_000);
                        } catch (InterruptedException ignored) {
                            // keeps waiting
                        }
                    }
                },
                1,
                System::currentTimeMillis);
        while (calls.get() < 3) {
            Thread.sleep(1);
        }

        long began = System.nanoTime();
        List<CanaryWatch.Poll> polls = w.stop();

        assertThat((System.nanoTime() - began) / 1_000_000).isLessThan(CanaryWatch.STOP_WAIT_MILLIS + 2_000);
        assertThat(polls).extracting(CanaryWatch.Poll::count).containsExactly(1L, 2L);
    }

    @Test
    void stop_whenAReadThrowsAnError_keepsPollingAndCountsIt() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CanaryWatch w = CanaryWatch.start(
                "run",
                (id, from, to) -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new AssertionError("reader failed");
                    }
                    return new CanaryVerifier.Observed(1, 1);
                },
                1,
                System::currentTimeMillis);
        while (calls.get() < 3) {
            Thread.sleep(1);
        }

        List<CanaryWatch.Poll> polls = w.stop();

        assertThat(polls).isNotEmpty();
        assertThat(w.failedReads()).isEqualTo(1);
    }

    @Test
    void verify_whenAReadIsTimedBeforeTheSend_reportsZeroNotNegative() throws Exception {
        CanaryVerifier.Verdict v = CanaryVerifier.verify(
                "run",
                List.of(2_000L),
                none(1),
                List.of(new CanaryWatch.Poll(1_000, 1)),
                (id, from, to) -> new CanaryVerifier.Observed(1, 1),
                Deadline.inMillis(1_000),
                10);

        assertThat(v.freshnessMs()).containsExactly(0);
    }

    @Test
    void start_whenPollIntervalIsNotPositive_isRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CanaryWatch.start(
                        "run", (id, from, to) -> new CanaryVerifier.Observed(0, 0), 0, System::currentTimeMillis))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pollMillis");
    }
}
