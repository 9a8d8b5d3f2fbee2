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
package dev.pulse.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class BackoffTest {

    @ParameterizedTest(name = "attempt {0} -> {1}")
    @CsvSource({
        "0, 50",
        "1, 100",
        "2, 200",
        "3, 400",
        "6, 3200",
        "7, 5000",
        "8, 5000",
        "30, 5000",
        "31, 5000",
        "1000, 5000",
        "2147483647, 5000",
    })
    void ceilingMillis_whenAttemptGrows_doublesThenCaps(int attempt, long ceiling) {
        assertThat(new Backoff(50, 5_000).ceilingMillis(attempt)).isEqualTo(ceiling);
    }

    @ParameterizedTest(name = "attempt {0}")
    @CsvSource({"-1", "-1000", "-2147483648"})
    void ceilingMillis_whenAttemptNegative_treatsAsFirst(int attempt) {
        assertThat(new Backoff(50, 5_000).ceilingMillis(attempt)).isEqualTo(50);
    }

    static Stream<Arguments> backoffs() {
        return Stream.of(
                Arguments.of(1L, 1L),
                Arguments.of(50L, 5_000L),
                Arguments.of(7L, 1_000L),
                Arguments.of(1L, 60_000L),
                Arguments.of(10_000L, 60_000L),
                Arguments.of(1L << 32, 1L << 40),
                // base << 30 overflows a long here: the ceiling must still not drop below base.
                Arguments.of((1L << 40) + 1, Long.MAX_VALUE));
    }

    @ParameterizedTest(name = "base {0}, cap {1}")
    @MethodSource("backoffs")
    void ceilingMillis_whenAnyAttempt_isNonDecreasingBetweenBaseAndCap(long base, long cap) {
        Backoff b = new Backoff(base, cap);
        long previous = b.ceilingMillis(0);
        assertThat(previous).isEqualTo(base);
        for (int attempt = 1; attempt <= 70; attempt++) {
            long c = b.ceilingMillis(attempt);
            assertThat(c).as("attempt %d", attempt).isBetween(previous, cap);
            previous = c;
        }
        assertThat(previous).isEqualTo(cap);
    }

    @ParameterizedTest(name = "base {0}, cap {1}")
    @MethodSource("backoffs")
    void delayMillis_whenDrawnManyTimes_staysWithinZeroAndCeiling(long base, long cap) {
        Backoff b = new Backoff(base, cap);
        for (int attempt = 0; attempt < 12; attempt++) {
            long ceiling = b.ceilingMillis(attempt);
            for (int draw = 0; draw < 2_000; draw++) {
                assertThat(b.delayMillis(attempt)).as("attempt %d", attempt).isBetween(0L, ceiling);
            }
        }
    }

    @Test
    void delayMillis_whenDrawnManyTimes_reachesBothEndsOfSmallRange() {
        // Full jitter: 0 and the ceiling itself are both possible delays.
        Backoff b = new Backoff(2, 4);
        Set<Long> seen = new HashSet<>();
        for (int draw = 0; draw < 1_000; draw++) {
            seen.add(b.delayMillis(5));
        }

        assertThat(seen).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
    }

    @Test
    void delayMillis_whenDrawnManyTimes_isSpreadNotConstant() {
        Backoff b = new Backoff(100, 10_000);
        long sum = 0;
        int draws = 20_000;
        for (int i = 0; i < draws; i++) {
            sum += b.delayMillis(3);
        }

        // Uniform on [0, 800]: mean 400; 20,000 draws put the sample mean well within +-20.
        assertThat(sum / (double) draws).isBetween(380.0, 420.0);
    }

    @ParameterizedTest(name = "base {0}, cap {1}")
    @CsvSource({"0, 100", "-1, 100", "100, 99", "1, 0", "-5, -1"})
    void constructor_whenInvalidArguments_rejects(long base, long cap) {
        assertThatThrownBy(() -> new Backoff(base, cap))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("need 1 <= baseMillis <= capMillis, got " + base + ", " + cap);
    }

    @Test
    void delayMillis_whenCeilingIsLongMax_staysWithinCeiling() {
        Backoff b = new Backoff(Long.MAX_VALUE, Long.MAX_VALUE);

        assertThat(b.ceilingMillis(0)).isEqualTo(Long.MAX_VALUE);
        assertThat(b.delayMillis(0)).isBetween(0L, Long.MAX_VALUE);
    }
}
