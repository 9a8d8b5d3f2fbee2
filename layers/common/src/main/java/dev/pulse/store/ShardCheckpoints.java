package dev.pulse.store;

import dev.pulse.concurrent.Bounded;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
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
 * </ul>
 * docs/design.md, "Exactly once", has the argument and what it costs (two single-item writes per batch).
 */
public final class ShardCheckpoints {

    public static final String COMMITTED = "w";
    public static final String GENERATION = "g";
    public static final String COMMITTED_AT = "at";
    private static final String SK_VALUE = "w";

    /**
     * Where a shard stands for one attempt.
     *
     * @param key        the shard's checkpoint key ({@link #key})
     * @param committed  the last committed sequence number, or {@code null} before the first commit
     * @param generation the attempt's generation ({@link #claim}), or the current one ({@link #read})
     */
    public record Position(String key, String committed, long generation) {

        /** True when {@code sequence} is at or below the committed position: already stored. */
        public boolean covers(String sequence) {
            return committed != null && compareSequences(sequence, committed) <= 0;
        }
    }

    private final DynamoDbAsyncClient client;
    private final String table;
    private final Backoff backoff;

    public ShardCheckpoints(DynamoDbAsyncClient client, String table, Backoff backoff) {
        this.client = client;
        this.table = table;
        this.backoff = backoff;
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
     * Starts an attempt: takes the next generation and reads the committed position in one UpdateItem
     * (strongly consistent by nature), creating the item on a shard's first batch.
     */
    public CompletableFuture<Position> claim(String key, Deadline deadline) {
        return AsyncRetry.call(() -> client.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(key))
                        .updateExpression("ADD #g :one")
                        .expressionAttributeNames(Map.of("#g", GENERATION))
                        .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))
                        .returnValues(ReturnValue.ALL_NEW)
                        .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                        .build()), backoff, deadline)
                .thenApply(r -> position(key, r.attributes()))
                .exceptionally(e -> {
                    throw storeFailure("could not claim shard " + key, e);
                });
    }

    /** The committed position and current generation, without taking one (the redrive writes below it). */
    public CompletableFuture<Position> read(String key, Deadline deadline) {
        return AsyncRetry.call(() -> client.getItem(GetItemRequest.builder()
                        .tableName(table)
                        .key(key(key))
                        .consistentRead(true)
                        .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                        .build()), backoff, deadline)
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
        return AsyncRetry.call(() -> client.updateItem(UpdateItemRequest.builder()
                        .tableName(table)
                        .key(key(position.key()))
                        .updateExpression("SET #w = :w, #at = :at")
                        .conditionExpression("#g = :g")
                        .expressionAttributeNames(Map.of("#w", COMMITTED, "#at", COMMITTED_AT, "#g", GENERATION))
                        .expressionAttributeValues(Map.of(":w", AttributeValue.fromS(lastSequence),
                                ":at", AttributeValue.fromN(Long.toString(now)),
                                ":g", AttributeValue.fromN(Long.toString(position.generation()))))
                        .overrideConfiguration(o -> o.apiCallTimeout(deadline.callTimeout()))
                        .build()), backoff, deadline)
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

    private static Position position(String key, Map<String, AttributeValue> item) {
        AttributeValue w = item.get(COMMITTED);
        AttributeValue g = item.get(GENERATION);
        return new Position(key, w == null ? null : w.s(), g == null ? 0 : Long.parseLong(g.n()));
    }

    private static Map<String, AttributeValue> key(String key) {
        return Map.of(KeyScheme.PK, AttributeValue.fromS(key), KeyScheme.SK, AttributeValue.fromS(SK_VALUE));
    }

    private static CompletionException storeFailure(String what, Throwable e) {
        Throwable cause = Bounded.unwrap(e);
        return new CompletionException(new StoreException(what + ": " + cause, cause, new WriteStats(0, 0, 0, 0, 0)));
    }
}
