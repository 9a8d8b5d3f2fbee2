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

import dev.pulse.codec.Decoded;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordPackerTest {

    private static final long NOW = 1_764_000_000_000L;
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
    private final DatapointValidator validator =
            new DatapointValidator(CLOCK, Duration.ofDays(14), Duration.ofHours(2));
    private final RecordDecoder decoder = new RecordDecoder(validator);
    private final RecordPacker packer = new RecordPacker(decoder, validator, 16, 20_000, 200_000);

    /** Every record decoded as ingest decodes it: the datapoints by series key, and each series' partition keys. */
    private Map<String, List<Datapoint>> decodeAll(List<RecordPacker.StreamRecord> records, Map<String, String> keys)
            throws Exception {
        Map<String, List<Datapoint>> out = new HashMap<>();
        for (RecordPacker.StreamRecord r : records) {
            assertThat(r.data().length + r.partitionKey().length()).isLessThanOrEqualTo(1024 * 1024);
            Decoded d = decoder.decode(r.data(), NOW);
            for (Datapoint dp : d.datapoints()) {
                String series = dp.name() + dp.dims();
                out.computeIfAbsent(series, k -> new ArrayList<>()).add(dp);
                String before = keys.putIfAbsent(series, r.partitionKey());
                assertThat(before == null || before.equals(r.partitionKey()))
                        .as("series %s under two partition keys", series)
                        .isTrue();
            }
        }
        return out;
    }

    @Test
    void pack_when10kSeries_putsEachOnceUnderOneKeyWithinRecordLimits() throws Exception {
        RecordPacker.Packed p = packer.pack(OtlpRequests.gauge("cpu", 10_000, NOW), NOW);

        assertThat(p.series()).isEqualTo(10_000);
        assertThat(p.points()).isEqualTo(10_000);
        assertThat(p.rejected()).isZero();
        Map<String, String> keys = new HashMap<>();
        Map<String, List<Datapoint>> bySeries = decodeAll(p.records(), keys);
        assertThat(bySeries).hasSize(10_000);
        assertThat(bySeries.values()).allSatisfy(dps -> assertThat(dps).hasSize(1));
        assertThat(new java.util.HashSet<>(keys.values())).hasSize(16);
        double sum =
                bySeries.values().stream().mapToDouble(d -> d.get(0).value()).sum();
        assertThat(sum).isEqualTo(10_000.0 * 9_999 / 2);
    }

    @Test
    void pack_whenSameSeriesInLaterRequestWithAttributesReordered_usesTheSameKey() throws Exception {
        Metric a = Metric.newBuilder()
                .setName("m")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(
                                OtlpRequests.point(NOW, 1, OtlpRequests.attr("a", "1"), OtlpRequests.attr("b", "2"))))
                .build();
        Metric b = Metric.newBuilder()
                .setName("m")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(
                                OtlpRequests.point(NOW, 2, OtlpRequests.attr("b", "2"), OtlpRequests.attr("a", "1"))))
                .build();

        String first =
                packer.pack(OtlpRequests.request(a), NOW).records().get(0).partitionKey();
        String second =
                packer.pack(OtlpRequests.request(b), NOW).records().get(0).partitionKey();

        assertThat(second).isEqualTo(first);
    }

    @Test
    void pack_whenDuplicateSeriesInOneRequest_keepsBothPointsInOrderUnderOneKey() throws Exception {
        ExportMetricsServiceRequest r = OtlpRequests.request(
                Metric.newBuilder()
                        .setName("dup")
                        .setGauge(Gauge.newBuilder()
                                .addDataPoints(OtlpRequests.point(NOW, 1, OtlpRequests.attr("k", "v")))
                                .addDataPoints(OtlpRequests.point(NOW + 1, 2, OtlpRequests.attr("k", "v"))))
                        .build(),
                Metric.newBuilder()
                        .setName("dup")
                        .setGauge(Gauge.newBuilder()
                                .addDataPoints(OtlpRequests.point(NOW + 2, 3, OtlpRequests.attr("k", "v"))))
                        .build());

        RecordPacker.Packed p = packer.pack(r, NOW);

        assertThat(p.records()).hasSize(1);
        Map<String, List<Datapoint>> bySeries = decodeAll(p.records(), new HashMap<>());
        assertThat(bySeries.values().iterator().next())
                .extracting(Datapoint::value)
                .containsExactly(1.0, 2.0, 3.0);
    }

    @Test
    void pack_whenNonFiniteAndOutOfWindowPoints_rejectsThoseSeriesAndPutsTheRest() throws Exception {
        Gauge.Builder g = Gauge.newBuilder();
        for (int i = 0; i < 100; i++) {
            g.addDataPoints(OtlpRequests.point(NOW, i, OtlpRequests.attr("i", Integer.toString(i))));
        }
        g.addDataPoints(OtlpRequests.point(NOW, Double.NaN, OtlpRequests.attr("i", "nan")));
        g.addDataPoints(OtlpRequests.point(NOW, Double.POSITIVE_INFINITY, OtlpRequests.attr("i", "inf")));
        g.addDataPoints(OtlpRequests.point(NOW - Duration.ofDays(30).toMillis(), 5, OtlpRequests.attr("i", "old")));

        RecordPacker.Packed p = packer.pack(
                OtlpRequests.request(
                        Metric.newBuilder().setName("g").setGauge(g).build()),
                NOW);

        assertThat(p.rejected()).isEqualTo(3);
        assertThat(p.points()).isEqualTo(100);
        assertThat(p.firstRejection()).startsWith("metric \"g\": ");
        assertThat(decodeAll(p.records(), new HashMap<>())).hasSize(100);
    }

    @Test
    void pack_whenOneSeriesHasManyPoints_cutsItIntoRecordsUnderItsKeyInOrder() throws Exception {
        Gauge.Builder g = Gauge.newBuilder();
        for (int i = 0; i < 25_000; i++) {
            g.addDataPoints(OtlpRequests.point(NOW - 25_000 + i, i, OtlpRequests.attr("k", "v")));
        }

        RecordPacker.Packed p = packer.pack(
                OtlpRequests.request(
                        Metric.newBuilder().setName("long").setGauge(g).build()),
                NOW);

        assertThat(p.records()).hasSizeGreaterThan(1);
        assertThat(p.records())
                .extracting(RecordPacker.StreamRecord::partitionKey)
                .containsOnly(p.records().get(0).partitionKey());
        List<Datapoint> dps =
                decodeAll(p.records(), new HashMap<>()).values().iterator().next();
        assertThat(dps).hasSize(25_000);
        for (int i = 0; i < dps.size(); i++) {
            assertThat(dps.get(i).value()).isEqualTo(i);
        }
    }

    @Test
    void pack_whenMoreDatapointsThanTheLimit_refusesWith413() {
        RecordPacker small = new RecordPacker(decoder, validator, 4, 100, 50);

        assertThatThrownBy(() -> small.pack(OtlpRequests.gauge("g", 51, NOW), NOW))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("MAX_DATAPOINTS_PER_REQUEST")
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(413);
        assertThatThrownBy(() ->
                        new RecordPacker(decoder, validator, 4, 10, 1000).pack(OtlpRequests.gauge("g", 11, NOW), NOW))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("MAX_SERIES_PER_REQUEST");
    }

    @Test
    void pack_whenResourceHasMoreDimensionsThanADatapointMay_rejectsItsPointsAndPutsOtherResources() throws Exception {
        io.opentelemetry.proto.resource.v1.Resource.Builder wide =
                io.opentelemetry.proto.resource.v1.Resource.newBuilder();
        for (int i = 0; i < 31; i++) {
            wide.addAttributes(OtlpRequests.attr("k" + i, "v"));
        }
        ExportMetricsServiceRequest one = OtlpRequests.gauge("g", 3, NOW);
        ExportMetricsServiceRequest r = one.toBuilder()
                .addResourceMetrics(one.getResourceMetrics(0).toBuilder().setResource(wide))
                .build();

        RecordPacker.Packed p = packer.pack(r, NOW);

        assertThat(p.points()).isEqualTo(3);
        assertThat(p.rejected()).isEqualTo(3);
        assertThat(p.firstRejection()).contains("resourceMetrics[1].resource").contains("MAX_DIMENSIONS");
    }

    @Test
    void pack_whenOnePointHasTooManyAttributes_rejectsThatPointAndPutsTheOthersOfItsMetric() throws Exception {
        io.opentelemetry.proto.common.v1.KeyValue[] many = new io.opentelemetry.proto.common.v1.KeyValue[40];
        for (int i = 0; i < many.length; i++) {
            many[i] = OtlpRequests.attr("a" + i, "v");
        }
        Metric m = Metric.newBuilder()
                .setName("g")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(OtlpRequests.point(NOW, 1, OtlpRequests.attr("k", "v")))
                        .addDataPoints(OtlpRequests.point(NOW, 2, many))
                        .addDataPoints(OtlpRequests.point(NOW + 1, 3, OtlpRequests.attr("k", "v"))))
                .build();

        RecordPacker.Packed p = packer.pack(OtlpRequests.request(m), NOW);

        assertThat(p.rejected()).isEqualTo(1);
        assertThat(p.firstRejection()).contains("dataPoints[1]").contains("MAX_DIMENSIONS");
        assertThat(decodeAll(p.records(), new HashMap<>()).values().iterator().next())
                .extracting(Datapoint::value)
                .containsExactly(1.0, 3.0);
    }

    @Test
    void pack_whenCumulativeHistogram_rejectsEveryPointOfTheMetricNamingWhy() throws Exception {
        Metric h = Metric.newBuilder()
                .setName("latency")
                .setHistogram(io.opentelemetry.proto.metrics.v1.Histogram.newBuilder()
                        .setAggregationTemporality(
                                io.opentelemetry.proto.metrics.v1.AggregationTemporality
                                        .AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(io.opentelemetry.proto.metrics.v1.HistogramDataPoint.newBuilder()
                                .setTimeUnixNano(NOW * 1_000_000L)
                                .setCount(1)
                                .setSum(2))
                        .addDataPoints(io.opentelemetry.proto.metrics.v1.HistogramDataPoint.newBuilder()
                                .setTimeUnixNano(NOW * 1_000_000L)
                                .setCount(1)
                                .setSum(3)))
                .build();

        RecordPacker.Packed p = packer.pack(OtlpRequests.request(h), NOW);

        assertThat(p.records()).isEmpty();
        assertThat(p.rejected()).isEqualTo(2);
        assertThat(p.firstRejection()).contains("only delta");
    }

    /**
     * Ingest stores a pushed record once by its bytes (ShardCheckpoints#claimContent), so a request sent again must pack
     * into the same records. It does not when one of its points crosses push's time window between the sends: here a
     * point 14 days old, taken at the first send and refused ten seconds later. The record of its series then differs,
     * and the other points in it are stored twice. docs/design.md ("Pushed records sent again") states this limit.
     */
    @Test
    void pack_whenAPointCrossesTheWindowEdgeBeforeTheRequestIsSentAgain_packsOtherBytes() throws Exception {
        long oldest = NOW - Duration.ofDays(14).toMillis() + 5_000;
        ExportMetricsServiceRequest r = OtlpRequests.request(Metric.newBuilder()
                .setName("backfill")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(OtlpRequests.point(oldest, 1, OtlpRequests.attr("k", "v")))
                        .addDataPoints(OtlpRequests.point(NOW - 60_000, 2, OtlpRequests.attr("k", "v"))))
                .build());

        RecordPacker.Packed first = packer.pack(r, NOW);
        RecordPacker.Packed again = packer.pack(r, NOW + 10_000);
        RecordPacker.Packed soon = packer.pack(r, NOW + 1_000);

        assertThat(first.points()).isEqualTo(2);
        assertThat(again.points()).isEqualTo(1);
        assertThat(again.records().get(0).data())
                .isNotEqualTo(first.records().get(0).data());
        assertThat(soon.records().get(0).data())
                .as("no point crossed the edge: the same bytes")
                .isEqualTo(first.records().get(0).data());
    }
}
