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

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class JitterTest {

    private static long[] draws() {
        return LongStream.range(0, 16).map(i -> Jitter.nextLong(1_000_000)).toArray();
    }

    @Test
    void nextLong_whenTwoEnvironmentsRestoreOneSnapshotWithoutReseed_drawTheSameDelays() {
        long snapshot = Jitter.seeder();
        Jitter.restoreSeederForTest(snapshot);
        long[] first = draws();
        Jitter.restoreSeederForTest(snapshot);

        assertThat(draws()).isEqualTo(first);
    }

    @Test
    void reseed_whenTwoEnvironmentsRestoreOneSnapshot_drawDifferentDelays() {
        long snapshot = Jitter.seeder();
        Jitter.restoreSeederForTest(snapshot);
        Jitter.reseed();
        long afterFirst = Jitter.seeder();
        long[] first = draws();
        Jitter.restoreSeederForTest(snapshot);
        Jitter.reseed();

        assertThat(afterFirst).isNotEqualTo(snapshot);
        assertThat(Jitter.seeder()).isNotEqualTo(snapshot).isNotEqualTo(afterFirst);
        assertThat(draws()).isNotEqualTo(first);
    }

    @Test
    void nextLong_whenBounded_staysWithinTheBound() {
        assertThat(LongStream.range(0, 1_000).map(i -> Jitter.nextLong(7))).allMatch(v -> v >= 0 && v < 7);
    }
}
