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

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Sends poison records to the SQS dead-letter queue as JSON: kind {@code poison}, source, shard, sequence
 * number, partition key, arrival time, reason, payload size and the first kilobyte of the payload in
 * base64. The shard and sequence number are also message attributes, so a consumer can deduplicate the
 * repeats that a retried batch sends.
 */
public final class DeadLetterQueue {

    /** How much of a poison payload travels with it: enough to recognise it, never more than SQS allows. */
    public static final int PAYLOAD_HEAD_BYTES = 1024;
    /** Reasons echo parts of the input; capped so a message always fits SQS's limits. */
    public static final int MAX_REASON_CHARS = 512;

    private static final int SQS_BATCH = 10;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final SqsClient sqs;
    private final String queueUrl;
    private final Backoff backoff;

    public DeadLetterQueue(SqsClient sqs, String queueUrl, Backoff backoff) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.backoff = backoff;
    }

    /** The message body for {@code r}; public so tools that read the DLQ share one format. */
    public static String body(PoisonRecord r) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("kind", "poison");
        n.put("source", r.source());
        n.put("shardId", sqsSafe(r.shardId(), 256));
        n.put("sequenceNumber", sqsSafe(r.sequenceNumber(), 256));
        n.put("partitionKey", sqsSafe(r.partitionKey(), 256));
        n.put("approximateArrivalTimestamp", r.arrivalMillis());
        n.put("reason", sqsSafe(r.reason(), MAX_REASON_CHARS));
        n.put("payloadBytes", r.payload().length);
        n.put(
                "payloadHeadBase64",
                Base64.getEncoder()
                        .encodeToString(Arrays.copyOf(r.payload(), Math.min(PAYLOAD_HEAD_BYTES, r.payload().length))));
        return n.toString();
    }

    /** Sends all records, retrying failed entries until {@code deadline}; throws if any could not be sent. */
    public void sendAll(List<PoisonRecord> records, Deadline deadline) {
        for (int i = 0; i < records.size(); i += SQS_BATCH) {
            sendBatch(records.subList(i, Math.min(records.size(), i + SQS_BATCH)), deadline);
        }
    }

    private void sendBatch(List<PoisonRecord> batch, Deadline deadline) {
        List<SendMessageBatchRequestEntry> pending = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            PoisonRecord r = batch.get(i);
            pending.add(SendMessageBatchRequestEntry.builder()
                    .id(Integer.toString(i))
                    .messageBody(body(r))
                    .messageAttributes(Map.of(
                            "shardId", text(r.shardId()),
                            "sequenceNumber", text(r.sequenceNumber()),
                            "kind", text("poison")))
                    .build());
        }
        RuntimeException lastError = null;
        for (int attempt = 0; !pending.isEmpty(); attempt++) {
            try {
                SendMessageBatchResponse resp =
                        sqs.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(pending));
                List<String> failed =
                        resp.failed().stream().map(BatchResultErrorEntry::id).toList();
                pending.removeIf(e -> !failed.contains(e.id()));
                if (!pending.isEmpty()) {
                    lastError = new IllegalStateException("SQS rejected entries: " + resp.failed());
                }
            } catch (RuntimeException e) {
                lastError = e;
            }
            if (pending.isEmpty()) {
                return;
            }
            long delay = backoff.delayMillis(attempt);
            if (deadline.remainingMillis() <= delay) {
                throw new DeadLetterException(
                        "could not send " + pending.size() + " poison records to " + queueUrl, lastError);
            }
            sleep(delay);
        }
    }

    private static MessageAttributeValue text(String v) {
        String safe = sqsSafe(v, 256);
        return MessageAttributeValue.builder()
                .dataType("String")
                .stringValue(safe.isEmpty() ? "-" : safe)
                .build();
    }

    /**
     * {@code s} cut to {@code max} chars with every character SQS rejects (outside #x9, #xA, #xD, #x20-#xD7FF,
     * #xE000-#xFFFD, #x10000-#x10FFFF) replaced by U+FFFD: a reason that echoes bad input must still send,
     * or the poison record would block its shard.
     */
    static String sqsSafe(String s, int max) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(Math.min(s.length(), max + 3));
        for (int i = 0, n = s.length(); i < n && sb.length() < max; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                sb.append(c).append(s.charAt(++i));
            } else if (c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)) {
                sb.append(c);
            } else {
                sb.append('\uFFFD');
            }
        }
        if (sb.length() >= max && s.length() > max) {
            sb.append("...");
        }
        return sb.toString();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeadLetterException("interrupted while retrying the dead-letter queue", e);
        }
    }
}
