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

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.pulse.aggregate.ExactSum;
import dev.pulse.aggregate.Sketches;
import dev.pulse.aggregate.Summary;
import dev.pulse.model.Datapoint;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Decodes one Firehose record of a CloudWatch metric stream, in either of its output formats: JSON (objects separated
 * by newlines, one datapoint of one metric each) or OpenTelemetry 1.0.0 ({@code ExportMetricsServiceRequest}s, each
 * after its length as an unsigned varint, metrics as OTLP summaries). Both give the same datapoints for the same
 * metric update:
 *
 * <ul>
 *   <li>one pre-aggregated datapoint named {@code <Namespace>/<MetricName>} (as EMF names its series) holding the
 *       period's SampleCount, Sum, Minimum and Maximum exactly, so count, sum, average, min and max over any window
 *       are CloudWatch's own;</li>
 *   <li>one single-value datapoint per additional statistic, named {@code <Namespace>/<MetricName>.<statistic>}
 *       ({@code .p99}, {@code .p99.9}; in JSON also {@code .TM(25%:75%)} and the other statistics CloudWatch names):
 *       a percentile of a CloudWatch metric cannot be rebuilt from its count, sum, min and max;</li>
 *   <li>dimensions: the metric's CloudWatch dimensions plus {@code account_id} and {@code region} (a dimension of
 *       the metric with either name is kept instead);</li>
 *   <li>time: the start of CloudWatch's period (JSON {@code timestamp}, OpenTelemetry {@code start_time_unix_nano}),
 *       so a datapoint lands in the minute CloudWatch shows it at.</li>
 * </ul>
 *
 * <p>The sketch of a pre-aggregated datapoint is built from what the period says: one value at its minimum, one at
 * its maximum and the others at the mean of the rest, so a percentile query over such a series stays between the
 * period's min and max; the streamed percentiles are the series to read percentiles from. A period with a
 * SampleCount of 0 measured nothing and gives no datapoint. A record that cannot be read is poison whole; a
 * datapoint of a readable record that breaks Pulse's limits is set aside alone ({@link
 * RecordDecoder#decodeMetricStreamUnits}).
 */
public final class MetricStreamDecoder {

    /** The dimensions the stream's account and region are kept under. */
    public static final String ACCOUNT = "account_id";

    public static final String REGION = "region";

    /** The output formats of a metric stream this decoder reads. */
    public enum Format {
        JSON,
        OPENTELEMETRY_1_0
    }

    /**
     * Which format {@code data} is in. A JSON record starts with an object whose first key is quoted (an opening brace,
     * then a double quote); an OpenTelemetry record starts with a varint length followed by the request's first field
     * tag, {@code 0x0a} (resource_metrics), never a quote: a 123-byte request ({@code 0x7b} is also an opening brace)
     * is not mistaken.
     */
    public static Format detect(byte[] data) {
        return data.length >= 2 && data[0] == '{' && data[1] == '"' ? Format.JSON : Format.OPENTELEMETRY_1_0;
    }

    Decoded decode(byte[] data, DecodeBudget budget) throws DecodeException {
        DecodeBudget.Datapoints out = budget.unit();
        if (detect(data) == Format.JSON) {
            json(data, out);
        } else {
            openTelemetry(data, out);
        }
        // A record of periods that measured nothing (SampleCount 0) stores nothing and is not poison.
        return new Decoded(out, 0);
    }

    // ---- JSON ----------------------------------------------------------------------------------------------------

    private static void json(byte[] data, DecodeBudget.Datapoints out) throws DecodeException {
        int line = 0;
        int from = 0;
        while (from < data.length) {
            int end = from;
            while (end < data.length && data[end] != '\n') {
                end++;
            }
            line++;
            if (!isBlank(data, from, end)) {
                JsonNode object;
                try {
                    object = Json.MAPPER.readTree(data, from, end - from);
                } catch (JacksonException e) {
                    throw new DecodeException("metric stream JSON line " + line + ": " + Json.reason(e));
                } catch (IOException e) {
                    throw new DecodeException("metric stream JSON line " + line + ": " + e.getMessage());
                }
                jsonObject(object, "line " + line, out);
            }
            from = end + 1;
        }
    }

    private static boolean isBlank(byte[] data, int from, int end) {
        for (int i = from; i < end; i++) {
            if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r') {
                return false;
            }
        }
        return true;
    }

    private static void jsonObject(JsonNode o, String at, DecodeBudget.Datapoints out) throws DecodeException {
        if (!o.isObject()) {
            throw new DecodeException(at + ": not a JSON object");
        }
        String namespace = text(o, "namespace", at);
        String metric = text(o, "metric_name", at);
        JsonNode ts = o.get("timestamp");
        if (ts == null || !ts.isIntegralNumber() || !ts.canConvertToLong()) {
            throw new DecodeException(at + ": timestamp: must be epoch milliseconds (an integer)");
        }
        Map<String, String> dims = new TreeMap<>();
        JsonNode dimensions = o.get("dimensions");
        if (dimensions != null && !dimensions.isNull()) {
            if (!dimensions.isObject()) {
                throw new DecodeException(at + ": dimensions: must be an object of strings");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = dimensions.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> d = it.next();
                if (!d.getValue().isTextual()) {
                    throw new DecodeException(at + ": dimensions." + d.getKey() + ": must be a string");
                }
                dims.put(d.getKey(), d.getValue().asText());
            }
        }
        dims.putIfAbsent(ACCOUNT, text(o, "account_id", at));
        dims.putIfAbsent(REGION, text(o, "region", at));
        JsonNode unitNode = o.get("unit");
        String unit = unitNode == null || unitNode.isNull() ? null : unitNode.asText();
        JsonNode value = o.get("value");
        if (value == null || !value.isObject()) {
            throw new DecodeException(at + ": value: must be an object of statistics");
        }
        Map<String, Double> statistics = new TreeMap<>();
        Long count = null;
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> s = it.next();
            if (s.getKey().equals("count")) {
                count = sampleCount(s.getValue(), at);
                continue;
            }
            if (!s.getValue().isNumber()) {
                throw new DecodeException(at + ": value." + s.getKey() + ": must be a number");
            }
            statistics.put(s.getKey(), s.getValue().doubleValue());
        }
        String name = namespace + "/" + metric;
        long time = ts.asLong();
        Double sum = statistics.remove("sum");
        Double min = statistics.remove("min");
        Double max = statistics.remove("max");
        if (count == null || sum == null || min == null || max == null) {
            throw new DecodeException(
                    at + ": value: count, sum, min and max are required (a metric stream always has them)");
        }
        add(name, dims, time, unit, count, sum, min, max, statistics, at, out);
    }

    /**
     * The count as the whole number it was written as: read as a double, a count above 2^53 would be rounded to a
     * neighbour that passes the limit. A count written with a fraction part must be below 2^53 to be exact.
     */
    private static long sampleCount(JsonNode n, String at) throws DecodeException {
        if (n.isIntegralNumber()) {
            BigInteger v = n.bigIntegerValue();
            if (v.signum() >= 0 && v.compareTo(BigInteger.valueOf(DecodeLimits.MAX_POINT_COUNT)) <= 0) {
                return v.longValue();
            }
        } else if (n.isNumber()) {
            double d = n.doubleValue();
            if (d >= 0 && d < DecodeLimits.MAX_POINT_COUNT && d == Math.rint(d)) {
                return (long) d;
            }
        }
        throw new DecodeException(at + ": value.count: SampleCount " + n.asText()
                + " is not a whole number of samples in 0.." + DecodeLimits.MAX_POINT_COUNT);
    }

    private static String text(JsonNode o, String field, String at) throws DecodeException {
        JsonNode n = o.get(field);
        if (n == null || !n.isTextual() || n.asText().isEmpty()) {
            throw new DecodeException(at + ": " + field + ": must be a non-empty string");
        }
        return n.asText();
    }

    // ---- OpenTelemetry 1.0.0 -------------------------------------------------------------------------------------

    private static void openTelemetry(byte[] data, DecodeBudget.Datapoints out) throws DecodeException {
        int pos = 0;
        int request = 0;
        while (pos < data.length) {
            String at = "request " + request;
            int length;
            int after;
            try {
                CodedInputStream in = CodedInputStream.newInstance(data, pos, data.length - pos);
                length = in.readRawVarint32();
                after = pos + in.getTotalBytesRead();
            } catch (IOException e) {
                throw new DecodeException(at + ": length: not a varint (" + e.getMessage() + ")");
            }
            if (length < 0 || length > data.length - after) {
                throw new DecodeException(at + ": length " + Integer.toUnsignedString(length)
                        + " runs past the record's " + (data.length - after) + " remaining bytes");
            }
            if (length == 0) {
                // A stream never sends an empty request: a run of zero bytes is not a record of nothing.
                throw new DecodeException(at + ": length 0 (an empty request; a metric stream never sends one)");
            }
            ExportMetricsServiceRequest r;
            try {
                r = ExportMetricsServiceRequest.parser().parseFrom(data, after, length);
            } catch (InvalidProtocolBufferException e) {
                throw new DecodeException(at + ": not an ExportMetricsServiceRequest (" + e.getMessage() + ")");
            }
            request(r, at, out);
            pos = after + length;
            request++;
        }
    }

    private static void request(ExportMetricsServiceRequest r, String at, DecodeBudget.Datapoints out)
            throws DecodeException {
        if (r.getResourceMetricsCount() == 0) {
            throw new DecodeException(at + ": no resourceMetrics (a metric stream never sends an empty request)");
        }
        for (int i = 0; i < r.getResourceMetricsCount(); i++) {
            ResourceMetrics rm = r.getResourceMetrics(i);
            String rat = at + ".resourceMetrics[" + i + "]";
            String account = null;
            String region = null;
            for (KeyValue kv : rm.getResource().getAttributesList()) {
                if (kv.getKey().equals("cloud.account.id")) {
                    account = kv.getValue().getStringValue();
                } else if (kv.getKey().equals("cloud.region")) {
                    region = kv.getValue().getStringValue();
                }
            }
            if (account == null || account.isEmpty() || region == null || region.isEmpty()) {
                throw new DecodeException(
                        rat
                                + ".resource: cloud.account.id and cloud.region are required (a metric stream always sends them)");
            }
            for (int j = 0; j < rm.getScopeMetricsCount(); j++) {
                ScopeMetrics sm = rm.getScopeMetrics(j);
                for (int k = 0; k < sm.getMetricsCount(); k++) {
                    metric(sm.getMetrics(k), account, region, rat + ".scopeMetrics[" + j + "].metrics[" + k + "]", out);
                }
            }
        }
    }

    private static void metric(Metric m, String account, String region, String at, DecodeBudget.Datapoints out)
            throws DecodeException {
        if (m.getDataCase() != Metric.DataCase.SUMMARY) {
            throw new DecodeException(at + ": metric " + m.getName() + " is not a summary (" + m.getDataCase()
                    + "); Pulse reads the OpenTelemetry 1.0.0 and JSON output formats, not 0.7.0");
        }
        String unit = cloudWatchUnit(m.getUnit());
        for (int i = 0; i < m.getSummary().getDataPointsCount(); i++) {
            SummaryDataPoint p = m.getSummary().getDataPoints(i);
            String pat = at + ".summary.dataPoints[" + i + "]";
            String namespace = null;
            String metric = null;
            Map<String, String> dims = new TreeMap<>();
            for (KeyValue kv : p.getAttributesList()) {
                switch (kv.getKey()) {
                    case "Namespace" -> namespace = kv.getValue().getStringValue();
                    case "MetricName" -> metric = kv.getValue().getStringValue();
                    case "Dimensions" -> {
                        if (kv.getValue().getValueCase() != AnyValue.ValueCase.KVLIST_VALUE) {
                            throw new DecodeException(pat + ".attributes.Dimensions: must be a key-value list");
                        }
                        for (KeyValue d : kv.getValue().getKvlistValue().getValuesList()) {
                            if (d.getValue().getValueCase() != AnyValue.ValueCase.STRING_VALUE) {
                                throw new DecodeException(
                                        pat + ".attributes.Dimensions." + d.getKey() + ": must be a string");
                            }
                            dims.put(d.getKey(), d.getValue().getStringValue());
                        }
                    }
                    default -> {}
                }
            }
            if (namespace == null || namespace.isEmpty() || metric == null || metric.isEmpty()) {
                throw new DecodeException(pat + ".attributes: Namespace and MetricName are required");
            }
            dims.putIfAbsent(ACCOUNT, account);
            dims.putIfAbsent(REGION, region);
            long count = p.getCount();
            if (count == 0) {
                // A period that measured nothing: CloudWatch may send it without its Minimum and Maximum quantiles.
                continue;
            }
            if (Long.compareUnsigned(count, DecodeLimits.MAX_POINT_COUNT) > 0) {
                throw new DecodeException(pat + ": SampleCount " + Long.toUnsignedString(count)
                        + " is not a whole number of samples in 0.." + DecodeLimits.MAX_POINT_COUNT);
            }
            Double min = null;
            Double max = null;
            Map<String, Double> statistics = new TreeMap<>();
            for (SummaryDataPoint.ValueAtQuantile q : p.getQuantileValuesList()) {
                double quantile = q.getQuantile();
                if (quantile == 0) {
                    min = q.getValue();
                } else if (quantile == 1) {
                    max = q.getValue();
                } else if (quantile > 0 && quantile < 1) {
                    statistics.put(
                            "p"
                                    + BigDecimal.valueOf(quantile)
                                            .movePointRight(2)
                                            .stripTrailingZeros()
                                            .toPlainString(),
                            q.getValue());
                } else {
                    throw new DecodeException(pat + ".quantileValues: quantile " + quantile + " is outside 0..1");
                }
            }
            if (min == null || max == null) {
                throw new DecodeException(pat + ".quantileValues: quantiles 0 (Minimum) and 1 (Maximum) are required");
            }
            long nanos = p.getStartTimeUnixNano() != 0 ? p.getStartTimeUnixNano() : p.getTimeUnixNano();
            if (nanos < 0) {
                throw new DecodeException(pat + ": time " + Long.toUnsignedString(nanos) + " ns is past the year 2262");
            }
            add(
                    namespace + "/" + metric,
                    dims,
                    nanos / 1_000_000,
                    unit,
                    count,
                    p.getSum(),
                    min,
                    max,
                    statistics,
                    pat,
                    out);
        }
    }

    /**
     * The CloudWatch unit name of the UCUM unit the OpenTelemetry format writes, so both formats store the same unit;
     * a unit without a CloudWatch name is kept as sent.
     */
    static String cloudWatchUnit(String ucum) {
        return switch (ucum) {
            case "" -> null;
            case "1" -> "None";
            case "{Count}" -> "Count";
            case "{Count}/s" -> "Count/Second";
            case "s" -> "Seconds";
            case "ms" -> "Milliseconds";
            case "us" -> "Microseconds";
            case "%" -> "Percent";
            case "By" -> "Bytes";
            case "kBy", "KBy" -> "Kilobytes";
            case "MBy" -> "Megabytes";
            case "GBy" -> "Gigabytes";
            case "TBy" -> "Terabytes";
            case "bit" -> "Bits";
            case "kbit", "Kbit" -> "Kilobits";
            case "Mbit" -> "Megabits";
            case "Gbit" -> "Gigabits";
            case "Tbit" -> "Terabits";
            case "By/s" -> "Bytes/Second";
            case "kBy/s", "KBy/s" -> "Kilobytes/Second";
            case "MBy/s" -> "Megabytes/Second";
            case "GBy/s" -> "Gigabytes/Second";
            case "TBy/s" -> "Terabytes/Second";
            case "bit/s" -> "Bits/Second";
            case "kbit/s", "Kbit/s" -> "Kilobits/Second";
            case "Mbit/s" -> "Megabits/Second";
            case "Gbit/s" -> "Gigabits/Second";
            case "Tbit/s" -> "Terabits/Second";
            default -> ucum;
        };
    }

    // ---- Both ----------------------------------------------------------------------------------------------------

    private static void add(
            String name,
            Map<String, String> dims,
            long time,
            String unit,
            long n,
            double sum,
            double min,
            double max,
            Map<String, Double> statistics,
            String at,
            DecodeBudget.Datapoints out)
            throws DecodeException {
        if (n == 0) {
            return;
        }
        if (!Double.isFinite(sum) || !Double.isFinite(min) || !Double.isFinite(max)) {
            throw new DecodeException(
                    at + ": Sum " + sum + ", Minimum " + min + " and Maximum " + max + " must be finite");
        }
        if (min > max) {
            throw new DecodeException(at + ": Minimum " + min + " is above Maximum " + max);
        }
        ExactSum exact = new ExactSum();
        exact.add(sum);
        out.add(Datapoint.preAggregated(
                name, dims, time, unit, new Summary(n, exact, min, max, sketch(n, sum, min, max))));
        for (Map.Entry<String, Double> s : statistics.entrySet()) {
            out.add(new Datapoint(name + "." + s.getKey(), dims, time, s.getValue(), unit));
        }
    }

    /** One value at the minimum, one at the maximum, the rest at the mean of what is left (clamped between them). */
    private static DDSketch sketch(long n, double sum, double min, double max) {
        DDSketch s = Sketches.create();
        if (n == 1) {
            s.accept(max);
            return s;
        }
        s.accept(min);
        s.accept(max);
        if (n > 2) {
            double rest = (sum - min - max) / (n - 2);
            s.accept(Double.isFinite(rest) ? Math.min(max, Math.max(min, rest)) : min, n - 2);
        }
        return s;
    }
}
