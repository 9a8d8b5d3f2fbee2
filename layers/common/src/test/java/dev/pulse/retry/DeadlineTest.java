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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeadlineTest {

    @Test
    void remainingMillis_whenFarInFuture_isCloseToRequested() {
        Deadline d = Deadline.inMillis(60_000);

        assertThat(d.remainingMillis()).isBetween(59_000L, 60_000L);
        assertThat(d.expired()).isFalse();
    }

    @ParameterizedTest(name = "{0} ms")
    @ValueSource(longs = {0, -1, -10_000})
    void expired_whenZeroOrNegative_isTrue(long millis) {
        assertThat(Deadline.inMillis(millis).expired()).isTrue();
    }

    @Test
    void expired_whenTimePasses_becomesTrue() throws InterruptedException {
        Deadline d = Deadline.inMillis(20);

        Thread.sleep(40);

        assertThat(d.expired()).isTrue();
        assertThat(d.remainingMillis()).isNegative();
    }
}
