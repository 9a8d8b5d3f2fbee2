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
package dev.pulse.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * The invocation records a Lambda event source mapping sends to its on-failure destination when it discards a
 * batch, in the documented format (kinesis-on-failure-destination, "Example invocation record"): no record data,
 * only where the batch was.
 */
final class FailureRecords {

    private static final ObjectMapper JSON = new ObjectMapper();

    private FailureRecords() {}

    /** A discarded Kinesis batch of {@code batchSize} records from {@code start} to {@code end} on {@code shardId}. */
    static String kinesis(
            String streamArn,
            String shardId,
            String start,
            String end,
            int batchSize,
            Instant firstArrival,
            Instant lastArrival) {
        ObjectNode root = envelope("RetryAttemptsExhausted", 11);
        ObjectNode info = root.putObject("KinesisBatchInfo");
        info.put("shardId", shardId);
        info.put("startSequenceNumber", start);
        info.put("endSequenceNumber", end);
        info.put("approximateArrivalOfFirstRecord", firstArrival.toString());
        info.put("approximateArrivalOfLastRecord", lastArrival.toString());
        info.put("batchSize", batchSize);
        info.put("streamArn", streamArn);
        return root.toString();
    }

    /** A discarded batch of the compaction mapping (the table's stream). */
    static String dynamoDb(String shardId, String start, String end, int batchSize) {
        ObjectNode root = envelope("RetryAttemptsExhausted", 11);
        ObjectNode info = root.putObject("DDBStreamBatchInfo");
        info.put("shardId", shardId);
        info.put("startSequenceNumber", start);
        info.put("endSequenceNumber", end);
        info.put("approximateArrivalOfFirstRecord", "2026-11-21T11:59:00Z");
        info.put("approximateArrivalOfLastRecord", "2026-11-21T11:59:01Z");
        info.put("batchSize", batchSize);
        info.put(
                "streamArn",
                "arn:aws:dynamodb:us-east-1:123456789012:table/pulse-Table-1/stream/2026-11-01T00:00:00.000");
        return root.toString();
    }

    private static ObjectNode envelope(String condition, int invokeCount) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode request = root.putObject("requestContext");
        request.put("requestId", "c9b8fa9f-5a7f-4e2b-af9c-0c604cde93a5");
        request.put("functionArn", "arn:aws:lambda:us-east-1:123456789012:function:pulse-ingest");
        request.put("condition", condition);
        request.put("approximateInvokeCount", invokeCount);
        ObjectNode response = root.putObject("responseContext");
        response.put("statusCode", 200);
        response.put("executedVersion", "$LATEST");
        response.put("functionError", "Unhandled");
        root.put("version", "1.0");
        root.put("timestamp", "2026-11-21T12:00:00.021Z");
        return root;
    }
}
