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
package dev.pulse.rules;

import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.MessageAttributeValue;

/**
 * Publishes Alertmanager's webhook message ({@link WebhookMessage}) for a rule's transitions to an SNS topic, with
 * the message attributes {@code alertname} and {@code status} so a subscription can filter on them. The client retries
 * throttling and server errors itself (the SDK's standard retries).
 */
public final class SnsNotifier implements Notifier {

    private final SnsClient sns;
    private final String topicArn;
    private final Map<String, String> externalLabels;
    private final String externalUrl;
    private final String receiver;

    public SnsNotifier(
            SnsClient sns, String topicArn, Map<String, String> externalLabels, String externalUrl, String receiver) {
        this.sns = sns;
        this.topicArn = topicArn;
        this.externalLabels = Map.copyOf(externalLabels);
        this.externalUrl = externalUrl;
        this.receiver = receiver;
    }

    @Override
    public int send(AlertingRule rule, long evaluatedAt, List<Alert> transitions) {
        if (transitions.isEmpty()) {
            return 0;
        }
        List<String> messages = WebhookMessage.build(rule, transitions, externalLabels, externalUrl, receiver);
        for (String m : messages) {
            String status = m.contains("\"status\":\"firing\"") ? "firing" : "resolved";
            sns.publish(b -> b.topicArn(topicArn)
                    .message(m)
                    .messageAttributes(Map.of(
                            "alertname",
                                    MessageAttributeValue.builder()
                                            .dataType("String")
                                            .stringValue(rule.name())
                                            .build(),
                            "status",
                                    MessageAttributeValue.builder()
                                            .dataType("String")
                                            .stringValue(status)
                                            .build())));
        }
        return messages.size();
    }
}
