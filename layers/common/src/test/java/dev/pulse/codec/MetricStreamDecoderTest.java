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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.CodedOutputStream;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CloudWatch metric stream records in both output formats (fixtures: scripts/gen_metric_stream.py, which lists the
 * metric updates these tests expect): the same update gives the same datapoints in either format, and every bad record
 * is poison with its reason.
 */
class MetricStreamDecoderTest {

    /** The start of the fixtures' period, 2026-11-20T12:00:00Z. */
    static final long PERIOD = 1_795_262_400_000L;
    /** The documented example's timestamp. */
    static final long DOCUMENTED = 1_611_929_698_000L;

    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(PERIOD), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    static byte[] fixture(String name) throws IOException {
        try (InputStream in = MetricStreamDecoderTest.class.getResourceAsStream("/metricstream/" + name)) {
            assertThat(in).as("fixture %s", name).isNotNull();
            return in.readAllBytes();
        }
    }

    static List<Datapoint> decode(byte[] data, long reference) {
        RecordDecoder.Unit u =
                DECODER.decodeMetricStreamUnits(data, "pk", reference).get(0);
        assertThat(u.poisonReason()).as("poison reason").isNull();
        return u.decoded().datapoints();
    }

    static String poison(byte[] data) {
        RecordDecoder.Unit u =
                DECODER.decodeMetricStreamUnits(data, "pk", PERIOD).get(0);
        assertThat(u.decoded()).as("decoded").isNull();
        return u.poisonReason();
    }

    /** Everything a datapoint stores, by series key. */
    static Map<String, String> stored(List<Datapoint> dps) {
        return dps.stream()
                .collect(Collectors.toMap(
                        Datapoint::seriesKey,
                        d -> d.timestamp() + " " + d.unit() + " "
                                + (d.summary() == null
                                        ? "value " + d.value()
                                        : "count " + d.summary().count() + " sum "
                                                + d.summary().sum() + " min "
                                                + d.summary().min() + " max "
                                                + d.summary().max()),
                        (a, b) -> a + " | " + b,
                        TreeMap::new));
    }

    @Test
    void decode_whenDocumentedJsonExample_keepsEveryStatisticExactly() throws IOException {
        Map<String, String> s = stored(decode(fixture("documented.json"), DOCUMENTED));

        String dims = "{InstanceId=i-123456789012,account_id=1234567890,region=us-east-1}";
        assertThat(s)
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "AWS/EC2/DiskWriteOps" + dims, DOCUMENTED + " Seconds count 3 sum 20.0 min 0.0 max 18.0",
                        "AWS/EC2/DiskWriteOps.p99" + dims, DOCUMENTED + " Seconds value 17.56",
                        "AWS/EC2/DiskWriteOps.p99.9" + dims, DOCUMENTED + " Seconds value 17.8764",
                        "AWS/EC2/DiskWriteOps.TM(25%:75%)" + dims, DOCUMENTED + " Seconds value 16.43"));
    }

    @Test
    void decode_whenSameUpdateInOpenTelemetryFormat_givesTheJsonDatapointsButTheTrimmedMean() throws IOException {
        Map<String, String> json = stored(decode(fixture("documented.json"), DOCUMENTED));
        json.keySet().removeIf(k -> k.contains(".TM("));

        assertThat(stored(decode(fixture("documented.otel1"), DOCUMENTED))).isEqualTo(json);
    }

    @Test
    void decode_whenLambdaAndDynamoDbMetricsInBothFormats_givesTheSameDatapoints() throws IOException {
        Map<String, String> json = stored(decode(fixture("metrics.json"), PERIOD));
        Map<String, String> otel = stored(decode(fixture("metrics.otel1"), PERIOD));

        assertThat(otel).isEqualTo(json);
        String lambda = "{FunctionName=checkout,account_id=123456789012,region=us-east-1}";
        assertThat(json)
                .containsEntry(
                        "AWS/Lambda/Duration" + lambda,
                        PERIOD + " Milliseconds count 120 sum 5400.0 min 12.0 max 480.0")
                .containsEntry("AWS/Lambda/Duration.p50" + lambda, PERIOD + " Milliseconds value 38.0")
                .containsEntry("AWS/Lambda/Duration.p90" + lambda, PERIOD + " Milliseconds value 95.0")
                .containsEntry("AWS/Lambda/Duration.p99" + lambda, PERIOD + " Milliseconds value 410.0")
                .containsEntry("AWS/Lambda/Errors" + lambda, PERIOD + " Count count 120 sum 3.0 min 0.0 max 1.0")
                .containsEntry(
                        "AWS/DynamoDB/ThrottledRequests{Operation=BatchWriteItem,TableName=pulse,account_id=123456789012,region=us-east-1}",
                        PERIOD + " Count count 4 sum 7.0 min 1.0 max 3.0")
                .containsEntry(
                        "AWS/DynamoDB/ConsumedWriteCapacityUnits{TableName=pulse,account_id=123456789012,region=us-east-1}",
                        PERIOD + " Count count 60 sum 9000.0 min 100.0 max 200.0")
                .hasSize(7);
    }

    @Test
    void decode_whenPreAggregated_sketchAnswersMinAndMaxAtTheEndsAndStaysBetween() throws IOException {
        Datapoint duration = decode(fixture("metrics.json"), PERIOD).stream()
                .filter(d -> d.name().equals("AWS/Lambda/Duration"))
                .findFirst()
                .orElseThrow();

        assertThat(duration.summary().quantile(0)).isEqualTo(12.0);
        assertThat(duration.summary().quantile(1)).isEqualTo(480.0);
        // 118 values at the mean of the rest, (5400 - 12 - 480) / 118 = 41.59...
        assertThat(duration.summary().quantile(0.5)).isCloseTo(41.59, within(0.5));
        assertThat(duration.summary().sketch().getCount()).isEqualTo(120.0);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":1.5,\"sum\":1,\"min\":1,\"max\":1}}|SampleCount 1.5 is not a whole number",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":-1,\"sum\":1,\"min\":1,\"max\":1}}|SampleCount -1 is not a whole number",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":1e300,\"sum\":1,\"min\":1,\"max\":1}}|is not a whole number of samples",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":2,\"sum\":1,\"min\":3,\"max\":1}}|Minimum 3.0 is above Maximum 1.0",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":2,\"sum\":1e400,\"min\":1,\"max\":1}}|must be finite",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":2,\"sum\":NaN,\"min\":1,\"max\":1}}|line 1",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":2,\"sum\":2}}|count, sum, min and max are required",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":\"now\",\"value\":{\"count\":1,\"sum\":1,\"min\":1,\"max\":1}}|timestamp: must be epoch milliseconds",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":1,\"sum\":1,\"min\":1,\"max\":1}}|account_id: must be a non-empty string",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"dimensions\":{\"a\":{\"b\":1}},\"timestamp\":1795262400000,\"value\":{\"count\":1,\"sum\":1,\"min\":1,\"max\":1}}|dimensions.a: must be a string",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":1,\"sum\":1,\"min\":1,\"max\":1,\"p99\":\"x\"}}|value.p99: must be a number",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"account_id\":\"2\",\"region\":\"r\",\"timestamp\":1795262400000,\"value\":{\"count\":1,\"sum\":1,\"min\":1,\"max\":1}}|Duplicate field 'account_id'",
                "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":1000,\"value\":{\"count\":1,\"sum\":1,\"min\":1,\"max\":1}}|outside the accepted window",
                "{\"namespace\":\"N\"|line 1",
            })
    void decode_whenJsonRecordIsBad_isPoisonNamingTheField(String line, String reason) {
        assertThat(poison(line.getBytes(StandardCharsets.UTF_8))).contains(reason);
    }

    @Test
    void decode_whenSampleCountIsZero_storesNothingAndIsNotPoison() {
        byte[] line = ("{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":"
                        + PERIOD + ",\"value\":{\"count\":0,\"sum\":0,\"min\":0,\"max\":0,\"p99\":0}}\n")
                .getBytes(StandardCharsets.UTF_8);

        assertThat(decode(line, PERIOD)).isEmpty();
    }

    @Test
    void decode_whenDimensionIsNamedRegion_keepsTheMetricsOwn() {
        byte[] line =
                ("{\"namespace\":\"AWS/Usage\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"us-east-1\","
                                + "\"dimensions\":{\"region\":\"eu-west-1\"},\"timestamp\":" + PERIOD
                                + ",\"value\":{\"count\":1,\"sum\":1,\"min\":1,\"max\":1}}")
                        .getBytes(StandardCharsets.UTF_8);

        assertThat(decode(line, PERIOD))
                .singleElement()
                .extracting(Datapoint::dims)
                .isEqualTo(Map.of("region", "eu-west-1", "account_id", "1"));
    }

    @Test
    void decode_whenJsonIsNestedDeeperThanTheLimit_isPoisonNamingTheLimit() {
        String deep = "{\"namespace\":" + "[".repeat(DecodeLimits.MAX_JSON_DEPTH + 5)
                + "]".repeat(DecodeLimits.MAX_JSON_DEPTH + 5) + "}";

        assertThat(poison(deep.getBytes(StandardCharsets.UTF_8))).contains("MAX_JSON_DEPTH");
    }

    @Test
    void decode_whenMoreDatapointsThanARecordMayHold_isPoisonNamingTheLimit() {
        String line = "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"timestamp\":"
                + PERIOD + ",\"value\":{\"count\":1,\"sum\":1,\"min\":1,\"max\":1}}\n";

        assertThat(poison(
                        line.repeat(DecodeLimits.MAX_DATAPOINTS_PER_RECORD + 1).getBytes(StandardCharsets.UTF_8)))
                .contains("MAX_DATAPOINTS_PER_RECORD");
    }

    @Test
    void decode_whenLengthRunsPastTheRecord_isPoison() throws IOException {
        byte[] otel = fixture("metrics.otel1");
        byte[] cut = java.util.Arrays.copyOf(otel, otel.length - 10);

        assertThat(poison(cut)).contains("runs past the record's");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ffffffffffffffffffff01", "ff", "0a"})
    void decode_whenLengthIsNotAVarintOrOutOfRange_isPoison(String hex) {
        assertThat(poison(java.util.HexFormat.of().parseHex(hex))).startsWith("request 0: length");
    }

    @Test
    void decode_whenOpenTelemetry07Format_isPoisonNamingTheFormatsRead() throws IOException {
        // A 0.7.0 double_summary is field 9 of Metric; a 1.0.0 reader sees a metric without data.
        ExportMetricsServiceRequest.Builder b = ExportMetricsServiceRequest.newBuilder();
        b.addResourceMetricsBuilder()
                .getResourceBuilder()
                .addAttributes(io.opentelemetry.proto.common.v1.KeyValue.newBuilder()
                        .setKey("cloud.account.id")
                        .setValue(io.opentelemetry.proto.common.v1.AnyValue.newBuilder()
                                .setStringValue("1")))
                .addAttributes(io.opentelemetry.proto.common.v1.KeyValue.newBuilder()
                        .setKey("cloud.region")
                        .setValue(io.opentelemetry.proto.common.v1.AnyValue.newBuilder()
                                .setStringValue("r")));
        b.getResourceMetricsBuilder(0)
                .addScopeMetricsBuilder()
                .addMetricsBuilder()
                .setName("amazonaws.com/AWS/SQS/X");

        assertThat(poison(lengthDelimited(b.build().toByteArray())))
                .contains("not a summary")
                .contains("not 0.7.0");
    }

    @Test
    void decode_whenQuantileIsOutsideZeroToOne_isPoison() throws IOException {
        ExportMetricsServiceRequest r = ExportMetricsServiceRequest.parseFrom(firstRequest(fixture("metrics.otel1")));
        ExportMetricsServiceRequest.Builder b = r.toBuilder();
        firstPoint(b).addQuantileValuesBuilder().setQuantile(1.5).setValue(1);

        assertThat(poison(lengthDelimited(b.build().toByteArray()))).contains("quantile 1.5 is outside 0..1");
    }

    @Test
    void decode_whenMinimumQuantileIsMissing_isPoison() throws IOException {
        ExportMetricsServiceRequest r = ExportMetricsServiceRequest.parseFrom(firstRequest(fixture("metrics.otel1")));
        ExportMetricsServiceRequest.Builder b = r.toBuilder();
        firstPoint(b).removeQuantileValues(0);

        assertThat(poison(lengthDelimited(b.build().toByteArray())))
                .contains("quantiles 0 (Minimum) and 1 (Maximum) are required");
    }

    @ParameterizedTest
    @CsvSource({"{Count},Count", "ms,Milliseconds", "By/s,Bytes/Second", "1,None", "%,Percent", "furlong,furlong"})
    void cloudWatchUnit_whenUcum_isTheCloudWatchName(String ucum, String cloudWatch) {
        assertThat(MetricStreamDecoder.cloudWatchUnit(ucum)).isEqualTo(cloudWatch);
    }

    @Test
    void detect_whenRequestIs123BytesLong_isNotMistakenForJson() {
        byte[] data = new byte[124];
        data[0] = 0x7b;
        data[1] = 0x0a;

        assertThat(MetricStreamDecoder.detect(data)).isEqualTo(MetricStreamDecoder.Format.OPENTELEMETRY_1_0);
    }

    private static String jsonLine(String dims, String value) {
        return "{\"namespace\":\"N\",\"metric_name\":\"M\",\"account_id\":\"1\",\"region\":\"r\",\"dimensions\":{"
                + dims + "},\"timestamp\":" + PERIOD + ",\"value\":" + value + "}\n";
    }

    @ParameterizedTest
    @ValueSource(strings = {"9007199254740993", "18446744073709551617", "-1", "1.5", "9007199254740992.0"})
    void decode_whenJsonCountIsNotAnExactWholeNumberInRange_isPoison(String count) {
        byte[] line = jsonLine("", "{\"count\":" + count + ",\"sum\":1,\"min\":1,\"max\":1}")
                .getBytes(StandardCharsets.UTF_8);

        assertThat(poison(line)).contains("SampleCount").contains("is not a whole number of samples");
    }

    @Test
    void decode_whenJsonCountIsTheLimit_keepsItExactly() {
        byte[] line = jsonLine("", "{\"count\":9007199254740992,\"sum\":1,\"min\":0,\"max\":1}")
                .getBytes(StandardCharsets.UTF_8);

        assertThat(decode(line, PERIOD))
                .singleElement()
                .satisfies(d -> assertThat(d.summary().count()).isEqualTo(DecodeLimits.MAX_POINT_COUNT));
    }

    @Test
    void decode_whenOpenTelemetryCountIsAboveTheLimit_isPoison() throws IOException {
        ExportMetricsServiceRequest r = ExportMetricsServiceRequest.parseFrom(firstRequest(fixture("metrics.otel1")));
        ExportMetricsServiceRequest.Builder b = r.toBuilder();
        firstPoint(b).setCount(DecodeLimits.MAX_POINT_COUNT + 1);

        assertThat(poison(lengthDelimited(b.build().toByteArray()))).contains("SampleCount 9007199254740993");
    }

    @Test
    void decode_whenOpenTelemetryCountIsZeroWithoutQuantiles_storesNothingAndIsNotPoison() throws IOException {
        ExportMetricsServiceRequest r = ExportMetricsServiceRequest.parseFrom(firstRequest(fixture("metrics.otel1")));
        ExportMetricsServiceRequest.Builder b = r.toBuilder();
        int before = decode(lengthDelimited(b.build().toByteArray()), PERIOD).size();
        firstPoint(b).setCount(0).setSum(0).clearQuantileValues();

        assertThat(decode(lengthDelimited(b.build().toByteArray()), PERIOD)).hasSizeLessThan(before);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 100})
    void decode_whenRecordIsZeroBytes_isPoisonNotAnEmptyRecord(int length) {
        assertThat(poison(new byte[length])).contains("length 0");
    }

    @Test
    void decode_whenRequestHasNoResourceMetrics_isPoison() throws IOException {
        assertThat(poison(lengthDelimited(ExportMetricsServiceRequest.newBuilder()
                        .addResourceMetrics(io.opentelemetry.proto.metrics.v1.ResourceMetrics.getDefaultInstance())
                        .build()
                        .toByteArray())))
                .contains("cloud.account.id");
        byte[] emptyButOneByte = {2, 0x0a, 0x00};
        assertThat(poison(emptyButOneByte)).isNotNull();
    }

    @Test
    void decode_whenOneMetricBreaksPulsesLimits_setsItAsideAndStoresTheOthers() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < DatapointValidator.MAX_DIMENSIONS; i++) {
            many.append(i == 0 ? "" : ",").append("\"d").append(i).append("\":\"v\"");
        }
        String stats = "{\"count\":1,\"sum\":5,\"min\":5,\"max\":5}";
        byte[] record = (jsonLine("\"FunctionName\":\"a\"", stats)
                        + jsonLine(many.toString(), stats)
                        + jsonLine("\"FunctionName\":\"" + "x".repeat(2000) + "\"", stats)
                        + jsonLine("\"FunctionName\":\"b\"", stats))
                .getBytes(StandardCharsets.UTF_8);

        List<RecordDecoder.Unit> units = DECODER.decodeMetricStreamUnits(record, "pk", PERIOD);

        assertThat(units).hasSize(2);
        assertThat(units.get(0).poisonReason()).isNull();
        assertThat(units.get(0).decoded().datapoints())
                .extracting(d -> d.dims().get("FunctionName"))
                .containsExactly("a", "b");
        assertThat(units.get(1).decoded()).isNull();
        assertThat(units.get(1).subSequence()).isZero();
        assertThat(units.get(1).poisonReason())
                .startsWith(
                        "2 of the record's 4 datapoints set aside, the other 2 stored; first: invalid datapoint #1 (N/M)");
    }

    @Test
    void decode_whenEveryMetricBreaksPulsesLimits_isOnePoisonUnit() {
        String stats = "{\"count\":1,\"sum\":5,\"min\":5,\"max\":5}";
        byte[] record = (jsonLine("\"FunctionName\":\"" + "x".repeat(2000) + "\"", stats)
                        + jsonLine("\"FunctionName\":\"" + "y".repeat(2000) + "\"", stats))
                .getBytes(StandardCharsets.UTF_8);

        assertThat(DECODER.decodeMetricStreamUnits(record, "pk", PERIOD))
                .singleElement()
                .satisfies(u -> assertThat(u.poisonReason()).contains("(and 1 more)"));
    }

    private static io.opentelemetry.proto.metrics.v1.SummaryDataPoint.Builder firstPoint(
            ExportMetricsServiceRequest.Builder b) {
        return b.getResourceMetricsBuilder(0)
                .getScopeMetricsBuilder(0)
                .getMetricsBuilder(0)
                .getSummaryBuilder()
                .getDataPointsBuilder(0);
    }

    private static byte[] firstRequest(byte[] record) throws IOException {
        com.google.protobuf.CodedInputStream in = com.google.protobuf.CodedInputStream.newInstance(record);
        return in.readRawBytes(in.readRawVarint32());
    }

    private static byte[] lengthDelimited(byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream c = CodedOutputStream.newInstance(out);
        c.writeUInt32NoTag(body.length);
        c.writeRawBytes(body);
        c.flush();
        return out.toByteArray();
    }
}
