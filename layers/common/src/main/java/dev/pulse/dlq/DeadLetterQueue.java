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
        n.put("shardId", r.shardId());
        n.put("sequenceNumber", r.sequenceNumber());
        n.put("partitionKey", r.partitionKey());
        n.put("approximateArrivalTimestamp", r.arrivalMillis());
        n.put("reason", r.reason());
        n.put("payloadBytes", r.payload().length);
        n.put("payloadHeadBase64", Base64.getEncoder().encodeToString(
                Arrays.copyOf(r.payload(), Math.min(PAYLOAD_HEAD_BYTES, r.payload().length))));
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
                SendMessageBatchResponse resp = sqs.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(pending));
                List<String> failed = resp.failed().stream().map(BatchResultErrorEntry::id).toList();
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
                throw new DeadLetterException("could not send " + pending.size() + " poison records to " + queueUrl, lastError);
            }
            sleep(delay);
        }
    }

    private static MessageAttributeValue text(String v) {
        return MessageAttributeValue.builder().dataType("String").stringValue(v == null || v.isEmpty() ? "-" : v).build();
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
