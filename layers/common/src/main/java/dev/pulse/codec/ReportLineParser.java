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

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.model.Datapoint;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lambda platform {@code REPORT} lines: {@code REPORT RequestId: ... Duration: 12.34 ms Billed Duration: 13 ms
 * Memory Size: 512 MB Max Memory Used: 98 MB [Init Duration: 456.78 ms]}. Each becomes
 * {@code lambda.duration}, {@code lambda.billed_duration}, {@code lambda.memory_size}, {@code lambda.max_memory_used} and, on a cold
 * start, {@code lambda.init_duration}, with dimension {@code function} from the log group.
 */
final class ReportLineParser {

    static final String PREFIX = "REPORT RequestId:";
    /** Marker of a REPORT in Lambda's JSON log format ({@code "type":"platform.report"}). */
    static final String JSON_TYPE = "\"platform.report\"";

    private static final String LAMBDA_LOG_GROUP = "/aws/lambda/";

    private static final Pattern REPORT = Pattern.compile(
            "REPORT RequestId:\\s*\\S+\\s+Duration:\\s*([0-9.]+)\\s*ms\\s+Billed Duration:\\s*([0-9.]+)\\s*ms"
                    + "\\s+Memory Size:\\s*([0-9]+)\\s*MB\\s+Max Memory Used:\\s*([0-9]+)\\s*MB"
                    + "(?:\\s+Init Duration:\\s*([0-9.]+)\\s*ms)?.*",
            Pattern.DOTALL);

    private ReportLineParser() {}

    /** {@code /aws/lambda/checkout-api} -> {@code checkout-api}; any other log group is used whole. */
    static String functionName(String logGroup) {
        return logGroup.startsWith(LAMBDA_LOG_GROUP) ? logGroup.substring(LAMBDA_LOG_GROUP.length()) : logGroup;
    }

    static void parse(String line, long ts, String function, String where, List<Datapoint> out) throws DecodeException {
        Matcher m = REPORT.matcher(line);
        if (!m.matches()) {
            throw new DecodeException(where + ": malformed REPORT line");
        }
        if (function.isEmpty()) {
            throw new DecodeException(where + ": REPORT line without a log group to name the function");
        }
        Map<String, String> dims = Map.of("function", function);
        out.add(new Datapoint("lambda.duration", dims, ts, number(m.group(1), where), "Milliseconds"));
        out.add(new Datapoint("lambda.billed_duration", dims, ts, number(m.group(2), where), "Milliseconds"));
        out.add(new Datapoint("lambda.memory_size", dims, ts, number(m.group(3), where), "Megabytes"));
        out.add(new Datapoint("lambda.max_memory_used", dims, ts, number(m.group(4), where), "Megabytes"));
        if (m.group(5) != null) {
            out.add(new Datapoint("lambda.init_duration", dims, ts, number(m.group(5), where), "Milliseconds"));
        }
    }

    static boolean isJsonReport(JsonNode doc) {
        return "platform.report".equals(doc.path("type").asText(null));
    }

    /**
     * The same metrics from Lambda's JSON log format: {@code {"time":..,"type":"platform.report","record":
     * {"requestId":..,"metrics":{"durationMs":..,"billedDurationMs":..,"memorySizeMB":..,"maxMemoryUsedMB":..,
     * "initDurationMs":..}}}}.
     */
    static void parseJson(JsonNode doc, long ts, String function, String where, List<Datapoint> out)
            throws DecodeException {
        JsonNode m = doc.path("record").path("metrics");
        if (!m.isObject()) {
            throw new DecodeException(where + ": platform.report without record.metrics");
        }
        if (function.isEmpty()) {
            throw new DecodeException(where + ": platform.report without a log group to name the function");
        }
        Map<String, String> dims = Map.of("function", function);
        out.add(new Datapoint("lambda.duration", dims, ts, jsonNumber(m, "durationMs", where), "Milliseconds"));
        out.add(new Datapoint(
                "lambda.billed_duration", dims, ts, jsonNumber(m, "billedDurationMs", where), "Milliseconds"));
        out.add(new Datapoint("lambda.memory_size", dims, ts, jsonNumber(m, "memorySizeMB", where), "Megabytes"));
        out.add(new Datapoint(
                "lambda.max_memory_used", dims, ts, jsonNumber(m, "maxMemoryUsedMB", where), "Megabytes"));
        if (m.has("initDurationMs")) {
            out.add(new Datapoint(
                    "lambda.init_duration", dims, ts, jsonNumber(m, "initDurationMs", where), "Milliseconds"));
        }
    }

    private static double jsonNumber(JsonNode metrics, String field, String where) throws DecodeException {
        JsonNode v = metrics.get(field);
        if (v == null || !v.isNumber()) {
            throw new DecodeException(where + ": platform.report record.metrics." + field + " must be a number");
        }
        return v.asDouble();
    }

    private static double number(String s, String where) throws DecodeException {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new DecodeException(where + ": '" + (s.length() > 40 ? s.substring(0, 40) + "..." : s)
                    + "' is not a number in REPORT line");
        }
    }
}
