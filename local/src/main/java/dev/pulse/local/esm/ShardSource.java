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
