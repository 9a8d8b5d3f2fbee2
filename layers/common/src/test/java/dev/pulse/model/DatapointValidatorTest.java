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
package dev.pulse.model;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DatapointValidatorTest {

    private static final Instant NOW = Instant.parse("2025-11-21T16:00:00Z");
    private static final long NOW_MS = NOW.toEpochMilli();

    private final DatapointValidator validator =
            new DatapointValidator(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(10), Duration.ofMinutes(1));

    private static Datapoint at(long ts) {
        return new Datapoint("m", Map.of(), ts, 1, null);
    }

    @Test
    void nowMillis_whenFixedClock_returnsClockTime() {
        org.assertj.core.api.Assertions.assertThat(validator.nowMillis()).isEqualTo(NOW_MS);
    }

    @ParameterizedTest(name = "[{index}] {0} ms from now")
    @ValueSource(longs = {-600_000, -1, 0, 1, 60_000})
    void validate_whenTimestampInsideConfiguredWindow_accepts(long offset) {
        assertThatCode(() -> validator.validate(at(NOW_MS + offset))).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "[{index}] {0} ms from now")
    @ValueSource(longs = {-600_001, 60_001, Long.MAX_VALUE / 2})
    void validate_whenTimestampOutsideConfiguredWindow_rejectsWithWindowInSeconds(long offset) {
        assertThatThrownBy(() -> validator.validate(at(NOW_MS + offset)))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("now-600s .. now+60s");
    }

    @Test
    void validate_whenCallerSuppliesNow_usesItInsteadOfClock() {
        long later = NOW_MS + Duration.ofDays(1).toMillis();

        assertThatCode(() -> validator.validate(at(later), later)).doesNotThrowAnyException();
        assertThatThrownBy(() -> validator.validate(at(later))).isInstanceOf(ValidationException.class);
    }

    @Test
    void validate_whenDefaults_acceptsNowAndRejectsFifteenDaysAgo() {
        DatapointValidator defaults = DatapointValidator.create();
        long now = System.currentTimeMillis();

        assertThatCode(() -> defaults.validate(at(now))).doesNotThrowAnyException();
        assertThatThrownBy(() -> defaults.validate(at(now - Duration.ofDays(15).toMillis())))
                .hasMessageContaining("now-1209600s .. now+7200s");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void validate_whenValueNotFinite_rejects(double value) {
        assertThatThrownBy(() -> validator.validate(new Datapoint("m", Map.of(), NOW_MS, value, null)))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("is not a finite number (series m)");
    }

    @Test
    void validate_whenDimensionValueNull_rejectsAsEmpty() {
        java.util.HashMap<String, String> dims = new java.util.HashMap<>();
        dims.put("k", null);

        assertThatThrownBy(() -> validator.validate(new Datapoint("m", dims, NOW_MS, 1, null)))
                .hasMessage("dimension value of k: must not be empty");
    }

    @Test
    void validate_whenNameTooLong_abbreviatesItInMessage() {
        String name = "n".repeat(300);

        assertThatThrownBy(() -> validator.validate(new Datapoint(name, Map.of(), NOW_MS, 1, null)))
                .hasMessage("name: 300 characters, at most 255 allowed (" + "n".repeat(40) + "...)");
    }

    @Test
    void validate_whenSeriesKeyOver1024Utf8Bytes_rejectsNamingSeriesKey() {
        Map<String, String> dims = new java.util.HashMap<>();
        for (int i = 0; i < 5; i++) {
            dims.put("k" + i, "v".repeat(255)); // every field within its own limit, the key is not
        }
        Datapoint dp = new Datapoint("m", dims, NOW_MS, 1.0, null);

        assertThatThrownBy(() -> validator.validate(dp))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("series key")
                .hasMessageContaining("1024");
    }

    @Test
    void validate_whenMultibyteSeriesKeyJustFits_accepts() {
        // 3 values of 255 three-byte characters: 2,295 bytes would not fit; 1 value of 300 bytes does.
        Datapoint dp = new Datapoint("m", Map.of("k", "\u20ac".repeat(100)), NOW_MS, 1.0, null);

        assertThatCode(() -> validator.validate(dp)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\ud800", "a\udc00b", "x\ud800"})
    void validate_whenUnpairedSurrogate_rejects(String name) {
        assertThatThrownBy(() -> validator.validate(new Datapoint(name, Map.of(), NOW_MS, 1.0, null)))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("unpaired surrogate");
    }

    @Test
    void validate_whenPairedSurrogates_accepts() {
        assertThatCode(() -> validator.validate(new Datapoint("latency-\ud83d\ude80", Map.of(), NOW_MS, 1.0, null)))
                .doesNotThrowAnyException();
    }
}
