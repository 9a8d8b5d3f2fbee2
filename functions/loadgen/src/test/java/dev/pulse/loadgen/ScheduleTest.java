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
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The schedule is pure arithmetic: checked exactly here; its accuracy on a real stream is in the ITs. */
class ScheduleTest {

    /** Records due by {@code seconds}: the smallest i whose offset exceeds it. */
    private static long dueBy(Schedule s, double seconds) {
        long lo = 0;
        long hi = 100_000_000;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (s.offsetNanos(mid) <= seconds * 1e9) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @ParameterizedTest
    @CsvSource({"1000, 10", "2000, 30", "20000, 5", "50, 0"})
    void rate_whenRamping_dueCountFollowsTheIntegralOfALinearRamp(double rate, double ramp) {
        Schedule s = Schedule.rate(rate, ramp);
        for (double t = 0.5; t <= ramp + 20; t += 0.5) {
            double expected = t < ramp ? rate * t * t / (2 * ramp) : rate * ramp / 2 + rate * (t - ramp);
            assertThat((double) dueBy(s, t)).as("due by %.1f s", t).isCloseTo(expected, within(1.0 + 1e-9 * expected));
        }
    }

    @Test
    void rate_whenPastRamp_spacesRecordsExactlyOneOverRateApart() {
        Schedule s = Schedule.rate(2000, 10);
        long i = 10_000; // the ramp holds 2000 * 10 / 2 records
        assertThat(s.offsetNanos(i + 1) - s.offsetNanos(i)).isCloseTo(500_000L, within(1L));
    }

    @Test
    void recorded_whenSpeedTwo_halvesTheRecordedGapsAndLoops() {
        Schedule s = Schedule.recorded(new long[] {0, 1000, 3000}, 2.0);

        assertThat(s.offsetNanos(1)).isEqualTo(500_000_000L);
        assertThat(s.offsetNanos(2)).isEqualTo(1_500_000_000L);
        // The loop lasts the span plus one mean gap (3000 + 1500 ms), halved.
        assertThat(s.offsetNanos(3)).isEqualTo(2_250_000_000L);
    }

    @Test
    void rate_whenNotPositive_isRejected() {
        assertThatThrownBy(() -> Schedule.rate(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Schedule.recorded(new long[0], 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
