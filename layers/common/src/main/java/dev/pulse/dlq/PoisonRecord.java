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
package dev.pulse.dlq;

/**
 * A record that can never be ingested as it is, with what an operator needs to find, fix and put it back.
 *
 * @param source         the function that rejected it
 * @param shardId        Kinesis shard (or the event source ARN's stream for other sources)
 * @param sequenceNumber the record's sequence number
 * @param partitionKey   the record's partition key
 * @param arrivalMillis  the record's approximate arrival time, epoch milliseconds
 * @param reason         why it was rejected
 * @param payload        the record's data (only the first {@link DeadLetterQueue#PAYLOAD_HEAD_BYTES} are sent)
 */
public record PoisonRecord(
        String source,
        String shardId,
        String sequenceNumber,
        String partitionKey,
        long arrivalMillis,
        String reason,
        byte[] payload) {}
