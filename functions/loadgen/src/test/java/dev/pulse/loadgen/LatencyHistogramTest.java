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

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void merge_whenWorkersEncodeAndCoordinatorMerges_percentilesEqualThePooledSamples() {
        Random r = new Random(3);
        LatencyHistogram pooled = new LatencyHistogram();
        List<String> fromWorkers = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            LatencyHistogram worker = new LatencyHistogram();
            for (int i = 0; i < 20_000; i++) {
                long micros = (long) Math.exp(r.nextDouble() * 14 + w * 0.2); // workers see different latencies
                worker.recordMicros(micros);
                pooled.recordMicros(micros);
            }
            fromWorkers.add(worker.encode());
        }
        LatencyHistogram merged = new LatencyHistogram();
        fromWorkers.forEach(e -> merged.merge(LatencyHistogram.decode(e)));

        assertThat(merged.count()).isEqualTo(pooled.count()).isEqualTo(160_000);
        for (double p : new double[] {50, 90, 99, 99.9, 100}) {
            assertThat(merged.percentileMillis(p)).as("p" + p).isEqualTo(pooled.percentileMillis(p));
        }
        assertThat(merged.maxMillis()).isEqualTo(pooled.maxMillis());
    }

    @Test
    void decode_whenNotAHistogram_throwsIllegalArgument() {
        assertThatThrownBy(() -> LatencyHistogram.decode("bm90IGEgaGlzdG9ncmFt"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
