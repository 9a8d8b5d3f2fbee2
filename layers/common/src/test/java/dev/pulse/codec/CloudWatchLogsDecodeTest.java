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

import static dev.pulse.codec.Payloads.NOW_MS;
import static dev.pulse.codec.Payloads.controlMessage;
import static dev.pulse.codec.Payloads.decoder;
import static dev.pulse.codec.Payloads.decoderAt;
import static dev.pulse.codec.Payloads.gzip;
import static dev.pulse.codec.Payloads.logs;
import static dev.pulse.codec.Payloads.logsJson;
import static dev.pulse.codec.Payloads.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.pulse.codec.Payloads.LogEvent;
import dev.pulse.model.Datapoint;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CloudWatchLogsDecodeTest {

    private static final String LAMBDA_GROUP = "/aws/lambda/checkout-api";

    /** The example document of the EMF specification, verbatim. */
    private static final String SPEC_EXAMPLE = """
            {
              "_aws": {
                "Timestamp": 1574109732004,
                "CloudWatchMetrics": [
                  {
                    "Namespace": "lambda-function-metrics",
                    "Dimensions": [["functionVersion"]],
                    "Metrics": [
                      {
                        "Name": "time",
                        "Unit": "Milliseconds",
                        "StorageResolution": 60
                      }
                    ]
                  }
                ]
              },
              "functionVersion": "$LATEST",
              "time": 100,
              "requestId": "989ffbf8-9ace-4817-a57c-e4dd734019ee"
            }""";

    private static final String TWO_SETS_WITH_ARRAY = """
            {"_aws":{"Timestamp":1763740800123,"CloudWatchMetrics":[{
                "Namespace":"lambda-function-metrics",
                "Dimensions":[["functionVersion"],["functionVersion","service"]],
                "Metrics":[{"Name":"time","Unit":"Milliseconds"},{"Name":"count"}]}]},
             "functionVersion":"$LATEST","service":"checkout","time":[1,2,3],"count":5,
             "requestId":"989ffbf8-9ace-4817-a57c-e4dd734019ee"}""";

    private static final String REPORT_WARM = "REPORT RequestId: 3604209a-e9a3-11e6-939a-754dd98c7be3\t"
            + "Duration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 98 MB\t\n";

    private static final String REPORT_COLD = "REPORT RequestId: 3604209a-e9a3-11e6-939a-754dd98c7be3\t"
            + "Duration: 12.34 ms\tBilled Duration: 470 ms\tMemory Size: 512 MB\tMax Memory Used: 98 MB\t"
            + "Init Duration: 456.78 ms\t\n";

    @Test
    void decode_whenEmfSpecExample_returnsNamespacedSeriesAtAwsTimestamp() throws Exception {
        Instant specTime = Instant.ofEpochMilli(1574109732004L);

        Decoded d = decoderAt(specTime).decode(logs(LAMBDA_GROUP, new LogEvent(1574109732999L, SPEC_EXAMPLE)));

        assertThat(d.skippedEvents()).isZero();
        assertThat(d.datapoints())
                .containsExactly(new Datapoint(
                        "lambda-function-metrics/time",
                        Map.of("functionVersion", "$LATEST"),
                        1574109732004L,
                        100,
                        "Milliseconds"));
    }

    @Test
    void decode_whenEmfHasTwoDimensionSetsAndArrayValue_emitsOneDatapointPerValuePerSet() throws Exception {
        Decoded d = decoder().decode(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, TWO_SETS_WITH_ARRAY)));

        Map<String, String> byVersion = Map.of("functionVersion", "$LATEST");
        Map<String, String> byVersionAndService = Map.of("functionVersion", "$LATEST", "service", "checkout");
        assertThat(d.datapoints())
                .extracting(Datapoint::name, Datapoint::dims, Datapoint::value, Datapoint::unit)
                .containsExactlyInAnyOrder(
                        tuple("lambda-function-metrics/time", byVersion, 1.0, "Milliseconds"),
                        tuple("lambda-function-metrics/time", byVersion, 2.0, "Milliseconds"),
                        tuple("lambda-function-metrics/time", byVersion, 3.0, "Milliseconds"),
                        tuple("lambda-function-metrics/count", byVersion, 5.0, null),
                        tuple("lambda-function-metrics/time", byVersionAndService, 1.0, "Milliseconds"),
                        tuple("lambda-function-metrics/time", byVersionAndService, 2.0, "Milliseconds"),
                        tuple("lambda-function-metrics/time", byVersionAndService, 3.0, "Milliseconds"),
                        tuple("lambda-function-metrics/count", byVersionAndService, 5.0, null));
        assertThat(d.datapoints()).extracting(Datapoint::timestamp).containsOnly(1763740800123L);
    }

    @Test
    void decode_whenEmfHasNoTimestamp_usesLogEventTimestamp() throws Exception {
        String emf = """
                {"_aws":{"CloudWatchMetrics":[{"Namespace":"ns","Dimensions":[["svc"]],"Metrics":[{"Name":"m"}]}]},
                 "svc":"a","m":4}""";

        Decoded d = decoder().decode(logs(LAMBDA_GROUP, new LogEvent(NOW_MS - 5_000, emf)));

        assertThat(d.datapoints())
                .singleElement()
                .extracting(Datapoint::timestamp)
                .isEqualTo(NOW_MS - 5_000);
    }

    @ParameterizedTest(name = "Dimensions {0}")
    @ValueSource(strings = {"[]", "[[]]"})
    void decode_whenEmfDimensionsEmpty_emitsSeriesWithoutDimensions(String dimensions) throws Exception {
        String emf = "{\"_aws\":{\"Timestamp\":" + NOW_MS + ",\"CloudWatchMetrics\":[{\"Namespace\":\"ns\","
                + "\"Dimensions\":" + dimensions + ",\"Metrics\":[{\"Name\":\"m\"}]}]},\"m\":[4,5]}";

        Decoded d = decoder().decode(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, emf)));

        assertThat(d.datapoints())
                .extracting(Datapoint::seriesKey, Datapoint::value)
                .containsExactly(tuple("ns/m{}", 4.0), tuple("ns/m{}", 5.0));
    }

    @Test
    void decode_whenEmfHasSeveralDirectives_emitsEachNamespace() throws Exception {
        String emf = """
                {"_aws":{"Timestamp":1763740800000,"CloudWatchMetrics":[
                   {"Namespace":"a","Dimensions":[["svc"]],"Metrics":[{"Name":"m"}]},
                   {"Namespace":"b","Dimensions":[[]],"Metrics":[{"Name":"m"}]}]},
                 "svc":"x","m":7}""";

        Decoded d = decoder().decode(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, emf)));

        assertThat(d.datapoints()).extracting(Datapoint::seriesKey).containsExactly("a/m{svc=x}", "b/m{}");
    }

    @Test
    void decode_whenReportLineWithoutInitDuration_emitsThreeLambdaMetrics() throws Exception {
        Decoded d = decoder().decode(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, REPORT_WARM)));

        Map<String, String> fn = Map.of("function", "checkout-api");
        assertThat(d.datapoints())
                .containsExactly(
                        new Datapoint("lambda.duration", fn, NOW_MS, 12.34, "Milliseconds"),
                        new Datapoint("lambda.billed_duration", fn, NOW_MS, 13, "Milliseconds"),
                        new Datapoint("lambda.memory_size", fn, NOW_MS, 512, "Megabytes"),
                        new Datapoint("lambda.max_memory_used", fn, NOW_MS, 98, "Megabytes"));
        assertThat(d.skippedEvents()).isZero();
    }

    @Test
    void decode_whenReportLineWithInitDuration_alsoEmitsInitDuration() throws Exception {
        Decoded d = decoder().decode(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, REPORT_COLD)));

        assertThat(d.datapoints())
                .extracting(Datapoint::name, Datapoint::value)
                .containsExactly(
                        tuple("lambda.duration", 12.34),
                        tuple("lambda.billed_duration", 470.0),
                        tuple("lambda.memory_size", 512.0),
                        tuple("lambda.max_memory_used", 98.0),
                        tuple("lambda.init_duration", 456.78));
        assertThat(d.datapoints()).extracting(Datapoint::dims).containsOnly(Map.of("function", "checkout-api"));
    }

    @Test
    void decode_whenReportLineSpaceSeparatedWithTrailingFields_parsesIt() throws Exception {
        // Older runtimes separate fields with spaces; X-Ray and SnapStart append fields after Max Memory Used.
        String line = "REPORT RequestId: abc Duration: 1.5 ms Billed Duration: 2 ms Memory Size: 128 MB "
                + "Max Memory Used: 60 MB Restore Duration: 300.1 ms Billed Restore Duration: 100 ms";

        Decoded d = decoder().decode(logs("/aws/lambda/fn", new LogEvent(NOW_MS, line)));

        assertThat(d.datapoints())
                .extracting(Datapoint::name, Datapoint::value)
                .containsExactly(
                        tuple("lambda.duration", 1.5),
                        tuple("lambda.billed_duration", 2.0),
                        tuple("lambda.memory_size", 128.0),
                        tuple("lambda.max_memory_used", 60.0));
    }

    @Test
    void decode_whenPlainLogLines_countsThemAsSkipped() throws Exception {
        Decoded d = decoder()
                .decode(logs(
                        LAMBDA_GROUP,
                        new LogEvent(NOW_MS, "START RequestId: 3604209a Version: $LATEST\n"),
                        new LogEvent(NOW_MS, "2025-11-21T16:00:00.000Z\t3604209a\tINFO\thello\n"),
                        new LogEvent(NOW_MS, "{\"level\":\"INFO\",\"message\":\"structured but not EMF\"}"),
                        new LogEvent(NOW_MS, REPORT_WARM),
                        new LogEvent(NOW_MS, "END RequestId: 3604209a\n")));

        assertThat(d.skippedEvents()).isEqualTo(4);
        assertThat(d.datapoints()).hasSize(4);
    }

    @Test
    void decode_whenJsonLogMentionsAwsOnlyNested_skipsItInsteadOfPoisoning() throws Exception {
        Decoded d = decoder()
                .decode(logs(
                        LAMBDA_GROUP,
                        new LogEvent(NOW_MS, "{\"level\":\"INFO\",\"request\":{\"_aws\":{\"trace\":\"x\"}}}"),
                        new LogEvent(NOW_MS, REPORT_WARM)));

        assertThat(d.skippedEvents()).isEqualTo(1);
        assertThat(d.datapoints()).hasSize(4);
    }

    @Test
    void decode_whenOnlyPlainLines_returnsNoDatapointsWithoutError() throws Exception {
        Decoded d = decoder().decode(logs("/ecs/web", new LogEvent(NOW_MS, "GET / 200"), new LogEvent(NOW_MS, "")));

        assertThat(d.datapoints()).isEmpty();
        assertThat(d.skippedEvents()).isEqualTo(2);
    }

    @Test
    void decode_whenEmfReportAndPlainLinesMixed_keepsEventOrder() throws Exception {
        String emf = "{\"_aws\":{\"CloudWatchMetrics\":[{\"Namespace\":\"ns\",\"Dimensions\":[],"
                + "\"Metrics\":[{\"Name\":\"m\"}]}]},\"m\":1}";

        Decoded d = decoder()
                .decode(logs(
                        LAMBDA_GROUP,
                        new LogEvent(NOW_MS - 2, emf),
                        new LogEvent(NOW_MS - 1, "noise"),
                        new LogEvent(NOW_MS, REPORT_WARM)));

        assertThat(d.datapoints())
                .extracting(Datapoint::name)
                .containsExactly(
                        "ns/m",
                        "lambda.duration",
                        "lambda.billed_duration",
                        "lambda.memory_size",
                        "lambda.max_memory_used");
        assertThat(d.skippedEvents()).isEqualTo(1);
    }

    @Test
    void decode_whenControlMessage_returnsNoDatapointsAndOneSkipped() throws Exception {
        Decoded d = decoder().decode(controlMessage());

        assertThat(d.datapoints()).isEmpty();
        assertThat(d.skippedEvents()).isEqualTo(1);
    }

    @Test
    void decode_whenLogGroupIsNotLambda_usesWholeLogGroupAsFunction() throws Exception {
        Decoded d = decoder().decode(logs("custom-group", new LogEvent(NOW_MS, REPORT_WARM)));

        assertThat(d.datapoints()).extracting(Datapoint::dims).containsOnly(Map.of("function", "custom-group"));
    }

    @Test
    void decode_whenDataMessageHasNoEvents_returnsEmpty() throws Exception {
        Decoded d = decoder().decode(gzip(utf8(logsJson("DATA_MESSAGE", LAMBDA_GROUP, List.of()))));

        assertThat(d.datapoints()).isEmpty();
        assertThat(d.skippedEvents()).isZero();
    }

    @Test
    void decode_whenJsonFormatPlatformReport_emitsSameMetricsAsTextReport() throws Exception {
        String cold = "{\"time\":\"2025-11-21T16:00:00.000Z\",\"type\":\"platform.report\",\"record\":{"
                + "\"requestId\":\"6f7f0961\",\"metrics\":{\"durationMs\":123.45,\"billedDurationMs\":124,"
                + "\"memorySizeMB\":512,\"maxMemoryUsedMB\":98,\"initDurationMs\":456.78},\"status\":\"success\"}}";
        String warm = cold.replace(",\"initDurationMs\":456.78", "");

        Decoded d = decoder().decode(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, cold), new LogEvent(NOW_MS, warm)));

        assertThat(d.datapoints())
                .extracting(Datapoint::name, Datapoint::value)
                .containsExactly(
                        tuple("lambda.duration", 123.45),
                        tuple("lambda.billed_duration", 124.0),
                        tuple("lambda.memory_size", 512.0),
                        tuple("lambda.max_memory_used", 98.0),
                        tuple("lambda.init_duration", 456.78),
                        tuple("lambda.duration", 123.45),
                        tuple("lambda.billed_duration", 124.0),
                        tuple("lambda.memory_size", 512.0),
                        tuple("lambda.max_memory_used", 98.0));
        assertThat(d.datapoints()).allSatisfy(dp -> assertThat(dp.dims()).containsOnlyKeys("function"));
        assertThat(d.skippedEvents()).isZero();
    }

    @Test
    void decode_whenPlatformReportWithoutMetrics_isPoison() {
        String bad = "{\"type\":\"platform.report\",\"record\":{\"requestId\":\"x\"}}";

        assertThatThrownBy(() -> decoder().decode(logs(LAMBDA_GROUP, new LogEvent(NOW_MS, bad))))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("record.metrics");
    }

    @Test
    void decode_whenReferenceTimeGiven_windowFollowsItNotTheClock() throws Exception {
        long arrival = NOW_MS - java.time.Duration.ofDays(20).toMillis();
        byte[] old = utf8("{\"name\":\"m\",\"ts\":" + (arrival - 1000) + ",\"value\":1}");

        assertThat(decoder().decode(old, arrival).datapoints()).hasSize(1);
        assertThatThrownBy(() -> decoder().decode(old))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("outside the accepted window");
    }
}
