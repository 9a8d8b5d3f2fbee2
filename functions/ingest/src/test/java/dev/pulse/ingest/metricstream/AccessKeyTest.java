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
package dev.pulse.ingest.metricstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class AccessKeyTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-20T12:00:00Z"));
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicReference<String> secret = new AtomicReference<>("{\"api_key\":\"old\"}");
    private final AccessKey key = new AccessKey(
            () -> {
                reads.incrementAndGet();
                String s = secret.get();
                if (s == null) {
                    throw new IllegalStateException("Secrets Manager unavailable");
                }
                return s;
            },
            clock);

    private void advanceSeconds(long s) {
        clock.advance(Duration.ofSeconds(s));
    }

    @Test
    void accepts_whenWrongKeyIsSentInALoop_readsTheSecretOnceAMinute() {
        assertThat(key.accepts("old")).isTrue();
        for (int i = 0; i < 100; i++) {
            assertThat(key.accepts("wrong")).isFalse();
        }
        advanceSeconds(60);
        assertThat(key.accepts("wrong")).isFalse();
        assertThat(key.accepts("wrong")).isFalse();

        assertThat(reads).hasValue(2);
    }

    @Test
    void accepts_whenRefreshFails_keepsTheKeyReadBeforeAndWaitsAMinuteToRetry() {
        assertThat(key.accepts("old")).isTrue();
        secret.set(null);
        advanceSeconds(61);

        assertThat(key.accepts("new")).isFalse();
        assertThat(key.accepts("new")).isFalse();
        assertThat(key.accepts("old")).isTrue();
        assertThat(reads).hasValue(2);

        secret.set("{\"api_key\":\"new\"}");
        advanceSeconds(60);
        assertThat(key.accepts("new")).isTrue();
        assertThat(key.accepts("old")).isFalse();
        assertThat(reads).hasValue(3);
    }

    @Test
    void accepts_whenFirstReadFails_throwsAndReadsAgainOnTheNextDelivery() {
        secret.set("not json");

        assertThatThrownBy(() -> key.accepts("old")).hasMessageContaining("not JSON");
        secret.set("{\"api_key\":\"old\"}");
        assertThat(key.accepts("old")).isTrue();
    }

    @Test
    void accepts_whenKeyIsEmptyOrMissing_refusesWithoutReading() {
        assertThat(key.accepts(null)).isFalse();
        assertThat(key.accepts("")).isFalse();
        assertThat(reads).hasValue(0);
    }
}
