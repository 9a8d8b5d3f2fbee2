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

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MetricKindTest {

    @Test
    void decode_whenEncoded_givesTheSameKind() {
        MetricKind k =
                MetricKind.histogram(MetricKind.Temporality.DELTA, "ms|odd/unit", List.of(0.005, 0.1, 1.0, 2.5e6));
        assertThat(MetricKind.decode(k.encode())).isEqualTo(k);
        assertThat(MetricKind.decode(k.encode()).boundValues()).containsExactly(0.005, 0.1, 1.0, 2.5e6);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "gauge", "nosuchtype|delta||s", "gauge|sideways||s"})
    void decode_whenNotAKindThisVersionWrites_isNull(String s) {
        assertThat(MetricKind.decode(s)).isNull();
    }

    /** The catalog entry must stay one write unit: bounds past the limit are left out, not cut short. */
    @Test
    void histogram_whenBoundsTooLongToKeep_keepsNone() {
        List<Double> many = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            many.add(1000.0 + i);
        }
        MetricKind k = MetricKind.histogram(MetricKind.Temporality.DELTA, "s", many);
        assertThat(k.bounds()).isEmpty();
        assertThat(k.boundValues()).isEmpty();
        assertThat(k.encode().length()).isLessThan(100);
    }
}
