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
package dev.pulse.codec;

import static dev.pulse.codec.OtlpDecodeTest.DECODER;
import static dev.pulse.codec.OtlpDecodeTest.FIXTURE_MS;
import static dev.pulse.codec.OtlpDecodeTest.bySeries;
import static dev.pulse.codec.OtlpDecodeTest.fixture;
import static dev.pulse.codec.OtlpDecodeTest.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.model.Datapoint;
import dev.pulse.model.MetricKind;
import dev.pulse.model.MetricKind.Temporality;
import dev.pulse.model.MetricKind.Type;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every OTLP datapoint carries the metric's type, temporality, unit as sent and (histograms) explicit bounds, which
 * the catalog keeps so the Prometheus API can answer under OpenTelemetry's Prometheus names. The fixture is the
 * OpenTelemetry Python SDK's (scripts/gen_otlp.py), set to delta temporality.
 */
class OtlpMetricKindTest {

    @ParameterizedTest
    @ValueSource(strings = {"metrics.pb", "metrics.json"})
    void decode_whenSdkFixture_givesEachDatapointItsMetricKind(String name) throws Exception {
        Map<String, Datapoint> dps =
                bySeries(DECODER.decode(fixture(name), FIXTURE_MS).datapoints());

        assertThat(dps.get(key("requests", "route", "/pay")).kind())
                .isEqualTo(MetricKind.of(Type.COUNTER, Temporality.DELTA, "{request}"));
        assertThat(dps.get(key("queue.depth")).kind().type()).isEqualTo(Type.UPDOWN);
        assertThat(dps.get(key("temperature", "room", "lab")).kind())
                .isEqualTo(MetricKind.of(Type.GAUGE, Temporality.NONE, "Cel"));
        MetricKind latency = dps.get(key("latency", "route", "/pay")).kind();
        assertThat(latency.type()).isEqualTo(Type.HISTOGRAM);
        assertThat(latency.temporality()).isEqualTo(Temporality.DELTA);
        assertThat(latency.unit()).isEqualTo("ms");
        // The fixture's view's explicit bounds (scripts/gen_otlp.py).
        assertThat(latency.boundValues())
                .containsExactly(0.0, 5.0, 10.0, 25.0, 50.0, 75.0, 100.0, 250.0, 500.0, 1000.0);
        assertThat(dps.get(key("payload.size")).kind())
                .isEqualTo(MetricKind.of(Type.EXPONENTIAL, Temporality.DELTA, "By"));
        assertThat(dps.get(key("rpc.duration.count", "method", "Get")).kind())
                .isEqualTo(MetricKind.of(Type.SUMMARY_COUNT, Temporality.CUMULATIVE, "s"));
        assertThat(dps.get(key("rpc.duration.sum", "method", "Get")).kind())
                .isEqualTo(MetricKind.of(Type.SUMMARY_SUM, Temporality.CUMULATIVE, "s"));
    }
}
