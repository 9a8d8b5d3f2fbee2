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

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * One record read from a shard, already in the shape Lambda puts in the event's {@code Records} array.
 *
 * @param sequenceNumber the record's sequence number ({@code kinesis.sequenceNumber}); numeric strings, comparable as
 *                       big integers
 * @param partitionKey   the record's partition key
 * @param arrival        approximate arrival
 * @param sizeBytes      payload size, for the 6 MB invocation payload limit
 * @param lambdaRecord   the element of {@code Records[]} exactly as the event source mapping delivers it
 */
public record StreamRecord(
        String sequenceNumber, String partitionKey, Instant arrival, int sizeBytes, ObjectNode lambdaRecord) {}
