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
package dev.pulse.rules.store;

import dev.pulse.concurrent.Bounded;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.retry.Jitter;
import dev.pulse.rules.Alert;
import dev.pulse.rules.AlertState;
import dev.pulse.rules.AlertStore;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.AsyncRetry;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The rules evaluator's state in the Pulse table, every item under the partition key prefix {@value #PREFIX} (so the
 * evaluator's role may write nothing else: an IAM {@code dynamodb:LeadingKeys} condition):
 * <ul>
 *   <li>a rule's alerts: PK {@code A#<file>;<group>;<index>;<alertname>}, SK {@value #RULE_SK}; {@code v} the
 *       version (1 on the first write, +1 on each), {@code at} the aligned time of the evaluation that wrote it (epoch
 *       ms), {@code w} the writing attempt's random token, {@code al} the alerts by fingerprint (each a map: {@code l}
 *       labels, {@code n} annotations, {@code s} state, {@code x} last value as Java prints a double, {@code ac}
 *       active since, {@code fi} fired at, {@code re} resolved at, {@code kf} absent from the result since, 0 for
 *       none);</li>
 *   <li>a group's cursor: PK {@code A#<file>;<group>}, SK {@value #GROUP_SK}; {@code at} the last aligned time the
 *       group was evaluated at, which only grows.</li>
 * </ul>
 * A rule's item is replaced by one PutItem conditioned on the version read and on {@code at} being older: of two
 * evaluations of one timestamp, one wins and the other gets {@code false}. A write whose response was lost is
 * repeated by the store's retry ({@link AsyncRetry}, the same backoff and deadline as every other write); the
 * repeat then fails its condition against its own first write, which the token in {@code w} tells apart from
 * another evaluator's.
 */
public final class DynamoDbAlertStore implements AlertStore {

    public static final String PREFIX = "A#";
    public static final String RULE_SK = "rule";
    public static final String GROUP_SK = "group";
    /** DynamoDB's item limit is 400 KB; what is left is room for the keys and attribute names' overhead. */
    static final int MAX_STATE_BYTES = 380_000;

    private final DynamoDbAsyncClient client;
    private final String table;
    private final Backoff backoff;
    private final Supplier<Deadline> deadline;

    /**
     * @param deadline each call's deadline (the invocation's, so retries stop while there is time to report)
     */
    public DynamoDbAlertStore(DynamoDbAsyncClient client, String table, Backoff backoff, Supplier<Deadline> deadline) {
        this.client = client;
        this.table = table;
        this.backoff = backoff;
        this.deadline = deadline;
    }

    public static Map<String, AttributeValue> ruleKey(String ruleKey) {
        return Map.of(
                KeyScheme.PK, AttributeValue.fromS(PREFIX + ruleKey), KeyScheme.SK, AttributeValue.fromS(RULE_SK));
    }

    public static Map<String, AttributeValue> groupKey(String groupKey) {
        return Map.of(
                KeyScheme.PK, AttributeValue.fromS(PREFIX + groupKey), KeyScheme.SK, AttributeValue.fromS(GROUP_SK));
    }

    @Override
    public Snapshot load(String ruleKey) {
        Map<String, AttributeValue> item = get(ruleKey(ruleKey), "read the alert state of rule " + ruleKey);
        if (item.isEmpty()) {
            return new Snapshot(Map.of(), 0, 0);
        }
        return new Snapshot(decodeAlerts(item.get("al")), number(item, "v"), number(item, "at"));
    }

    @Override
    public boolean replace(String ruleKey, long expectedVersion, long evaluatedAt, Map<String, Alert> alerts) {
        String token = Long.toHexString(Jitter.nextLong()) + Long.toHexString(Jitter.nextLong());
        Map<String, AttributeValue> item = new HashMap<>(ruleKey(ruleKey));
        AttributeValue encoded = encodeAlerts(alerts);
        int bytes = size(encoded);
        if (bytes > MAX_STATE_BYTES) {
            throw new StateTooLargeException("the state of rule " + ruleKey + " (" + alerts.size() + " alerts) takes "
                    + bytes + " bytes, more than the " + MAX_STATE_BYTES
                    + " a table item holds: set the group's limit"
                    + " or make the expression return fewer series");
        }
        item.put("v", AttributeValue.fromN(Long.toString(expectedVersion + 1)));
        item.put("at", AttributeValue.fromN(Long.toString(evaluatedAt)));
        item.put("w", AttributeValue.fromS(token));
        item.put("al", encoded);
        PutItemRequest.Builder put = PutItemRequest.builder().tableName(table).item(item);
        if (expectedVersion == 0) {
            put.conditionExpression("attribute_not_exists(#pk)").expressionAttributeNames(Map.of("#pk", KeyScheme.PK));
        } else {
            put.conditionExpression("#v = :v AND #at < :at")
                    .expressionAttributeNames(Map.of("#v", "v", "#at", "at"))
                    .expressionAttributeValues(Map.of(
                            ":v",
                            AttributeValue.fromN(Long.toString(expectedVersion)),
                            ":at",
                            AttributeValue.fromN(Long.toString(evaluatedAt))));
        }
        Deadline d = deadline.get();
        try {
            AsyncRetry.call(
                            () -> client.putItem(put.overrideConfiguration(o -> o.apiCallTimeout(d.callTimeout()))
                                    .build()),
                            backoff,
                            d)
                    .join();
            return true;
        } catch (CompletionException e) {
            Throwable cause = Bounded.unwrap(e);
            if (!(cause instanceof ConditionalCheckFailedException)) {
                throw new AlertStoreException(
                        "could not write the alert state of rule " + ruleKey + ": " + cause, cause);
            }
        }
        // Lost, or won by this very call on an attempt whose answer did not arrive: only then is the token ours.
        Map<String, AttributeValue> now = get(ruleKey(ruleKey), "read back the alert state of rule " + ruleKey);
        AttributeValue w = now.get("w");
        return w != null && token.equals(w.s());
    }

    @Override
    public long groupEvaluatedAt(String groupKey) {
        Map<String, AttributeValue> item = get(groupKey(groupKey), "read the evaluation time of group " + groupKey);
        return item.isEmpty() ? 0 : number(item, "at");
    }

    @Override
    public void groupEvaluated(String groupKey, long evaluatedAt) {
        Deadline d = deadline.get();
        try {
            AsyncRetry.call(
                            () -> client.updateItem(UpdateItemRequest.builder()
                                    .tableName(table)
                                    .key(groupKey(groupKey))
                                    .updateExpression("SET #at = :at")
                                    .conditionExpression("attribute_not_exists(#at) OR #at < :at")
                                    .expressionAttributeNames(Map.of("#at", "at"))
                                    .expressionAttributeValues(
                                            Map.of(":at", AttributeValue.fromN(Long.toString(evaluatedAt))))
                                    .overrideConfiguration(o -> o.apiCallTimeout(d.callTimeout()))
                                    .build()),
                            backoff,
                            d)
                    .join();
        } catch (CompletionException e) {
            Throwable cause = Bounded.unwrap(e);
            if (!(cause instanceof ConditionalCheckFailedException)) {
                throw new AlertStoreException(
                        "could not record the evaluation time of group " + groupKey + ": " + cause, cause);
            }
            // Already at or past this time: another evaluation got there first, which is what the cursor says.
        }
    }

    private Map<String, AttributeValue> get(Map<String, AttributeValue> key, String what) {
        Deadline d = deadline.get();
        try {
            CompletableFuture<GetItemResponse> r = AsyncRetry.call(
                    () -> client.getItem(GetItemRequest.builder()
                            .tableName(table)
                            .key(key)
                            .consistentRead(true)
                            .overrideConfiguration(o -> o.apiCallTimeout(d.callTimeout()))
                            .build()),
                    backoff,
                    d);
            GetItemResponse response = r.join();
            return response.hasItem() ? response.item() : Map.of();
        } catch (CompletionException e) {
            Throwable cause = Bounded.unwrap(e);
            throw new AlertStoreException("could not " + what + ": " + cause, cause);
        }
    }

    private static long number(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null ? 0 : Long.parseLong(v.n());
    }

    static AttributeValue encodeAlerts(Map<String, Alert> alerts) {
        Map<String, AttributeValue> out = new HashMap<>();
        alerts.forEach((fp, a) -> {
            Map<String, AttributeValue> m = new HashMap<>();
            m.put("l", strings(a.labels()));
            m.put("n", strings(a.annotations()));
            m.put("s", AttributeValue.fromS(a.state().wireName()));
            m.put("x", AttributeValue.fromS(Double.toString(a.value())));
            m.put("ac", AttributeValue.fromN(Long.toString(a.activeAt())));
            m.put("fi", AttributeValue.fromN(Long.toString(a.firedAt())));
            m.put("re", AttributeValue.fromN(Long.toString(a.resolvedAt())));
            m.put("kf", AttributeValue.fromN(Long.toString(a.keepFiringSince())));
            out.put(fp, AttributeValue.fromM(m));
        });
        return AttributeValue.fromM(out);
    }

    static Map<String, Alert> decodeAlerts(AttributeValue al) {
        if (al == null || !al.hasM()) {
            return Map.of();
        }
        Map<String, Alert> out = new HashMap<>();
        al.m().forEach((fp, v) -> {
            Map<String, AttributeValue> m = v.m();
            out.put(
                    fp,
                    new Alert(
                            sorted(m.get("l")),
                            sorted(m.get("n")),
                            AlertState.valueOf(m.get("s").s().toUpperCase(java.util.Locale.ROOT)),
                            Double.parseDouble(m.get("x").s()),
                            number(m, "ac"),
                            number(m, "fi"),
                            number(m, "re"),
                            number(m, "kf")));
        });
        return Map.copyOf(out);
    }

    private static AttributeValue strings(Map<String, String> map) {
        Map<String, AttributeValue> m = new HashMap<>();
        map.forEach((k, v) -> m.put(k, AttributeValue.fromS(v)));
        return AttributeValue.fromM(m);
    }

    private static SortedMap<String, String> sorted(AttributeValue v) {
        SortedMap<String, String> out = new TreeMap<>();
        if (v != null && v.hasM()) {
            v.m().forEach((k, s) -> out.put(k, s.s()));
        }
        return Collections.unmodifiableSortedMap(out);
    }

    /** DynamoDB's size of a value: names and strings in UTF-8 bytes, numbers about their digits, and 3 bytes a map. */
    private static int size(AttributeValue v) {
        if (v.s() != null) {
            return v.s().getBytes(StandardCharsets.UTF_8).length;
        }
        if (v.n() != null) {
            return v.n().length();
        }
        int n = 3;
        if (v.hasM()) {
            for (Map.Entry<String, AttributeValue> e : v.m().entrySet()) {
                n += 1 + e.getKey().getBytes(StandardCharsets.UTF_8).length + size(e.getValue());
            }
        }
        return n;
    }
}
