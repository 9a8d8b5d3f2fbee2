package dev.pulse.local.esm;

import java.util.List;

/**
 * The records of one shard, in order. Reading advances the source; records are read once (the processor
 * keeps the batch it is retrying itself, as Lambda does), so a source never re-delivers.
 */
public interface ShardSource {

    /** The shard's id, as it appears in the failure context ({@code shardId-000000000000}). */
    String shardId();

    /** The stream's ARN. */
    String streamArn();

    /** Up to {@code max} records that follow the ones already returned; an empty list when none are available yet. */
    List<StreamRecord> read(int max) throws Exception;

    /** True once the shard is closed (split or merged) and every record has been returned. */
    boolean exhausted();
}
