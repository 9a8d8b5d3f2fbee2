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
package dev.pulse.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * An in-memory SQS queue for the dead-letter queue in fast tests: keeps every message a {@code SendMessageBatch}
 * delivers, in order, and can refuse the next calls the way an unavailable SQS does (HTTP 503). Only
 * {@code SendMessageBatch} is implemented, the one call {@code dev.pulse.dlq.DeadLetterQueue} makes.
 */
public final class RecordingSqs implements SqsClient {

    /** One delivered message: its queue, body and string attributes. */
    public record Message(String queueUrl, String body, Map<String, String> attributes) {}

    private final List<Message> messages = new ArrayList<>();
    private final AtomicInteger refuseNext = new AtomicInteger();
    private final AtomicInteger calls = new AtomicInteger();

    /** The next {@code n} calls fail with a 503 and deliver nothing. */
    public void refuseNext(int n) {
        refuseNext.set(n);
    }

    /** Every message delivered so far, oldest first. */
    public synchronized List<Message> messages() {
        return List.copyOf(messages);
    }

    /** The {@code sequenceNumber} attribute of every message delivered so far, oldest first. */
    public synchronized List<String> sequenceNumbers() {
        return messages.stream().map(m -> m.attributes().get("sequenceNumber")).toList();
    }

    /** {@code SendMessageBatch} calls made, refused ones included. */
    public int calls() {
        return calls.get();
    }

    @Override
    public synchronized SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
        calls.incrementAndGet();
        if (refuseNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw (SqsException) SqsException.builder()
                    .statusCode(503)
                    .awsErrorDetails(AwsErrorDetails.builder()
                            .errorCode("ServiceUnavailable")
                            .errorMessage("refused by the test")
                            .build())
                    .message("refused by the test")
                    .build();
        }
        List<SendMessageBatchResultEntry> ok = new ArrayList<>(request.entries().size());
        for (SendMessageBatchRequestEntry e : request.entries()) {
            Map<String, String> attributes = new java.util.TreeMap<>();
            e.messageAttributes().forEach((k, v) -> attributes.put(k, ((MessageAttributeValue) v).stringValue()));
            messages.add(new Message(request.queueUrl(), e.messageBody(), Map.copyOf(attributes)));
            ok.add(SendMessageBatchResultEntry.builder()
                    .id(e.id())
                    .messageId("m-" + messages.size())
                    .build());
        }
        return SendMessageBatchResponse.builder()
                .successful(ok)
                .failed(List.of())
                .build();
    }

    @Override
    public String serviceName() {
        return SERVICE_NAME;
    }

    @Override
    public void close() {}
}
