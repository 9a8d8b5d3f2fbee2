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

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a CloudFormation YAML template into a Jackson tree in long form: {@code !Ref X} becomes {@code {"Ref": "X"}},
 * {@code !GetAtt A.B} becomes {@code {"Fn::GetAtt": ["A", "B"]}} and any other {@code !Name v} becomes
 * {@code {"Fn::Name": v}} ({@link Intrinsics} refuses the names it does not evaluate).
 *
 * <p>Jackson's YAML parser reports a node's local tag as its type id (without the {@code !}) on the token that
 * starts the node, so a streaming pass is enough. It does not resolve aliases: it reports the anchor's name as a
 * string. Aliases of mappings and sequences are resolved here from the anchors seen; the parser does not report
 * anchors of scalars, so an alias of a scalar is rejected rather than silently read as the anchor's name.
 */
final class CfnYaml {

    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
    private static final YAMLFactory FACTORY = new YAMLFactory();
    /** Standard tags ({@code !!str}) arrive expanded; Jackson has already typed such scalars. */
    private static final String YAML_CORE_TAG = "tag:yaml.org,2002:";

    private final YAMLParser parser;
    private final Map<String, JsonNode> anchors = new HashMap<>();

    private CfnYaml(YAMLParser parser) {
        this.parser = parser;
    }

    /** The single document of {@code file}; syntax errors become IOExceptions naming the file, line and column. */
    static JsonNode read(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
                YAMLParser parser = (YAMLParser) FACTORY.createParser(reader)) {
            if (parser.nextToken() == null) {
                throw new IOException(file + ": empty template");
            }
            JsonNode root = new CfnYaml(parser).value();
            if (parser.nextToken() != null) {
                throw new JsonParseException(parser, "more than one YAML document");
            }
            return root;
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            String where = at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
            throw new IOException(file + where + ": " + e.getOriginalMessage(), e);
        }
    }

    /** Reads the node starting at the current token. */
    private JsonNode value() throws IOException {
        // Tag and anchor belong to the current token: read them before the parser moves on.
        String tag = parser.getTypeId();
        String anchor = parser.getObjectId();
        if (parser.isCurrentAlias()) {
            JsonNode target = anchors.get(parser.getText());
            if (target == null) {
                throw new JsonParseException(
                        parser,
                        "alias *" + parser.getText()
                                + " does not name a mapping or sequence (aliases of scalars are not supported)");
            }
            return target.deepCopy();
        }
        JsonNode node = switch (parser.currentToken()) {
            case START_OBJECT -> object();
            case START_ARRAY -> array();
            case VALUE_STRING -> NODES.textNode(parser.getText());
            case VALUE_NUMBER_INT ->
                switch (parser.getNumberType()) {
                    case INT -> NODES.numberNode(parser.getIntValue());
                    case LONG -> NODES.numberNode(parser.getLongValue());
                    default -> NODES.numberNode(parser.getBigIntegerValue());
                };
            case VALUE_NUMBER_FLOAT -> NODES.numberNode(parser.getDecimalValue());
            case VALUE_TRUE, VALUE_FALSE -> NODES.booleanNode(parser.getBooleanValue());
            case VALUE_NULL -> NODES.nullNode();
            default -> throw new JsonParseException(parser, "unexpected " + parser.currentToken());
        };
        node = longForm(tag, node);
        if (anchor != null) {
            anchors.put(anchor, node);
        }
        return node;
    }

    private ObjectNode object() throws IOException {
        ObjectNode object = NODES.objectNode();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            // CloudFormation rejects duplicate keys; Jackson would silently keep the last one.
            if (object.has(name)) {
                throw new JsonParseException(parser, "duplicate key '" + name + "'");
            }
            parser.nextToken();
            object.set(name, value());
        }
        return object;
    }

    private ArrayNode array() throws IOException {
        ArrayNode array = NODES.arrayNode();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            array.add(value());
        }
        return array;
    }

    private static JsonNode longForm(String tag, JsonNode node) {
        if (tag == null || tag.startsWith(YAML_CORE_TAG)) {
            return node;
        }
        return switch (tag) {
            case "Ref" -> NODES.objectNode().set(tag, node);
            case "GetAtt" ->
                NODES.objectNode().set("Fn::GetAtt", node.isTextual() ? Intrinsics.splitGetAtt(node.asText()) : node);
            default -> NODES.objectNode().set("Fn::" + tag, node);
        };
    }
}
