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

import static dev.pulse.codec.OtlpDecodeEdgeCasesTest.DECODER;
import static dev.pulse.codec.OtlpDecodeEdgeCasesTest.NOW_MS;
import static dev.pulse.codec.OtlpDecodeEdgeCasesTest.NOW_NS;
import static dev.pulse.codec.OtlpDecodeEdgeCasesTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.Counter;
import dev.pulse.aggregate.Partial;
import dev.pulse.model.Datapoint;
import dev.pulse.store.codec.PartialItems;
import dev.pulse.store.codec.SummaryAttributes;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * OTLP cumulative monotonic sums keep their start time, and their partials the counter the reset-corrected increase is
 * answered from; delta and non-monotonic sums store exactly what they stored before.
 */
class OtlpCumulativeCounterTest {

    private static final long START_NS = NOW_NS - 3_600_000_000_000L;

    /** Three points of one sum, 10 s apart from 30 s before now, the last one after a restart (a newer start time). */
    private static Metric sum(boolean monotonic, AggregationTemporality t) {
        Sum.Builder s = Sum.newBuilder().setIsMonotonic(monotonic).setAggregationTemporality(t);
        double[] values = {100, 130, 7};
        for (int i = 0; i < values.length; i++) {
            s.addDataPoints(NumberDataPoint.newBuilder()
                    .setStartTimeUnixNano(i < 2 ? START_NS : NOW_NS - 11_000_000_000L)
                    .setTimeUnixNano(NOW_NS - (30 - 10L * i) * 1_000_000_000L)
                    .setAsDouble(values[i]));
        }
        return Metric.newBuilder()
                .setName("http.server.requests")
                .setUnit("{request}")
                .setSum(s)
                .build();
    }

    private static List<Datapoint> decode(Metric m) throws Exception {
        return DECODER.decode(request(Resource.getDefaultInstance(), m).toByteArray())
                .datapoints();
    }

    private static Partial aggregate(List<Datapoint> dps) {
        BatchAggregator agg = new BatchAggregator("shardId-000000000000");
        agg.addRecord("1", dps);
        assertThat(agg.partials()).as("one minute").hasSize(1);
        return agg.partials().iterator().next();
    }

    @org.junit.jupiter.api.Test
    void decode_whenCumulativeMonotonicSum_keepsEachPointsStartTime() throws Exception {
        List<Datapoint> dps = decode(sum(true, AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE));

        assertThat(dps).extracting(Datapoint::startNanos).containsExactly(START_NS, START_NS, NOW_NS - 11_000_000_000L);
        assertThat(dps.get(0).kind().isCumulativeCounter()).isTrue();
    }

    @org.junit.jupiter.api.Test
    void aggregate_whenCumulativeMonotonicSum_storesTheResetCorrectedIncrease() throws Exception {
        Partial p = aggregate(decode(sum(true, AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)));

        Counter c = SummaryAttributes.read(PartialItems.partial(p, 86_400, 1), false)
                .counter();

        assertThat(c.increase()).isEqualTo(30 + 7); // 100 -> 130, then a restart counting from 0 to 7
        assertThat(c.resets()).isEqualTo(1);
        assertThat(c.firstValue()).isEqualTo(100);
        assertThat(c.lastValue()).isEqualTo(7);
        assertThat(c.lastTime() - c.firstTime()).isEqualTo(20_000);
        assertThat(p.sum()).as("the summary still holds the samples").isEqualTo(237);
        assertThat(NOW_MS).isGreaterThan(c.lastTime());
    }

    @ParameterizedTest(name = "monotonic {0}, {1}")
    @CsvSource({
        "true, AGGREGATION_TEMPORALITY_DELTA",
        "false, AGGREGATION_TEMPORALITY_CUMULATIVE",
        "false, AGGREGATION_TEMPORALITY_DELTA"
    })
    void aggregate_whenNotACumulativeCounter_storesNoCounterAndNoByteMore(boolean monotonic, AggregationTemporality t)
            throws Exception {
        List<Datapoint> dps = decode(sum(monotonic, t));
        Partial p = aggregate(dps);
        Partial plain = aggregate(dps.stream()
                .map(d -> new Datapoint(d.name(), d.dims(), d.timestamp(), d.value(), d.unit()))
                .toList());

        assertThat(dps).extracting(Datapoint::startNanos).containsOnly(0L);
        assertThat(SummaryAttributes.read(PartialItems.partial(p, 86_400, 1), false)
                        .counter())
                .isNull();
        assertThat(PartialItems.itemBytes(PartialItems.partial(p, 86_400, 1)))
                .isEqualTo(PartialItems.itemBytes(PartialItems.partial(plain, 86_400, 1)));
    }
}
