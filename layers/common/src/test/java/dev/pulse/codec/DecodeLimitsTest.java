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

import static dev.pulse.codec.HostileRecords.NOW_NS;
import static dev.pulse.codec.Payloads.NOW_MS;
import static dev.pulse.codec.Payloads.decoder;
import static dev.pulse.codec.Payloads.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.resource.v1.Resource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each decoder stops at its limits ({@link DecodeLimits}) while it reads: records that would run the ingest function
 * out of memory, or be stored wrong, are poison whose reason names the limit, in bounded time; records at the limits
 * are accepted.
 */
class DecodeLimitsTest {

    private static final Duration FAST = Duration.ofSeconds(5);

    private static String poisonReason(byte[] record) {
        long start = System.nanoTime();
        try {
            decoder().decode(record);
        } catch (DecodeException e) {
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);
            return e.getMessage();
        }
        throw new AssertionError("expected a poison record");
    }

    // ---- EMF: the specification's limits and the datapoints of one record

    @Test
    @Timeout(30)
    void decode_whenEmfHas20MetricsOf100000Values_poisonNamingValuesPerMetric() {
        byte[] record = HostileRecords.emfAmplification(20, 1, 100_000);
        assertThat(record.length).isLessThan(1_000); // 470 bytes in the issue: 2,000,000 datapoints accepted then

        assertThat(poisonReason(record)).contains("100000 values, at most 100", "MAX_EMF_VALUES_PER_METRIC");
    }

    @Test
    @Timeout(30)
    void decode_whenEmfHas100MetricsIn100DimensionSets_poisonNamingDimensionSets() {
        byte[] record = HostileRecords.emfAmplification(100, 100, 100_000);
        assertThat(record.length).isLessThan(1_000); // 483 bytes in the issue: out of memory then

        assertThat(poisonReason(record)).contains("100 dimension sets, at most 30", "MAX_EMF_DIMENSION_SETS");
    }

    @Test
    void decode_whenEmfHas101Metrics_poisonNamingMetricsPerDirective() {
        assertThat(poisonReason(HostileRecords.emfAmplification(101, 1, 1)))
                .contains("101 metrics, at most 100", "MAX_EMF_METRICS_PER_DIRECTIVE");
    }

    @Test
    void decode_whenEmfAtEverySpecificationLimit_acceptsEveryValue() throws Exception {
        // 100 metrics x 30 dimension sets x 100 values: 300,000 datapoints, past the record's limit of 100,000.
        assertThat(poisonReason(HostileRecords.emfAmplification(100, 30, 100)))
                .contains("more than 100000 datapoints in one record", "MAX_DATAPOINTS_PER_RECORD");
        // 100 metrics x 10 sets x 100 values = 100,000: exactly the limit.
        assertThat(decoder()
                        .decode(HostileRecords.emfAmplification(100, 10, 100))
                        .datapoints())
                .hasSize(100_000);
    }

    @Test
    void decode_whenEmfUnitHas450000Characters_poisonNamingCloudWatchUnits() {
        String reason = poisonReason(HostileRecords.emfWithUnit("x".repeat(450_000)));

        assertThat(reason).contains("(450000 characters)", "is not a CloudWatch unit name", "CLOUDWATCH_UNITS");
        assertThat(reason.length()).isLessThan(300);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ms", "milliseconds", "Millisecond", "{requests}", ""})
    void decode_whenEmfUnitIsNotACloudWatchUnitName_poison(String unit) {
        assertThat(poisonReason(HostileRecords.emfWithUnit(unit))).contains("is not a CloudWatch unit name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Milliseconds", "Bytes/Second", "Count", "None", "Terabits/Second"})
    void decode_whenEmfUnitIsACloudWatchUnitName_keepsIt(String unit) throws Exception {
        assertThat(decoder().decode(HostileRecords.emfWithUnit(unit)).datapoints())
                .singleElement()
                .satisfies(dp -> assertThat(dp.unit()).isEqualTo(unit));
    }

    @Test
    void decode_whenEmfDocumentHasAKeyTwice_poisonNamingTheDuplicate() {
        String doc = "{\"_aws\":{\"Timestamp\":" + NOW_MS
                + ",\"CloudWatchMetrics\":[{\"Namespace\":\"ns\",\"Dimensions\":[[]],"
                + "\"Metrics\":[{\"Name\":\"latency\"}]}]},\"latency\":12,\"latency\":13}";

        assertThat(poisonReason(Payloads.logs(HostileRecords.LAMBDA_GROUP, new Payloads.LogEvent(NOW_MS, doc))))
                .contains("Duplicate field 'latency'");
    }

    // ---- native JSON

    @ParameterizedTest
    @ValueSource(strings = {"\"value\":2", "\"name\":\"b\"", "\"ts\":1", "\"unit\":\"Count\"", "\"dims\":{}"})
    void decode_whenNativeFieldAppearsTwice_poisonNamingTheField(String again) {
        String json = "{\"name\":\"a\",\"dims\":{},\"ts\":" + NOW_MS + ",\"value\":1,\"unit\":\"Count\"," + again + "}";
        String field = again.substring(1, again.indexOf('"', 1));

        assertThat(poisonReason(utf8(json))).contains("datapoint #0: field " + field + " appears twice");
    }

    @Test
    void decode_whenNativeHasUnknownFieldTwice_ignoresIt() throws Exception {
        String json = "{\"name\":\"a\",\"x\":1,\"ts\":" + NOW_MS + ",\"value\":1,\"x\":2}";

        assertThat(decoder().decode(utf8(json)).datapoints())
                .singleElement()
                .satisfies(dp -> assertThat(dp.value()).isEqualTo(1.0));
    }

    @Test
    void decode_whenNativeUnitLongerThanLimit_poisonNamingTheLimit() {
        String json = "{\"name\":\"a\",\"ts\":" + NOW_MS + ",\"value\":1,\"unit\":\"" + "u".repeat(65) + "\"}";

        assertThat(poisonReason(utf8(json))).contains("unit: 65 characters, at most 64");
    }

    @Test
    void decode_whenOneRecordHas400000DistinctSeries_poisonNamingDatapointsPerRecord() {
        assertThat(poisonReason(HostileRecords.nativeDistinctSeries(400_000, 1)))
                .contains("MAX_DATAPOINTS_PER_RECORD");
    }

    @Test
    void decode_whenOneRecordHas10001DistinctSeries_poisonNamingSeriesPerRecord() {
        assertThat(poisonReason(HostileRecords.nativeDistinctSeries(DecodeLimits.MAX_SERIES_PER_RECORD + 1, 1)))
                .contains("more than 10000 distinct series in one record", "MAX_SERIES_PER_RECORD");
    }

    @Test
    void decode_whenRecordHasMoreDatapointsThanSeriesLimitInFewSeries_accepts() throws Exception {
        // 30,000 datapoints of 10,000 series: the series count runs, and the limit is on series, not datapoints.
        assertThat(decoder()
                        .decode(HostileRecords.nativeDistinctSeries(DecodeLimits.MAX_SERIES_PER_RECORD, 3))
                        .datapoints())
                .hasSize(30_000);
    }

    // ---- OTLP

    @Test
    @Timeout(30)
    void decode_whenOtlpHasThousandsOfResourceAttributes_poisonBeforeCopyingThem() {
        byte[] record = HostileRecords.otlpManyResourceAttributes(20_000, 20_000);
        assertThat(record.length).isGreaterThan(500_000); // 893 KB in the issue: out of memory then

        assertThat(poisonReason(record))
                .contains("resourceMetrics[0].resource: more than 30 attributes", "MAX_DIMENSIONS");
    }

    static Stream<Arguments> mergedDimensions() {
        return Stream.of(
                // resource attributes, point attributes (key -> value; "" removes), dimensions of the merge or -1 for
                // poison
                Arguments.of(20, newKeys(10), 30),
                Arguments.of(20, newKeys(11), -1),
                // overriding resource keys adds nothing
                Arguments.of(30, Map.of("r0", "y", "r1", "y"), 30),
                // an empty value removes a resource key, making room for one more
                Arguments.of(30, Map.of("r0", "", "p0", "x"), 30),
                Arguments.of(30, Map.of("p0", "x"), -1));
    }

    private static Map<String, String> newKeys(int n) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            m.put("p" + i, "x");
        }
        return m;
    }

    @ParameterizedTest
    @MethodSource("mergedDimensions")
    void decode_whenResourceAndPointAttributesMerge_countsTheMergedDimensions(
            int resource, Map<String, String> point, int expected) throws Exception {
        Resource.Builder r = Resource.newBuilder();
        for (int i = 0; i < resource; i++) {
            r.addAttributes(HostileRecords.kv("r" + i, "v"));
        }
        var p = HostileRecords.point(1);
        point.forEach((k, v) -> p.addAttributes(HostileRecords.kv(k, v)));
        byte[] record = HostileRecords.request(
                        r.build(),
                        Metric.newBuilder()
                                .setName("cpu")
                                .setGauge(Gauge.newBuilder().addDataPoints(p))
                                .build())
                .toByteArray();

        if (expected < 0) {
            assertThat(poisonReason(record)).contains("more than 30 dimensions", "MAX_DIMENSIONS");
        } else {
            assertThat(decoder().decode(record).datapoints())
                    .singleElement()
                    .satisfies(dp -> assertThat(dp.dims()).hasSize(expected));
        }
    }

    @Test
    @Timeout(60)
    void decode_whenOtlpJsonIsMillionsOfEmptyObjects_poisonNamingTheTokenLimit() {
        byte[] record = HostileRecords.otlpJsonEmptyObjects(3_000_000);
        assertThat(record.length).isLessThan(40_000); // 15 KB of zlib in the issue: 80 s of GC, then out of memory

        assertThat(poisonReason(record)).contains("Token count", "MAX_JSON_TOKENS");
    }

    @Test
    @Timeout(60)
    void decode_whenOtlpProtobufInflatesPastItsLimit_poisonNamingTheLimit() {
        byte[] record = HostileRecords.otlpProtobufOfEmptyPoints(DecodeLimits.MAX_OTLP_PROTOBUF_BYTES + 1024);

        assertThat(poisonReason(record))
                .contains(
                        "decompresses to more than " + DecodeLimits.MAX_OTLP_PROTOBUF_BYTES, "MAX_OTLP_PROTOBUF_BYTES");
    }

    @Test
    void decode_whenOtlpDuplicateJsonKey_poison() {
        String json = "{\"resourceMetrics\":[],\"resourceMetrics\":[]}";

        assertThat(poisonReason(json.getBytes(StandardCharsets.UTF_8))).contains("Duplicate field 'resourceMetrics'");
    }

    static Stream<Arguments> badBounds() {
        return Stream.of(
                Arguments.of(new double[] {Double.NaN}, "explicit bound #0 is NaN, bounds must be finite"),
                Arguments.of(new double[] {1, Double.POSITIVE_INFINITY}, "explicit bound #1 is Infinity"),
                Arguments.of(new double[] {Double.NEGATIVE_INFINITY, 5}, "explicit bound #0 is -Infinity"),
                Arguments.of(
                        new double[] {10, 5, 1},
                        "explicit bound #1 (5.0) is not above bound #0 (10.0), bounds must be strictly increasing"),
                Arguments.of(new double[] {5, 5}, "explicit bound #1 (5.0) is not above bound #0 (5.0)"));
    }

    @ParameterizedTest
    @MethodSource("badBounds")
    void decode_whenHistogramBoundsNotFiniteOrNotIncreasing_poison(double[] bounds, String reason) {
        assertThat(poisonReason(HostileRecords.otlpHistogram(bounds))).contains(reason);
    }

    @Test
    void decode_whenHistogramBoundsIncreasing_accepts() throws Exception {
        assertThat(decoder().decode(HostileRecords.otlpHistogram(1, 10, 100)).datapoints())
                .singleElement()
                .satisfies(dp -> assertThat(dp.summary().count()).isEqualTo(4));
    }

    @Test
    void decode_whenHistogramHasMoreBucketsThanLimit_poisonNamingTheLimit() {
        double[] bounds = new double[DecodeLimits.MAX_HISTOGRAM_BUCKETS];
        for (int i = 0; i < bounds.length; i++) {
            bounds[i] = i + 1;
        }
        assertThat(poisonReason(HostileRecords.otlpHistogram(bounds)))
                .contains("1001 buckets, at most 1000", "MAX_HISTOGRAM_BUCKETS");
    }

    @Test
    void decode_whenExponentialHistogramHasMoreBucketsThanLimit_poisonNamingTheLimit() {
        ExponentialHistogramDataPoint.Buckets.Builder b = ExponentialHistogramDataPoint.Buckets.newBuilder();
        for (int i = 0; i <= DecodeLimits.MAX_HISTOGRAM_BUCKETS; i++) {
            b.addBucketCounts(1);
        }
        Metric m = Metric.newBuilder()
                .setName("latency")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .setTimeUnixNano(NOW_NS)
                                .setScale(0)
                                .setCount(DecodeLimits.MAX_HISTOGRAM_BUCKETS + 1)
                                .setSum(1)
                                .setPositive(b)))
                .build();

        assertThat(poisonReason(
                        HostileRecords.request(Resource.getDefaultInstance(), m).toByteArray()))
                .contains("1001 buckets of one sign, at most 1000", "MAX_HISTOGRAM_BUCKETS");
    }

    @Test
    void decode_whenMoreHistogramPointsThanLimit_poisonNamingTheLimit() {
        Histogram.Builder h =
                Histogram.newBuilder().setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
        for (int i = 0; i <= DecodeLimits.MAX_HISTOGRAM_POINTS_PER_RECORD; i++) {
            h.addDataPoints(HistogramDataPoint.newBuilder()
                    .setTimeUnixNano(NOW_NS)
                    .setCount(1)
                    .setSum(1));
        }
        byte[] record = HostileRecords.request(
                        Resource.getDefaultInstance(),
                        Metric.newBuilder().setName("latency").setHistogram(h).build())
                .toByteArray();

        assertThat(poisonReason(record))
                .contains("more than 2000 histogram data points", "MAX_HISTOGRAM_POINTS_PER_RECORD");
    }

    @ParameterizedTest
    @ValueSource(longs = {-1L, Long.MIN_VALUE, (1L << 53) + 1})
    void decode_whenSummaryCountAbove2To53_poisonNamingTheLimit(long count) {
        assertThat(poisonReason(HostileRecords.otlpSummaryCount(count)))
                .contains("count " + Long.toUnsignedString(count), "is more than 2^53", "MAX_POINT_COUNT");
    }

    @Test
    void decode_whenSummaryCountIs2To53_keepsItExactly() throws Exception {
        assertThat(decoder().decode(HostileRecords.otlpSummaryCount(1L << 53)).datapoints())
                .filteredOn(dp -> dp.name().equals("rpc.count"))
                .singleElement()
                .satisfies(dp -> assertThat((long) dp.value()).isEqualTo(1L << 53));
    }

    @Test
    void decode_whenOtlpUnitLongerThanLimit_poisonNamingTheLimit() {
        Metric m = Metric.newBuilder()
                .setName("cpu")
                .setUnit("{" + "x".repeat(100) + "}")
                .setGauge(Gauge.newBuilder().addDataPoints(HostileRecords.point(1)))
                .build();

        assertThat(poisonReason(
                        HostileRecords.request(Resource.getDefaultInstance(), m).toByteArray()))
                .contains("unit of 102 characters, at most 64", "MAX_UNIT_LENGTH");
    }

    // ---- KPL aggregates: the user records together

    private static byte[] aggregate(List<byte[]> users) {
        List<Map.Entry<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < users.size(); i++) {
            records.add(Map.entry("pk-" + i, users.get(i)));
        }
        return KplAggregate.write(records);
    }

    @Test
    @Timeout(60)
    void decodeUnits_whenAggregateUserRecordsTogetherPassDatapointLimit_wholeAggregatePoison() {
        List<byte[]> users = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            users.add(
                    HostileRecords.otlpGauge("m" + i, 20_000, false)); // 20,000 each: under the per-record limit alone
        }
        byte[] data = aggregate(users);

        assertThatThrownBy(() -> decoder().decodeUnits(data, "pk", NOW_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining(
                        "user record #5: KPL aggregate: its user records hold more than 100000 datapoints together")
                .hasMessageContaining("MAX_DATAPOINTS_PER_AGGREGATE")
                .hasMessageContaining("the whole record is poison");
    }

    @Test
    void decodeUnits_whenAggregateUserRecordsAtDatapointLimit_acceptsEach() throws Exception {
        List<byte[]> users = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            users.add(HostileRecords.otlpGauge("m" + i, 20_000, false));
        }
        assertThat(decoder().decodeUnits(aggregate(users), "pk", NOW_MS))
                .allSatisfy(u -> assertThat(u.decoded().datapoints()).hasSize(20_000));
    }

    @Test
    @Timeout(60)
    void decodeUnits_whenAggregateUserRecordsTogetherInflatePastLimit_wholeAggregatePoison() {
        // Each user record is 5 MB of OTLP/JSON whitespace (valid, under the 16 MB of one record); four pass 16 MB.
        byte[] user = HostileRecords.zlibOf(a -> {
            a.text("{\"resourceMetrics\":[");
            String blanks = " ".repeat(64 * 1024);
            for (int i = 0; i < 80; i++) {
                a.text(blanks);
            }
            a.text("]}");
        });
        byte[] data = aggregate(List.of(user, user, user, user));

        assertThatThrownBy(() -> decoder().decodeUnits(data, "pk", NOW_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining(
                        "user record #3: KPL aggregate: its user records decompress to more than 16777216 bytes together")
                .hasMessageContaining("MAX_DECOMPRESSED_BYTES_PER_AGGREGATE");
    }

    @Test
    void decodeUnits_whenAggregateUserRecordsTogetherPassSeriesLimit_wholeAggregatePoison() {
        List<byte[]> users = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            users.add(HostileRecords.otlpGauge("m" + i, 4_000, true)); // 4,000 series each, 12,000 together
        }
        byte[] data = aggregate(users);

        assertThatThrownBy(() -> decoder().decodeUnits(data, "pk", NOW_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("more than 10000 distinct series together (MAX_SERIES_PER_RECORD)");
    }

    @Test
    void decodeUnits_whenOneUserRecordPassesItsOwnLimit_onlyThatUnitIsPoison() throws Exception {
        byte[] data = aggregate(List.of(
                HostileRecords.otlpGauge("ok", 3, false),
                HostileRecords.otlpHistogram(Double.NaN),
                HostileRecords.otlpGauge("ok2", 2, false)));

        List<RecordDecoder.Unit> units = decoder().decodeUnits(data, "pk", NOW_MS);

        assertThat(units).extracting(u -> u.poisonReason() == null).containsExactly(true, false, true);
        assertThat(units.get(1).poisonReason())
                .contains("user record #1 of a KPL aggregate", "explicit bound #0 is NaN");
    }

    @Test
    void decode_whenSameRecordDecodedTwice_sameFate() {
        // A unit's fate depends only on its bytes: the budget is per record, never carried over.
        byte[] hostile = HostileRecords.emfAmplification(100, 30, 100);
        assertThat(poisonReason(hostile)).isEqualTo(poisonReason(hostile));
    }

    @Test
    void limits_areThoseDocumented() {
        KeyValue unused = KeyValue.newBuilder()
                .setKey("k")
                .setValue(AnyValue.getDefaultInstance())
                .build();
        assertThat(unused.getKey()).isEqualTo("k");
        assertThat(DecodeLimits.CLOUDWATCH_UNITS).hasSize(27).contains("Count/Second", "None");
        assertThat(DecodeLimits.MAX_DATAPOINTS_PER_RECORD).isEqualTo(100_000);
        assertThat(DecodeLimits.MAX_EMF_VALUES_PER_METRIC).isEqualTo(100);
    }
}
