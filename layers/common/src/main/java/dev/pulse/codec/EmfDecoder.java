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
import java.util.HashMap;
import java.util.Map;

/**
 * CloudWatch Embedded Metric Format documents. Every {@code _aws.CloudWatchMetrics[]} directive yields one
 * datapoint per value (a member may hold a number or an array of numbers) per dimension set, named
 * {@code Namespace/MetricName}, at {@code _aws.Timestamp} (or the log event's time when absent).
 * An empty dimension set, or an empty {@code Dimensions} array, means a series without dimensions.
 *
 * <p>The specification's own limits are enforced before anything is built from them (metrics per directive, keys
 * per dimension set, values per array; {@link DecodeLimits}), plus Pulse's dimension sets per directive, and a
 * {@code Unit} must be one of CloudWatch's unit names: CloudWatch refuses such documents too. A metric with an empty
 * value array makes no datapoint but is counted as one would be ({@link DecodeLimits#MAX_EMF_EMPTY_METRICS_PER_RECORD}),
 * so a record's work is bounded by its datapoints whatever its arrays hold.
 */
final class EmfDecoder {

    /** Adds the datapoints of {@code doc}, a JSON log event with a top-level {@code _aws} member, to {@code out}. */
    void decode(JsonNode doc, long eventTs, String where, DecodeBudget.Datapoints out) throws DecodeException {
        JsonNode aws = doc.get("_aws");
        if (aws == null || !aws.isObject()) {
            throw new DecodeException(where + ": EMF _aws must be an object");
        }
        long ts = eventTs;
        JsonNode tsNode = aws.get("Timestamp");
        if (tsNode != null) {
            if (!tsNode.canConvertToLong()) {
                throw new DecodeException(where + ": EMF _aws.Timestamp must be epoch milliseconds");
            }
            ts = tsNode.asLong();
        }
        JsonNode directives = aws.get("CloudWatchMetrics");
        if (directives == null || !directives.isArray()) {
            throw new DecodeException(where + ": EMF _aws.CloudWatchMetrics must be an array");
        }
        for (int d = 0; d < directives.size(); d++) {
            String at = where + ".CloudWatchMetrics[" + d + "]";
            JsonNode directive = directives.get(d);
            String namespace = requiredText(directive, "Namespace", at);
            JsonNode dimSets = directive.get("Dimensions");
            JsonNode metrics = directive.get("Metrics");
            if (dimSets == null || !dimSets.isArray()) {
                throw new DecodeException(at + ": Dimensions must be an array of dimension sets");
            }
            if (metrics == null || !metrics.isArray()) {
                throw new DecodeException(at + ": Metrics must be an array");
            }
            if (metrics.size() > DecodeLimits.MAX_EMF_METRICS_PER_DIRECTIVE) {
                throw new DecodeException(
                        at + ": " + metrics.size() + " metrics, at most " + DecodeLimits.MAX_EMF_METRICS_PER_DIRECTIVE
                                + " per directive (EMF specification; MAX_EMF_METRICS_PER_DIRECTIVE)");
            }
            if (dimSets.size() > DecodeLimits.MAX_EMF_DIMENSION_SETS) {
                throw new DecodeException(at + ": " + dimSets.size() + " dimension sets, at most "
                        + DecodeLimits.MAX_EMF_DIMENSION_SETS + " per directive (MAX_EMF_DIMENSION_SETS)");
            }
            // Every metric's value array is checked before any datapoint of the directive is made.
            for (int m = 0; m < metrics.size(); m++) {
                JsonNode metric = metrics.get(m);
                JsonNode nameNode = metric == null ? null : metric.get("Name");
                JsonNode value = nameNode != null && nameNode.isTextual() ? doc.get(nameNode.asText()) : null;
                if (value != null && value.isArray() && value.size() > DecodeLimits.MAX_EMF_VALUES_PER_METRIC) {
                    throw new DecodeException(at + ".Metrics[" + m + "] " + nameNode.asText() + ": " + value.size()
                            + " values, at most " + DecodeLimits.MAX_EMF_VALUES_PER_METRIC
                            + " per metric (EMF specification; MAX_EMF_VALUES_PER_METRIC)");
                }
            }
            int sets = Math.max(1, dimSets.size());
            for (int s = 0; s < sets; s++) {
                Map<String, String> dims =
                        dimSets.isEmpty() ? Map.of() : dimensions(doc, dimSets.get(s), at + ".Dimensions[" + s + "]");
                for (int m = 0; m < metrics.size(); m++) {
                    JsonNode metric = metrics.get(m);
                    String metricAt = at + ".Metrics[" + m + "]";
                    String name = requiredText(metric, "Name", metricAt);
                    String unit = unit(metric.get("Unit"), metricAt);
                    String series = namespace + "/" + name;
                    JsonNode value = doc.get(name);
                    if (value == null) {
                        throw new DecodeException(metricAt + ": metric " + name + " has no value member");
                    }
                    if (value.isArray()) {
                        if (value.isEmpty()) {
                            out.emptyMetric(metricAt + " " + name); // no datapoint to count, but still a pass
                        }
                        for (int v = 0; v < value.size(); v++) {
                            out.add(new Datapoint(
                                    series,
                                    dims,
                                    ts,
                                    number(value.get(v), metricAt + " " + name + "[" + v + "]"),
                                    unit));
                        }
                    } else {
                        out.add(new Datapoint(series, dims, ts, number(value, metricAt + " " + name), unit));
                    }
                }
            }
        }
    }

    private static Map<String, String> dimensions(JsonNode doc, JsonNode set, String at) throws DecodeException {
        if (!set.isArray()) {
            throw new DecodeException(at + ": a dimension set must be an array of member names");
        }
        if (set.size() > DecodeLimits.MAX_EMF_DIMENSION_KEYS) {
            throw new DecodeException(
                    at + ": " + set.size() + " dimension keys, at most " + DecodeLimits.MAX_EMF_DIMENSION_KEYS
                            + " per dimension set (EMF specification; MAX_EMF_DIMENSION_KEYS)");
        }
        Map<String, String> dims = new HashMap<>(set.size() * 2);
        for (JsonNode keyNode : set) {
            if (!keyNode.isTextual()) {
                throw new DecodeException(at + ": dimension names must be strings");
            }
            String key = keyNode.asText();
            JsonNode value = doc.get(key);
            if (value == null || !value.isTextual()) {
                throw new DecodeException(at + ": dimension " + key + " needs a string member in the document");
            }
            dims.put(key, value.asText());
        }
        return dims;
    }

    /**
     * A metric's {@code Unit}: absent or null is no unit; otherwise one of CloudWatch's unit names, as CloudWatch
     * requires (anything else would be stored in every partial of the series).
     */
    private static String unit(JsonNode unitNode, String at) throws DecodeException {
        if (unitNode == null || unitNode.isNull()) {
            return null;
        }
        if (!unitNode.isTextual() || !DecodeLimits.CLOUDWATCH_UNITS.contains(unitNode.asText())) {
            String shown = unitNode.isTextual() && unitNode.asText().length() > 40
                    ? unitNode.asText().substring(0, 40) + "... ("
                            + unitNode.asText().length() + " characters)"
                    : unitNode.isTextual() ? "\"" + unitNode.asText() + "\"" : "of type " + unitNode.getNodeType();
            throw new DecodeException(at + ": Unit " + shown + " is not a CloudWatch unit name (CLOUDWATCH_UNITS)");
        }
        return unitNode.asText();
    }

    private static String requiredText(JsonNode node, String field, String at) throws DecodeException {
        JsonNode v = node == null ? null : node.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new DecodeException(at + ": " + field + " must be a non-empty string");
        }
        return v.asText();
    }

    private static double number(JsonNode v, String at) throws DecodeException {
        if (!v.isNumber()) {
            throw new DecodeException(at + ": value must be a number");
        }
        return v.asDouble();
    }
}
