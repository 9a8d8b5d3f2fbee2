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
package dev.pulse.query;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.store.codec.PartialItems;
import dev.pulse.store.schema.KeyScheme;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * {@code GET /series}: the series of one metric name ({@code ?name=}), or the metric names starting with a
 * prefix ({@code ?prefix=}), a page at a time ({@code limit}, {@code nextToken}).
 */
public final class CatalogService {

    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    private final DynamoDbAsyncClient client;
    private final String table;

    public CatalogService(DynamoDbAsyncClient client, String table) {
        this.client = client;
        this.table = table;
    }

    public ObjectNode list(Map<String, String> params) throws BadRequestException {
        String name = params.get("name");
        String prefix = params.get("prefix");
        if ((name == null) == (prefix == null)) {
            throw new BadRequestException(
                    name == null ? "MissingField" : "InvalidField",
                    "give exactly one of name or prefix",
                    name == null ? "name" : "prefix");
        }
        if (name != null && (name.isEmpty() || name.length() > 255)) {
            throw new BadRequestException("InvalidField", "name must be 1-255 characters", "name");
        }
        if (prefix != null && prefix.length() > 255) {
            throw new BadRequestException("InvalidField", "prefix must be at most 255 characters", "prefix");
        }
        int limit = limit(params.get("limit"));
        String pk = name != null ? KeyScheme.catalogPk(name) : KeyScheme.NAMES_PK;
        Map<String, AttributeValue> start = startKey(params.get("nextToken"), pk, prefix);
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":pk", AttributeValue.fromS(pk));
        String condition = "pk = :pk";
        if (prefix != null && !prefix.isEmpty()) {
            condition += " AND begins_with(sk, :prefix)";
            values.put(":prefix", AttributeValue.fromS(prefix));
        }
        String keyCondition = condition;
        QueryResponse resp;
        try {
            resp = client.query(b -> b.tableName(table)
                            .keyConditionExpression(keyCondition)
                            .expressionAttributeValues(values)
                            .limit(limit)
                            .exclusiveStartKey(start))
                    .join();
        } catch (java.util.concurrent.CompletionException e) {
            if (start != null
                    && e.getCause() instanceof software.amazon.awssdk.services.dynamodb.model.DynamoDbException d
                    && d.statusCode() == 400) {
                throw new BadRequestException("InvalidField", "nextToken does not belong to this listing", "nextToken");
            }
            throw e;
        }

        ObjectNode out = JsonNodeFactory.instance.objectNode();
        ArrayNode items = out.putArray(name != null ? "series" : "names");
        for (Map<String, AttributeValue> item : resp.items()) {
            if (name != null) {
                ObjectNode s = items.addObject();
                s.put("key", item.get(KeyScheme.SK).s());
                s.put("name", item.get(PartialItems.NAME).s());
                ObjectNode dims = s.putObject("dims");
                AttributeValue d = item.get(PartialItems.DIMS);
                if (d != null && d.hasM()) {
                    d.m().entrySet().stream()
                            .sorted(Map.Entry.comparingByKey())
                            .forEach(e -> dims.put(e.getKey(), e.getValue().s()));
                }
                putKind(s, item);
            } else {
                items.add(item.get(KeyScheme.SK).s());
                AttributeValue kind = item.get(PartialItems.KIND);
                if (kind != null && kind.s() != null) {
                    (out.has("kinds") ? (ObjectNode) out.get("kinds") : out.putObject("kinds"))
                            .put(item.get(KeyScheme.SK).s(), kind.s());
                }
            }
        }
        if (resp.hasLastEvaluatedKey() && !resp.lastEvaluatedKey().isEmpty()) {
            out.put(
                    "nextToken",
                    Base64.getUrlEncoder()
                            .withoutPadding()
                            .encodeToString(resp.lastEvaluatedKey()
                                    .get(KeyScheme.SK)
                                    .s()
                                    .getBytes(StandardCharsets.UTF_8)));
        } else {
            out.putNull("nextToken");
        }
        return out;
    }

    /**
     * The OTLP metric type of a series ({@code type|temporality|bounds|unit}, see {@code MetricKind}) where the producer
     * sent one: the Prometheus API answers such series also under their OpenTelemetry-compatible names.
     */
    private static void putKind(ObjectNode series, Map<String, AttributeValue> item) {
        AttributeValue kind = item.get(PartialItems.KIND);
        if (kind != null && kind.s() != null) {
            series.put("kind", kind.s());
        }
    }

    private static int limit(String s) throws BadRequestException {
        if (s == null) {
            return DEFAULT_LIMIT;
        }
        // ASCII digits only, at most four: Integer.parseInt would also take other scripts' digits ("１２３").
        if (!s.isEmpty() && s.length() <= 4 && s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            int n = Integer.parseInt(s);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        }
        throw new BadRequestException("InvalidField", "limit must be an integer from 1 to " + MAX_LIMIT, "limit");
    }

    private static Map<String, AttributeValue> startKey(String token, String pk, String prefix)
            throws BadRequestException {
        if (token == null) {
            return null;
        }
        String sk;
        try {
            if (token.length() > 8 * 1024) {
                throw new IllegalArgumentException("longer than any key"); // a 1,024-character key in base64 is shorter
            }
            sk = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            sk = "";
        }
        // The token is the last key of the previous page: it must be a key this listing can contain.
        if (sk.isEmpty() || sk.length() > 1024 || (prefix != null && !sk.startsWith(prefix))) {
            throw new BadRequestException("InvalidField", "nextToken does not belong to this listing", "nextToken");
        }
        return Map.of(KeyScheme.PK, AttributeValue.fromS(pk), KeyScheme.SK, AttributeValue.fromS(sk));
    }
}
