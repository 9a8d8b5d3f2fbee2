package dev.pulse.codec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.model.Datapoint;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CloudWatch Embedded Metric Format documents. Every {@code _aws.CloudWatchMetrics[]} directive yields one
 * datapoint per value (a member may hold a number or an array of numbers) per dimension set, named
 * {@code Namespace/MetricName}, at {@code _aws.Timestamp} (or the log event's time when absent).
 * An empty dimension set, or an empty {@code Dimensions} array, means a series without dimensions.
 */
final class EmfDecoder {

    /** Adds the datapoints of {@code doc}, a JSON log event with a top-level {@code _aws} member, to {@code out}. */
    void decode(JsonNode doc, long eventTs, String where, List<Datapoint> out) throws DecodeException {
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
            int sets = Math.max(1, dimSets.size());
            for (int s = 0; s < sets; s++) {
                Map<String, String> dims = dimSets.isEmpty() ? Map.of() : dimensions(doc, dimSets.get(s), at + ".Dimensions[" + s + "]");
                for (int m = 0; m < metrics.size(); m++) {
                    JsonNode metric = metrics.get(m);
                    String metricAt = at + ".Metrics[" + m + "]";
                    String name = requiredText(metric, "Name", metricAt);
                    JsonNode unitNode = metric.get("Unit");
                    String unit = unitNode != null && unitNode.isTextual() ? unitNode.asText() : null;
                    String series = namespace + "/" + name;
                    JsonNode value = doc.get(name);
                    if (value == null) {
                        throw new DecodeException(metricAt + ": metric " + name + " has no value member");
                    }
                    if (value.isArray()) {
                        for (int v = 0; v < value.size(); v++) {
                            out.add(new Datapoint(series, dims, ts, number(value.get(v), metricAt + " " + name + "[" + v + "]"), unit));
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
