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
package dev.pulse.local.template;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A {@link SamTemplate} resolved against parameter values, conditions and the local stack's {@link Bindings}.
 * Nothing is cached: every call resolves from the template again, calling the bindings only for the resources the
 * requested values refer to, so values become available as the local stack creates resources.
 *
 * <p>Resources whose {@code Condition} is false do not exist here: the lists leave them out.
 */
public final class Stack {

    static final String FUNCTION = "AWS::Serverless::Function";
    static final String LAYER = "AWS::Serverless::LayerVersion";
    /** The API SAM creates for HttpApi events that name none. */
    static final String IMPLICIT_HTTP_API = "ServerlessHttpApi";

    private final SamTemplate template;
    private final Map<String, String> parameters;
    private final Intrinsics intrinsics;

    Stack(SamTemplate template, Map<String, String> parameters, Intrinsics intrinsics) {
        this.template = template;
        this.parameters = parameters;
        this.intrinsics = intrinsics;
    }

    /**
     * The resource's Properties (for {@code AWS::Serverless::*} resources with their Globals merged in) with every
     * intrinsic function resolved; a property that resolves to {@code AWS::NoValue} is left out.
     *
     * @throws IllegalArgumentException for an unknown resource, one whose condition is false, or an unresolvable value
     */
    public JsonNode resolvedProperties(String logicalId) {
        requireCreated(logicalId);
        return resolvedObject(template.properties(logicalId));
    }

    /** Logical ids of the resources of {@code type} this stack creates (their Condition, if any, true), in template order. */
    public List<String> resourceIds(String type) {
        return created(type);
    }

    /** Every {@code AWS::Serverless::Function}, in template order. */
    public List<FunctionSpec> functions() {
        return created(FUNCTION).stream().map(this::functionSpec).toList();
    }

    /** One function; IllegalArgumentException listing the template's functions when {@code logicalId} is none of them. */
    public FunctionSpec function(String logicalId) {
        if (!template.resourceIds(FUNCTION).contains(logicalId)) {
            throw new IllegalArgumentException("no function '" + logicalId + "' in " + template.file() + "; functions: "
                    + template.resourceIds(FUNCTION));
        }
        requireCreated(logicalId);
        return functionSpec(logicalId);
    }

    /**
     * The event source mappings: every enabled Kinesis event of every function, in template order.
     *
     * @throws IllegalArgumentException naming the event when it is a DynamoDB stream event (the local stack reads
     *                                  Kinesis streams only) or has {@code FilterCriteria} (the local stack does not
     *                                  evaluate filter patterns): running such a mapping would deliver records unlike
     *                                  the deployed one
     */
    public List<MappingSpec> mappings() {
        List<MappingSpec> mappings = new ArrayList<>();
        events("Kinesis", "DynamoDB").forEach(e -> {
            if (e.type().equals("DynamoDB")) {
                throw new IllegalArgumentException(e.functionId() + ".Events." + e.eventId() + " is a DynamoDB stream"
                        + " event, which the local stack does not run: it reads Kinesis event sources only.");
            }
            MappingSpec mapping = mapping(e.functionId(), e.eventId(), e.properties());
            if (mapping != null) {
                mappings.add(mapping);
            }
        });
        return List.copyOf(mappings);
    }

    /**
     * The schedules: every enabled {@code Schedule} event of every function (an EventBridge rule), in template order.
     *
     * @throws IllegalArgumentException naming the event when its expression is not a valid {@code rate(...)}
     *                                  expression (a {@code cron(...)} schedule does not run locally)
     */
    public List<ScheduleSpec> schedules() {
        List<ScheduleSpec> schedules = new ArrayList<>();
        for (Event e : events("Schedule")) {
            String what = e.functionId() + ".Events." + e.eventId();
            JsonNode properties = resolvedObject(e.properties());
            if (properties.has("Enabled") && !bool(properties.get("Enabled"), what + ".Enabled")) {
                continue; // the rule exists, disabled
            }
            if (properties.has("State")
                    && !Intrinsics.text(properties.get("State"), what + ".State")
                            .equals("ENABLED")) {
                continue; // DISABLED (or ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS, which no schedule uses)
            }
            JsonNode schedule = properties.get("Schedule");
            if (schedule == null) {
                throw new IllegalArgumentException(what + " needs Schedule");
            }
            String expression = Intrinsics.text(schedule, what + ".Schedule").strip();
            JsonNode name = properties.get("Name");
            JsonNode input = properties.get("Input");
            JsonNode retries = resolvedObject(
                            template.properties(e.functionId()).path("EventInvokeConfig"))
                    .get("MaximumRetryAttempts");
            schedules.add(new ScheduleSpec(
                    e.functionId(),
                    e.eventId(),
                    expression,
                    ScheduleSpec.ratePeriod(expression, what + ".Schedule"),
                    name == null
                            ? intrinsics.pseudo().stackName() + "-" + e.functionId() + e.eventId() + "-LOCAL"
                            : Intrinsics.text(name, what + ".Name"),
                    input == null ? null : json(Intrinsics.text(input, what + ".Input"), what + ".Input"),
                    retries == null
                            ? ScheduleSpec.DEFAULT_ASYNC_RETRY_ATTEMPTS
                            : Intrinsics.integer(retries, e.functionId() + ".EventInvokeConfig.MaximumRetryAttempts")));
        }
        return List.copyOf(schedules);
    }

    /** The routes of every HttpApi event of every function, in template order. */
    public List<RouteSpec> routes() {
        return events("HttpApi").stream()
                .map(e -> {
                    JsonNode properties = e.properties();
                    String what = e.functionId() + ".Events." + e.eventId();
                    JsonNode method = optional(properties, "Method");
                    JsonNode path = optional(properties, "Path");
                    // ApiId names a resource of the template: its logical id is wanted, not the bindings' physical id.
                    JsonNode api =
                            properties.has("ApiId") ? intrinsics.logicalIds().resolve(properties.get("ApiId")) : null;
                    return new RouteSpec(
                            e.functionId(),
                            method == null
                                    ? "ANY"
                                    : Intrinsics.text(method, what + ".Method").toUpperCase(Locale.ROOT),
                            path == null ? "$default" : Intrinsics.text(path, what + ".Path"),
                            api == null ? IMPLICIT_HTTP_API : Intrinsics.text(api, what + ".ApiId"));
                })
                .toList();
    }

    /** Every {@code AWS::Serverless::LayerVersion}, in template order. */
    public List<LayerSpec> layers() {
        return created(LAYER).stream()
                .map(id -> {
                    JsonNode properties = template.properties(id);
                    Path content = localPath(optional(properties, "ContentUri"), id + ".ContentUri");
                    if (content == null) {
                        throw new IllegalArgumentException("layer " + id + " has no ContentUri");
                    }
                    return new LayerSpec(id, content, buildMethod(id));
                })
                .toList();
    }

    /** A parameter's value: the override given to {@link SamTemplate#resolve}, or its Default. */
    public String parameter(String name) {
        String value = parameters.get(name);
        if (value == null) {
            throw new IllegalArgumentException("no parameter '" + name + "' in " + template.file() + "; parameters: "
                    + template.parameterDefaults().keySet());
        }
        return value;
    }

    private FunctionSpec functionSpec(String id) {
        JsonNode properties = template.properties(id);
        JsonNode name = optional(properties, "FunctionName");
        JsonNode handler = optional(properties, "Handler");
        JsonNode runtime = optional(properties, "Runtime");
        JsonNode memory = optional(properties, "MemorySize");
        JsonNode timeout = optional(properties, "Timeout");
        return new FunctionSpec(
                id,
                name == null
                        ? intrinsics.pseudo().stackName() + "-" + id + "-LOCAL"
                        : Intrinsics.text(name, id + ".FunctionName"),
                localPath(optional(properties, "CodeUri"), id + ".CodeUri"),
                handler == null ? null : Intrinsics.text(handler, id + ".Handler"),
                runtime == null ? null : Intrinsics.text(runtime, id + ".Runtime"),
                memory == null ? 128 : Intrinsics.integer(memory, id + ".MemorySize"),
                timeout == null ? 3 : Intrinsics.integer(timeout, id + ".Timeout"),
                environment(id, properties),
                layerIds(properties),
                buildMethod(id),
                architecture(id, optional(properties, "Architectures")),
                snapStart(id, properties));
    }

    /** SnapStart on the published versions, and an alias that SAM points the function's events at. */
    private boolean snapStart(String id, JsonNode properties) {
        JsonNode applyOn = resolvedObject(properties.path("SnapStart")).get("ApplyOn");
        boolean published = applyOn != null
                && Intrinsics.text(applyOn, id + ".SnapStart.ApplyOn").equals("PublishedVersions");
        return published && optional(properties, "AutoPublishAlias") != null;
    }

    private Map<String, String> environment(String id, JsonNode properties) {
        Map<String, String> environment = new LinkedHashMap<>();
        JsonNode variables = resolvedObject(properties.path("Environment")).get("Variables");
        if (variables != null) {
            for (var variable : variables.properties()) {
                environment.put(
                        variable.getKey(), Intrinsics.text(variable.getValue(), id + " variable " + variable.getKey()));
            }
        }
        return environment;
    }

    /** {@code Layers} entries that name a layer of the template ({@code !Ref CommonLayer}), as logical ids. */
    private List<String> layerIds(JsonNode properties) {
        JsonNode layers = properties.has("Layers") ? intrinsics.logicalIds().resolve(properties.get("Layers")) : null;
        if (layers == null) {
            return List.of();
        }
        return layers.valueStream()
                .filter(JsonNode::isTextual)
                .map(JsonNode::textValue)
                .filter(ref -> template.hasResource(ref) && template.type(ref).endsWith("::LayerVersion"))
                .toList();
    }

    private static String architecture(String id, JsonNode architectures) {
        if (architectures == null || architectures.isEmpty()) {
            return "x86_64"; // Lambda's default
        }
        if (!architectures.isArray() || architectures.size() != 1) {
            throw new IllegalArgumentException(
                    id + ".Architectures must list exactly one architecture, got " + architectures);
        }
        return Intrinsics.text(architectures.get(0), id + ".Architectures");
    }

    private MappingSpec mapping(String functionId, String eventId, JsonNode raw) {
        String what = functionId + ".Events." + eventId;
        JsonNode properties = resolvedObject(raw);
        if (properties.has("FilterCriteria")) {
            throw new IllegalArgumentException(
                    what + " has FilterCriteria, which the local stack does not apply: it would"
                            + " deliver records the deployed mapping drops. Remove FilterCriteria from the event (or filter in the"
                            + " function); to evaluate Lambda's filter patterns in Java, use AWS's event-ruler library"
                            + " (software.amazon.event.ruler).");
        }
        if (properties.has("Enabled") && !bool(properties.get("Enabled"), what + ".Enabled")) {
            return null; // a disabled mapping exists but never polls
        }
        if (!properties.has("Stream") || !properties.has("StartingPosition")) {
            throw new IllegalArgumentException(what + " needs Stream and StartingPosition");
        }
        int ageSeconds = intOr(properties, "MaximumRecordAgeInSeconds", -1, what);
        JsonNode destination =
                properties.path("DestinationConfig").path("OnFailure").get("Destination");
        return new MappingSpec(
                functionId,
                eventId,
                Intrinsics.text(properties.get("Stream"), what + ".Stream"),
                Intrinsics.text(properties.get("StartingPosition"), what + ".StartingPosition"),
                intOr(properties, "BatchSize", 100, what),
                Duration.ofSeconds(intOr(properties, "MaximumBatchingWindowInSeconds", 0, what)),
                intOr(properties, "ParallelizationFactor", 1, what),
                properties.has("BisectBatchOnFunctionError")
                        && bool(properties.get("BisectBatchOnFunctionError"), what + ".BisectBatchOnFunctionError"),
                intOr(properties, "MaximumRetryAttempts", -1, what),
                ageSeconds == -1 ? null : Duration.ofSeconds(ageSeconds),
                properties
                        .path("FunctionResponseTypes")
                        .valueStream()
                        .anyMatch(t -> t.asText().equals("ReportBatchItemFailures")),
                destination == null
                        ? null
                        : Intrinsics.text(destination, what + ".DestinationConfig.OnFailure.Destination"));
    }

    /** {@code text} when it is one JSON value (EventBridge refuses a target Input that is not). */
    private static String json(String text, String what) {
        try (var parser = new com.fasterxml.jackson.databind.ObjectMapper().createParser(text)) {
            if (parser.readValueAsTree() == null || parser.nextToken() != null) {
                throw new IllegalArgumentException(what + " must be one JSON value, got " + text);
            }
            return text;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(what + " must be JSON: " + e.getMessage(), e);
        }
    }

    /** An event of a function, its Properties unresolved. */
    private record Event(String functionId, String eventId, String type, JsonNode properties) {}

    /** The events of the given types of every created function, in template order. */
    private List<Event> events(String... types) {
        List<Event> events = new ArrayList<>();
        for (String functionId : created(FUNCTION)) {
            for (var event : template.properties(functionId).path("Events").properties()) {
                String type = event.getValue().path("Type").asText();
                if (List.of(types).contains(type)) {
                    events.add(new Event(
                            functionId, event.getKey(), type, event.getValue().path("Properties")));
                }
            }
        }
        return events;
    }

    /** {@code node} resolved; an empty object when absent or {@code AWS::NoValue}. */
    private JsonNode resolvedObject(JsonNode node) {
        JsonNode resolved = node.isMissingNode() ? null : intrinsics.resolve(node);
        return resolved == null ? Intrinsics.NODES.objectNode() : resolved;
    }

    /** {@code node.get(field)} resolved, or null when absent or {@code AWS::NoValue}. */
    private JsonNode optional(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null ? null : intrinsics.resolve(value);
    }

    /** A field of resolved {@code properties} as an int (numbers may be strings after Ref), or the fallback. */
    private static int intOr(JsonNode properties, String field, int fallback, String what) {
        JsonNode value = properties.get(field);
        return value == null ? fallback : Intrinsics.integer(value, what + "." + field);
    }

    private static boolean bool(JsonNode value, String what) {
        String text = Intrinsics.text(value, what);
        if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(what + " must be true or false, got " + value);
        }
        return Boolean.parseBoolean(text);
    }

    /** A local path resolved against the template's directory; null when absent. */
    private Path localPath(JsonNode uri, String what) {
        if (uri == null) {
            return null;
        }
        String text = uri.isTextual() ? uri.textValue() : null;
        if (text == null || text.startsWith("s3://")) {
            throw new IllegalArgumentException(what + " must be a local path for the local stack, got " + uri);
        }
        return template.directory().resolve(text).normalize();
    }

    private String buildMethod(String id) {
        JsonNode method = template.resource(id).path("Metadata").get("BuildMethod");
        return method == null ? null : Intrinsics.text(method, id + ".Metadata.BuildMethod");
    }

    /** Logical ids of the resources of {@code type} whose Condition, if any, is true. */
    private List<String> created(String type) {
        return template.resourceIds(type).stream().filter(this::isCreated).toList();
    }

    private boolean isCreated(String logicalId) {
        JsonNode condition = template.resource(logicalId).get("Condition");
        return condition == null || intrinsics.condition(condition.asText());
    }

    private void requireCreated(String logicalId) {
        if (!isCreated(logicalId)) { // resource() throws for an unknown id, naming the valid ones
            throw new IllegalArgumentException("resource " + logicalId + " does not exist in this stack: its condition "
                    + template.resource(logicalId).get("Condition").asText() + " is false");
        }
    }
}
