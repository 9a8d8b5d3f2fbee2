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
package dev.pulse.store.write;

import dev.pulse.concurrent.Bounded;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.read.LatestPartials;
import dev.pulse.store.schema.KeyScheme;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The committed position of each shard, and the fencing generation of the attempts that write past it. One
 * small item per shard ({@code W#<stream>#<shard>}, SK {@code w}):
 * <ul>
 *   <li>{@code w}: the sequence number of the last record of the last committed batch. Every record at or
 *       below it is stored (or was poison and went to the DLQ), so a redelivered record at or below it is
 *       skipped, whatever the batch boundaries of the redelivery.</li>
 *   <li>{@code g}: incremented by every attempt when it starts ({@link #claim}). The attempt writes its partials
 *       under that generation (the last part of their sort key), and readers take, of the partials with the same
 *       minute, shard and first record, only the newest generation ({@link LatestPartials}); it commits only if
 *       {@code g} is still its own. So an older attempt whose writes land late, or which still runs, cannot change
 *       what a newer attempt stored, and fails its commit.</li>
 *   <li>{@code n}: attempts since the last commit, counted by the claim and cleared by the commit. Every attempt
 *       after a commit starts at the same record (the one after {@code w}: Lambda retries, bisects and resumes from
 *       the first record the committed position does not cover), so {@code n} counts the attempts at that record.
 *       An attempt that failed for a reason that says nothing about its records (throttling, an outage) takes its
 *       count back ({@link #release}); one that failed on a record records why ({@link #recordFailure}); a crash
 *       or timeout leaves the count up and no reason. {@code IngestService} sets the record aside once {@code n}
 *       passes its bound (docs/design.md, "A record that fails every attempt").</li>
 *   <li>{@code f}, {@code fg}: the last recorded failure and the generation of the attempt that recorded it.</li>
 *   <li>{@code a}: attempts since the last commit that processed that record alone ({@link #countAlone});
 *       {@code d}: set once such an attempt decoded it ({@link #markDecoded}); {@code r}: that record. The attempt
 *       that follows a discard by Lambda (finite retries) starts at another record: {@code r} tells.</li>
 * </ul>
 * docs/design.md, "Exactly once", has the argument and what it costs (two single-item writes per batch).
 *
 * <p>Records that PushFunction put ({@link #isPushed}) carry one more guarantee: a client that sent a request again
 * (no answer in time, or a 503 after some of its records went in) has its records put again, the same bytes under new
 * sequence numbers. {@link #claimContent} names the first record with a given content its owner
 * ({@code R#<digest>}, SK {@code r}); a later record with that content is a resend and is not stored.
 */
public final class ShardCheckpoints {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ShardCheckpoints.class);

    public static final String COMMITTED = "w";
    public static final String GENERATION = "g";
    public static final String COMMITTED_AT = "at";
    public static final String ATTEMPTS = "n";
    public static final String FAILURE = "f";
    public static final String FAILURE_GENERATION = "fg";
    public static final String ALONE = "a";
    public static final String DECODED = "d";
    public static final String ALONE_RECORD = "r";
    private static final String SK_VALUE = "w";

    /** The partition keys PushFunction puts its records under ({@code push-<n>}). */
    public static final String PUSHED_PARTITION_KEY_PREFIX = "push-";
    /** The partition-key prefix of a pushed record's content claim. */
    public static final String CONTENT_PREFIX = "R#";

    private static final String CONTENT_SK = "r";
    /** The record that owns a content claim: its checkpoint key and sequence number. */
    public static final String OWNER = "o";

    public static final String TTL = "ttl";
    /**
     * How long after its original's arrival a resend may arrive: longer than any push client keeps sending a request
     * again (the OpenTelemetry exporters give up after minutes; Prometheus retries a remote write for as long as its
     * write-ahead log holds the samples, about two hours). A claim lives until the last moment its owner or a resend
     * can still be attempted ({@link #expires}).
     */
    public static final long CONTENT_TTL_SECONDS = 86_400;

    private static final int CONTENT_CONCURRENCY = 16;

    /**
     * Where a shard stands for one attempt.
     *
     * @param key        the shard's checkpoint key ({@link #key})
     * @param committed  the last committed sequence number, or {@code null} before the first commit
     * @param generation the attempt's generation ({@link #claim}), or the current one ({@link #read})
     * @param attempts   attempts since the last commit, this one included ({@link #claim}); 0 from {@link #read}
     * @param lastFailure the reason the last attempt that failed on a record recorded ({@link #recordFailure}), or null
     * @param lastFailureGeneration the generation of the attempt that recorded {@code lastFailure}, or 0
     * @param aloneAttempts attempts since the last commit that processed the first uncommitted record alone
     * @param decodedAlone  true once one of those decoded the record ({@link #markDecoded})
     * @param aloneRecord   the record those attempts processed alone, or null
     */
    public record Position(
            String key,
            String committed,
            long generation,
            long attempts,
            String lastFailure,
            long lastFailureGeneration,
            long aloneAttempts,
            boolean decodedAlone,
            String aloneRecord) {

        public Position(String key, String committed, long generation) {
            this(key, committed, generation, 0, null, 0, 0, false, null);
        }

        /** True when {@code sequence} is at or below the committed position: already stored. */
        public boolean covers(String sequence) {
            return committed != null && compareSequences(sequence, committed) <= 0;
        }
    }

    private final DynamoDbAsyncClient client;
    private final String table;
    private final Backoff backoff;
    private final long recordLifeSeconds;

    /** For callers that attempt records only right after they arrive (no content claims over a stalled shard). */
    public ShardCheckpoints(DynamoDbAsyncClient client, String table, Backoff backoff) {
        this(client, table, backoff, Duration.ZERO);
    }

    /**
     * @param recordLife how long after its arrival a record may still be attempted, live or redriven (ingest: the
     *                   redrive window, longer than the stream's retention); content claims outlive it
     */
    public ShardCheckpoints(DynamoDbAsyncClient client, String table, Backoff backoff, Duration recordLife) {
        this.client = client;
        this.table = table;
        this.backoff = backoff;
        this.recordLifeSeconds = recordLife.toSeconds();
    }

    /** The checkpoint key of a shard of a stream ({@code streamName} may be null for hand-made events). */
    public static String key(String streamName, String shardId) {
        return "W#" + (streamName == null ? "-" : streamName) + "#" + shardId;
    }

    /**
     * The sequence of one user record of a KPL aggregate, {@code <sequence number>.<sub-sequence number>}, or the
     * sequence number itself for a plain record ({@code subSequence} -1). Names the first contributor of a partial
     * and a poison user record; never a committed position, which stays a whole Kinesis record because Lambda
     * cannot resume inside one.
     */
    public static String userRecordSequence(String sequenceNumber, int subSequence) {
        return subSequence < 0 ? sequenceNumber : sequenceNumber + "." + subSequence;
    }

    /**
     * Compares two Kinesis sequence numbers (decimal strings of up to 128 digits, no leading zeros) by value.
     */
    public static int compareSequences(String a, String b) {
        if (a.length() != b.length()) {
            return Integer.compare(a.length(), b.length());
        }
        return a.compareTo(b);
    }

    /**
     * Starts an attempt: takes the next generation, counts the attempt and reads the committed position in one
     * UpdateItem (strongly consistent by nature), creating the item on a shard's first batch.
     */
    public CompletableFuture<Position> claim(String key, Deadline deadline) {
        return AsyncRetry.call(
                        () -> client.updateItem(UpdateItemRequest.builder()
                                .tableName(table)
                                .key(key(key))
                                .updateExpression("ADD #g :one, #n :one")
                                .expressionAttributeNames(Map.of("#g", GENERATION, "#n", ATTEMPTS))
                                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))
                                .returnValues(ReturnValue.ALL_NEW)
                                .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                                .build()),
                        backoff,
                        deadline)
                .thenApply(r -> position(key, r.attributes()))
                .exceptionally(e -> {
                    throw storeFailure("could not claim shard " + key, e);
                });
    }

    /** The committed position and current generation, without taking one (the redrive writes below it). */
    public CompletableFuture<Position> read(String key, Deadline deadline) {
        return AsyncRetry.call(
                        () -> client.getItem(GetItemRequest.builder()
                                .tableName(table)
                                .key(key(key))
                                .consistentRead(true)
                                .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                                .build()),
                        backoff,
                        deadline)
                .thenApply(r -> position(key, r.hasItem() ? r.item() : Map.of()))
                .exceptionally(e -> {
                    throw storeFailure("could not read the checkpoint of shard " + key, e);
                });
    }

    /**
     * Commits {@code lastSequence} as the shard's position, on condition that no newer attempt has claimed the
     * shard since {@code position} was claimed. Completes exceptionally with {@link SupersededException} when
     * one has, with {@link StoreException} when DynamoDB could not be reached in time. A repeat of a commit
     * whose response was lost succeeds again: the generation is still the attempt's own.
     */
    public CompletableFuture<Void> commit(Position position, String lastSequence, long now, Deadline deadline) {
        return AsyncRetry.call(
                        () -> client.updateItem(UpdateItemRequest.builder()
                                .tableName(table)
                                .key(key(position.key()))
                                // The next record starts with a clean count: the attempts at this one are over.
                                .updateExpression("SET #w = :w, #at = :at REMOVE #n, #f, #fg, #a, #d, #r")
                                .conditionExpression("#g = :g")
                                .expressionAttributeNames(Map.of(
                                        "#w",
                                        COMMITTED,
                                        "#at",
                                        COMMITTED_AT,
                                        "#g",
                                        GENERATION,
                                        "#n",
                                        ATTEMPTS,
                                        "#f",
                                        FAILURE,
                                        "#fg",
                                        FAILURE_GENERATION,
                                        "#a",
                                        ALONE,
                                        "#d",
                                        DECODED,
                                        "#r",
                                        ALONE_RECORD))
                                .expressionAttributeValues(Map.of(
                                        ":w",
                                        AttributeValue.fromS(lastSequence),
                                        ":at",
                                        AttributeValue.fromN(Long.toString(now)),
                                        ":g",
                                        AttributeValue.fromN(Long.toString(position.generation()))))
                                .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                                .build()),
                        backoff,
                        deadline)
                .<Void>thenApply(r -> null)
                .exceptionally(e -> {
                    Throwable cause = Bounded.unwrap(e);
                    if (cause instanceof ConditionalCheckFailedException) {
                        throw new CompletionException(new SupersededException("shard " + position.key()
                                + " was claimed by a newer attempt after generation " + position.generation()
                                + "; this attempt must not commit"));
                    }
                    throw storeFailure("could not commit shard " + position.key(), e);
                });
    }

    /**
     * Takes back the count of an attempt that failed for a reason that says nothing about its records (throttling,
     * an outage, a deadline; or it had no new record to store), so such failures never set a record aside. Only
     * while no newer attempt has claimed the shard (the count is then surely this attempt's own) and only down to 0.
     * Best effort: completes normally whatever happens, since an attempt left counted only brings the record's
     * setting aside one attempt closer (and the reason then names the failure it recorded, or a crash).
     */
    public CompletableFuture<Void> release(Position position, boolean alone, Deadline deadline) {
        return bestEffort(AsyncRetry.call(
                () -> client.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(position.key()))
                        .updateExpression(alone ? "ADD #n :minus, #a :minus" : "ADD #n :minus")
                        .conditionExpression(alone ? "#g = :g AND #n > :zero AND #a > :zero" : "#g = :g AND #n > :zero")
                        .expressionAttributeNames(
                                alone
                                        ? Map.of("#n", ATTEMPTS, "#g", GENERATION, "#a", ALONE)
                                        : Map.of("#n", ATTEMPTS, "#g", GENERATION))
                        .expressionAttributeValues(Map.of(
                                ":minus",
                                AttributeValue.fromN("-1"),
                                ":zero",
                                AttributeValue.fromN("0"),
                                ":g",
                                AttributeValue.fromN(Long.toString(position.generation()))))
                        .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                        .build()),
                backoff,
                deadline));
    }

    /**
     * Takes back the count of a claim whose answer never came (a timeout, a dropped connection): it may or may not
     * have counted. Without a generation to condition on, only down to 0: if the claim did not land, this takes back
     * an earlier attempt's count instead, which only delays a setting aside by one attempt, where keeping a count that
     * says nothing about the record could set it aside early. Best effort, like {@link #release}.
     */
    public CompletableFuture<Void> releaseUnanswered(String key, Deadline deadline) {
        return bestEffort(AsyncRetry.call(
                () -> client.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(key))
                        .updateExpression("ADD #n :minus")
                        .conditionExpression("#n > :zero")
                        .expressionAttributeNames(Map.of("#n", ATTEMPTS))
                        .expressionAttributeValues(
                                Map.of(":minus", AttributeValue.fromN("-1"), ":zero", AttributeValue.fromN("0")))
                        .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                        .build()),
                backoff,
                deadline));
    }

    /**
     * Records why this attempt failed on its first record, for the reason of the record's DLQ message if it is set
     * aside ({@code failed N attempts: <reason>}). Only while no newer attempt has claimed the shard; best effort.
     */
    public CompletableFuture<Void> recordFailure(Position position, String reason, Deadline deadline) {
        return bestEffort(AsyncRetry.call(
                () -> client.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(position.key()))
                        .updateExpression("SET #f = :f, #fg = :g")
                        .conditionExpression("#g = :g")
                        .expressionAttributeNames(Map.of("#f", FAILURE, "#fg", FAILURE_GENERATION, "#g", GENERATION))
                        .expressionAttributeValues(Map.of(
                                ":f",
                                AttributeValue.fromS(reason),
                                ":g",
                                AttributeValue.fromN(Long.toString(position.generation()))))
                        .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                        .build()),
                backoff,
                deadline));
    }

    /**
     * Counts an attempt that processes the first uncommitted record alone, before it does: a crash then leaves the
     * count up. Fails with {@link SupersededException} once a newer attempt has claimed the shard.
     */
    public CompletableFuture<Void> countAlone(Position position, String record, Deadline deadline) {
        if (record.equals(position.aloneRecord())) {
            return conditional(
                    position,
                    "ADD #a :one",
                    Map.of("#a", ALONE, "#g", GENERATION),
                    Map.of(":one", AttributeValue.fromN("1")),
                    "count an attempt",
                    deadline);
        }
        // Counts of another record (one Lambda discarded) say nothing about this one: start again.
        return conditional(
                position,
                "SET #a = :one, #r = :r REMOVE #d",
                Map.of("#a", ALONE, "#g", GENERATION, "#r", ALONE_RECORD, "#d", DECODED),
                Map.of(":one", AttributeValue.fromN("1"), ":r", AttributeValue.fromS(record)),
                "count an attempt",
                deadline);
    }

    /**
     * Notes that an attempt processing the first uncommitted record alone has decoded it: an attempt that sets the
     * record aside then knows earlier attempts may have written partials named by it, and that decoding it (to
     * name them) did not kill an attempt. Fails with {@link SupersededException} once a newer attempt has claimed.
     */
    public CompletableFuture<Void> markDecoded(Position position, Deadline deadline) {
        return conditional(
                position,
                "SET #d = :true",
                Map.of("#d", DECODED, "#g", GENERATION),
                Map.of(":true", AttributeValue.fromBool(true)),
                "mark the record decoded",
                deadline);
    }

    private CompletableFuture<Void> conditional(
            Position position,
            String update,
            Map<String, String> names,
            Map<String, AttributeValue> values,
            String what,
            Deadline deadline) {
        Map<String, AttributeValue> all = new java.util.HashMap<>(values);
        all.put(":g", AttributeValue.fromN(Long.toString(position.generation())));
        return AsyncRetry.call(
                        () -> client.updateItem(UpdateItemRequest.builder()
                                .tableName(table)
                                .key(key(position.key()))
                                .updateExpression(update)
                                .conditionExpression("#g = :g")
                                .expressionAttributeNames(names)
                                .expressionAttributeValues(all)
                                .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                                .build()),
                        backoff,
                        deadline)
                .<Void>thenApply(r -> null)
                .exceptionally(e -> {
                    if (Bounded.unwrap(e) instanceof ConditionalCheckFailedException) {
                        throw new CompletionException(new SupersededException("shard " + position.key()
                                + " was claimed by a newer attempt after generation " + position.generation()));
                    }
                    throw storeFailure("could not " + what + " on shard " + position.key(), e);
                });
    }

    private static CompletableFuture<Void> bestEffort(CompletableFuture<?> call) {
        return call.handle((r, e) -> {
            Throwable cause = e == null ? null : Bounded.unwrap(e);
            if (cause != null && !(cause instanceof ConditionalCheckFailedException)) {
                // Only after a failed attempt; the count it leaves brings a setting aside one attempt closer.
                LOG.warn("shard checkpoint not updated after a failed attempt: {}", cause.toString());
            }
            return null;
        });
    }

    private static Position position(String key, Map<String, AttributeValue> item) {
        AttributeValue w = item.get(COMMITTED);
        AttributeValue g = item.get(GENERATION);
        AttributeValue n = item.get(ATTEMPTS);
        AttributeValue f = item.get(FAILURE);
        AttributeValue fg = item.get(FAILURE_GENERATION);
        AttributeValue a = item.get(ALONE);
        AttributeValue d = item.get(DECODED);
        return new Position(
                key,
                w == null ? null : w.s(),
                g == null ? 0 : Long.parseLong(g.n()),
                n == null ? 0 : Long.parseLong(n.n()),
                f == null ? null : f.s(),
                fg == null ? 0 : Long.parseLong(fg.n()),
                a == null ? 0 : Long.parseLong(a.n()),
                d != null && Boolean.TRUE.equals(d.bool()),
                item.get(ALONE_RECORD) == null ? null : item.get(ALONE_RECORD).s());
    }

    private static Map<String, AttributeValue> key(String key) {
        return Map.of(KeyScheme.PK, AttributeValue.fromS(key), KeyScheme.SK, AttributeValue.fromS(SK_VALUE));
    }

    /** True for a record PushFunction put: its content may arrive again, under another sequence number. */
    public static boolean isPushed(String partitionKey) {
        return partitionKey != null && partitionKey.startsWith(PUSHED_PARTITION_KEY_PREFIX);
    }

    /**
     * A record whose content to claim: {@code owner} names it uniquely (checkpoint key and sequence number);
     * {@code arrivalMillis} is when the stream took it.
     */
    public record Content(String owner, ByteBuffer data, long arrivalMillis) {}

    /**
     * Claims each record's content for the record, unless another record owns it: one conditional PutItem each, at
     * most {@value #CONTENT_CONCURRENCY} at once, retried as every write is. A record meeting its own claim again (its
     * batch retried, a redrive) keeps it. Completes with the owners of the records whose content another record owns
     * (resends, not to be stored), or exceptionally with {@link StoreException} when DynamoDB could not be reached in
     * time. The claim of a record that is then not stored (its batch failed) stays its own: that record alone may
     * store the content, and Lambda delivers it again.
     */
    public CompletableFuture<Set<String>> claimContent(List<Content> records, long nowMillis, Deadline deadline) {
        // Of the records of one call with the same content the first claims it and the others are resends whatever
        // the claim finds: the owner is always the earliest record, whatever order concurrent claims land in.
        Set<String> claimed = new java.util.HashSet<>();
        List<Map.Entry<String, Content>> claims = new java.util.ArrayList<>();
        Set<String> resends = ConcurrentHashMap.newKeySet();
        for (Content r : records) {
            String contentKey = contentKey(r.data());
            if (claimed.add(contentKey)) {
                claims.add(Map.entry(contentKey, r));
            } else {
                resends.add(r.owner());
            }
        }
        AtomicInteger answered = new AtomicInteger();
        long nowSeconds = nowMillis / 1000;
        String now = Long.toString(nowSeconds);
        return Bounded.forEach(
                        claims,
                        CONTENT_CONCURRENCY,
                        claim -> AsyncRetry.call(
                                        () -> client.putItem(PutItemRequest.builder()
                                                .tableName(table)
                                                .item(Map.of(
                                                        KeyScheme.PK,
                                                        AttributeValue.fromS(claim.getKey()),
                                                        KeyScheme.SK,
                                                        AttributeValue.fromS(CONTENT_SK),
                                                        OWNER,
                                                        AttributeValue.fromS(
                                                                claim.getValue().owner()),
                                                        TTL,
                                                        AttributeValue.fromN(
                                                                Long.toString(expires(claim.getValue(), nowSeconds)))))
                                                // An expired claim (TTL deletes lazily) is free again.
                                                .conditionExpression(
                                                        "attribute_not_exists(#o) OR #o = :o OR #ttl < :now")
                                                .expressionAttributeNames(Map.of("#o", OWNER, "#ttl", TTL))
                                                .expressionAttributeValues(Map.of(
                                                        ":o",
                                                        AttributeValue.fromS(
                                                                claim.getValue().owner()),
                                                        ":now",
                                                        AttributeValue.fromN(now)))
                                                .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                                                .build()),
                                        backoff,
                                        deadline)
                                .handle((ok, e) -> {
                                    if (e == null) {
                                        answered.incrementAndGet();
                                        return null;
                                    }
                                    if (Bounded.unwrap(e) instanceof ConditionalCheckFailedException) {
                                        resends.add(claim.getValue().owner());
                                        answered.incrementAndGet();
                                        return null;
                                    }
                                    throw storeFailure(
                                            "could not claim the content of record "
                                                    + claim.getValue().owner(),
                                            e);
                                }),
                        deadline::expired)
                .handle((v, e) -> {
                    Throwable cause = e == null ? null : Bounded.unwrap(e);
                    // A claim whose call ran out with the attempt's time (its timeout is the time left) failed for
                    // the deadline, as the claims that never started did: said as one.
                    if (cause instanceof StoreException && !deadline.expired()) {
                        throw new CompletionException(cause);
                    }
                    if (cause != null || answered.get() < claims.size()) {
                        // No claim starts after the deadline (Bounded stops): a record left unclaimed must not be
                        // stored, and the attempt fails as on any other write that ran out of time.
                        throw storeFailure(
                                "could not claim the content of pushed records",
                                new TimeoutException(answered.get() + " of " + claims.size()
                                        + " claimed before the deadline"
                                        + (cause == null ? "" : " (" + cause + ")")));
                    }
                    if (deadline.expired()) {
                        // The claims took the attempt's time: a failure of the store, not of the record the attempt
                        // would decode next (which would then be blamed for running past the deadline).
                        throw storeFailure(
                                "could not claim the content of pushed records",
                                new TimeoutException("all " + claims.size() + " claimed, past the deadline"));
                    }
                    return Set.copyOf(resends);
                });
    }

    /**
     * When a claim may be taken by another record: not before the last moment a resend of its owner can be attempted
     * (it arrived at most {@link #CONTENT_TTL_SECONDS} after the owner and is attempted at most the record life after
     * its own arrival), which is also after the owner's own last attempt. Counted from the owner's arrival, not from
     * this attempt: a shard that stood still for a day between a record and its resend (an outage, a disabled
     * mapping) still meets the claim; and never less than {@link #CONTENT_TTL_SECONDS} from now.
     */
    private long expires(Content owner, long nowSeconds) {
        long arrival = owner.arrivalMillis() / 1000;
        return Math.max(nowSeconds, arrival + recordLifeSeconds) + CONTENT_TTL_SECONDS;
    }

    /**
     * {@code R#} and the first 128 bits of the content's SHA-256, base64url: a collision would need 2^64 records. Reads
     * {@code data} from its position without moving it (the record's bytes are not copied for this).
     */
    static String contentKey(ByteBuffer data) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        sha.update(data.duplicate());
        byte[] digest = sha.digest();
        return CONTENT_PREFIX
                + new String(
                        Base64.getUrlEncoder().withoutPadding().encode(java.util.Arrays.copyOf(digest, 16)),
                        StandardCharsets.US_ASCII);
    }

    private static CompletionException storeFailure(String what, Throwable e) {
        Throwable cause = Bounded.unwrap(e);
        return new CompletionException(new StoreException(what + ": " + cause, cause, new WriteStats(0, 0, 0, 0, 0)));
    }
}
