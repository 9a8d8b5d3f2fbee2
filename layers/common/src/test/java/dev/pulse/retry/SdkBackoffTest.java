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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SdkBackoffTest {

    private static List<Long> delays(SdkBackoff b) {
        List<Long> out = new ArrayList<>();
        for (int attempt = 1; attempt <= 12; attempt++) {
            out.add(b.computeDelay(attempt).toMillis());
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 5, 10, 40, Integer.MAX_VALUE})
    void computeDelay_whenAnyAttempt_staysWithinTheExponentialCeiling(int attempt) {
        SdkBackoff b = SdkBackoff.create(Duration.ofMillis(25), Duration.ofSeconds(20));
        long ceiling = Math.min(20_000, 25L << Math.min(attempt - 1, 30));
        for (int i = 0; i < 1000; i++) {
            assertThat(b.computeDelay(attempt).toMillis()).isBetween(0L, ceiling);
        }
    }

    @Test
    void computeDelay_whenRestoredFromOneSnapshot_drawsFromJitterSoTheReseedDecides() {
        SdkBackoff b = SdkBackoff.create(Duration.ofMillis(500), Duration.ofSeconds(20));
        long snapshot = Jitter.seeder();
        Jitter.restoreSeederForTest(snapshot);
        List<Long> first = delays(b);
        Jitter.restoreSeederForTest(snapshot);
        List<Long> sameState = delays(b);
        Jitter.restoreSeederForTest(snapshot);
        Jitter.reseed();
        List<Long> reseeded = delays(b);

        assertThat(sameState).as("the SDK's delays come from Jitter's state").isEqualTo(first);
        assertThat(reseeded).as("after the restore hook's reseed").isNotEqualTo(first);
    }
}
