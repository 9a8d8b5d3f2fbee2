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

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.lambda.powertools.metrics.model.MetricResolution;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

class RecordingMetricsTest {

    @Test
    void flush_whenMetricsWereAdded_keepsOneDocumentPerInvocation() {
        RecordingMetrics metrics = new RecordingMetrics();
        metrics.addMetric("Records", 2, MetricUnit.COUNT, MetricResolution.STANDARD);
        metrics.addMetric("Records", 3, MetricUnit.COUNT, MetricResolution.STANDARD);
        metrics.flush();
        metrics.addMetric("Poison", 1, MetricUnit.COUNT, MetricResolution.STANDARD);
        metrics.flush();

        assertThat(metrics.documents()).containsExactly(Map.of("Records", 5.0), Map.of("Poison", 1.0));
        assertThat(metrics.last("Poison")).isEqualTo(1);
    }

    @Test
    void last_whenNothingFlushed_refuses() {
        assertThatThrownBy(() -> new RecordingMetrics().last()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void flushMetrics_whenGivenAConsumer_handsItTheRecorder() {
        RecordingMetrics metrics = new RecordingMetrics();
        metrics.flushMetrics(m -> m.addMetric("Canary", 1, MetricUnit.COUNT, MetricResolution.STANDARD));
        metrics.flush();

        assertThat(metrics.last("Canary")).isEqualTo(1);
    }
}
