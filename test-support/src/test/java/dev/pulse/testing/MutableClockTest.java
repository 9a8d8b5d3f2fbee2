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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MutableClockTest {

    private static final Instant T0 = Instant.parse("2026-11-21T12:00:00Z");

    @Test
    void instant_whenNotMoved_standsStill() throws InterruptedException {
        MutableClock clock = new MutableClock(T0);
        Thread.sleep(5);

        assertThat(clock.instant()).isEqualTo(T0);
        assertThat(clock.millis()).isEqualTo(T0.toEpochMilli());
    }

    @Test
    void advance_whenNegative_movesBack() {
        MutableClock clock = new MutableClock(T0);
        clock.advance(Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(-20));

        assertThat(clock.instant()).isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void setMillis_whenGivenEpochMillis_isTheSameAsSet() {
        MutableClock a = new MutableClock(T0);
        MutableClock b = new MutableClock(T0);
        a.set(T0.plusMillis(1_234));
        b.setMillis(T0.toEpochMilli() + 1_234);

        assertThat(a.instant()).isEqualTo(b.instant()).isEqualTo(T0.plusMillis(1_234));
    }

    @Test
    void withZone_whenUtc_isTheSameClock() {
        MutableClock clock = new MutableClock(T0);

        assertThat(clock.withZone(ZoneOffset.UTC)).isSameAs(clock);
        assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
    }

    @Test
    void withZone_whenAnotherZone_refuses() {
        assertThatThrownBy(() -> new MutableClock(T0).withZone(ZoneId.of("Europe/Paris")))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Europe/Paris");
    }
}
