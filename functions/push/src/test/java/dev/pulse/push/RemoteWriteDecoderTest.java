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
package dev.pulse.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RemoteWriteDecoderTest {

    private static final long TS = 1_764_000_000_000L;
    private final RemoteWriteDecoder decoder = new RemoteWriteDecoder(1 << 20, 20_000, 200_000);

    private static List<Metric> metrics(RemoteWriteDecoder.Decoded d) {
        return d.request().getResourceMetrics(0).getScopeMetrics(0).getMetricsList();
    }

    @Test
    void decode_whenCounterAndGauge_mapsTotalToMonotonicCumulativeSum() throws Exception {
        byte[] body = WriteRequests.snappy(WriteRequests.encode(
                List.of(
                        WriteRequests.series("http_requests_total", Map.of("code", "200", "empty", ""), TS, 5, 7),
                        WriteRequests.series("temperature", Map.of(), TS, 21.5)),
                List.of()));

        RemoteWriteDecoder.Decoded d = decoder.decode(body);

        assertThat(d.samples()).isEqualTo(3);
        Metric counter = metrics(d).get(0);
        assertThat(counter.getName()).isEqualTo("http_requests_total");
        assertThat(counter.getSum().getIsMonotonic()).isTrue();
        assertThat(counter.getSum().getAggregationTemporality())
                .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
        assertThat(counter.getSum().getDataPoints(1).getAsDouble()).isEqualTo(7);
        assertThat(counter.getSum().getDataPoints(1).getTimeUnixNano()).isEqualTo((TS + 1000) * 1_000_000L);
        // The empty label is absent, as in Prometheus; __name__ is the metric name, not an attribute.
        assertThat(counter.getSum().getDataPoints(0).getAttributesList())
                .extracting(kv -> kv.getKey() + "=" + kv.getValue().getStringValue())
                .containsExactly("code=200");
        assertThat(metrics(d).get(1).hasGauge()).isTrue();
    }

    @Test
    void decode_whenMetadataSaysGauge_keepsTotalNamedSeriesAGauge() throws Exception {
        byte[] body = WriteRequests.snappy(WriteRequests.encode(
                List.of(WriteRequests.series("queue_total", Map.of(), TS, 3)),
                List.of(new WriteRequests.Metadata(2, "queue_total"))));

        assertThat(metrics(decoder.decode(body)).get(0).hasGauge()).isTrue();
    }

    @Test
    void decode_whenNonFiniteAndStaleMarkers_dropsThemCountingEach() throws Exception {
        double stale = Double.longBitsToDouble(RemoteWriteDecoder.STALE_NAN_BITS);
        byte[] body = WriteRequests.snappy(WriteRequests.encode(
                List.of(WriteRequests.series(
                        "g",
                        Map.of(),
                        TS,
                        1,
                        Double.NaN,
                        Double.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY,
                        stale,
                        2)),
                List.of()));

        RemoteWriteDecoder.Decoded d = decoder.decode(body);

        assertThat(d.samples()).isEqualTo(2);
        assertThat(d.staleMarkers()).isEqualTo(1);
        assertThat(d.rejected()).isEqualTo(3);
        assertThat(d.firstRejection()).contains("not a finite number");
        assertThat(metrics(d).get(0).getGauge().getDataPointsList())
                .extracting(p -> p.getAsDouble())
                .containsExactly(1.0, 2.0);
    }

    @Test
    void decode_whenSnappyLengthLies_refusesWith400() {
        byte[] body = WriteRequests.snappy(
                WriteRequests.encode(List.of(WriteRequests.series("g", Map.of("a", "b"), TS, 1, 2, 3)), List.of()));
        // The length varint is the first byte here (a short block): state 10 bytes more than the block holds.
        byte[] lying = body.clone();
        lying[0] = (byte) (lying[0] + 10);

        assertThatThrownBy(() -> decoder.decode(lying))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("snappy")
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(400);
    }

    @Test
    void decode_whenSnappyStatesMoreThanTheLimit_refusesWith413BeforeAllocating() {
        // A 6-byte body whose header states 2^31-1 decompressed bytes: refused from the header alone.
        byte[] body = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00};

        assertThatThrownBy(() -> decoder.decode(body))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("MAX_DECOMPRESSED_BYTES")
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(413);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 20, 33})
    void decode_whenProtobufTruncated_refusesWith400(int cut) {
        byte[] plain = WriteRequests.encode(
                List.of(WriteRequests.series("g", Map.of("instance", "a:9100"), TS, 1, 2)), List.of());
        byte[] body = WriteRequests.snappy(Arrays.copyOf(plain, plain.length - cut));

        assertThatThrownBy(() -> decoder.decode(body))
                .isInstanceOf(PushException.class)
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(400);
    }

    @Test
    void decode_whenGarbage_refusesWith400() {
        assertThatThrownBy(() -> decoder.decode(new byte[] {0x05, 0x10, 0x01, 0x02, 0x03}))
                .isInstanceOf(PushException.class)
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(400);
        assertThatThrownBy(() -> decoder.decode(new byte[0]))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("empty body");
    }

    @Test
    void decode_whenNoName_refusesNamingTheSeries() {
        byte[] body = WriteRequests.snappy(WriteRequests.encode(
                List.of(new WriteRequests.Series(Map.of("job", "x"), List.of(new WriteRequests.Sample(1, TS)))),
                List.of()));

        assertThatThrownBy(() -> decoder.decode(body))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("timeseries #0 has no __name__ label");
    }

    @Test
    void decode_whenMoreSeriesThanTheLimit_refusesWith413() {
        List<WriteRequests.Series> series = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            series.add(WriteRequests.series("g", Map.of("i", Integer.toString(i)), TS, 1));
        }
        RemoteWriteDecoder small = new RemoteWriteDecoder(1 << 20, 10, 100);

        assertThatThrownBy(() -> small.decode(WriteRequests.snappy(WriteRequests.encode(series, List.of()))))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("MAX_SERIES_PER_REQUEST")
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(413);
    }

    @Test
    void checkHeaders_whenNotSnappy_refusesWith415() {
        assertThatThrownBy(() -> RemoteWriteDecoder.checkHeaders("application/x-protobuf", "gzip"))
                .isInstanceOf(PushException.class)
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(415);
    }
}
