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

import dev.pulse.config.ConfigException;
import dev.pulse.config.PulseConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The rules evaluator's settings, from environment variables template.yaml declares once, checked together at
 * start-up with the settings every function shares ({@link PulseConfig}): a misconfigured evaluator fails its first
 * invocation with one message naming every bad variable.
 *
 * @param shared          the settings every function reads (table, retries, safety margin)
 * @param region          {@code AWS_REGION} (the Lambda runtime sets it)
 * @param topicArn        {@code ALERT_TOPIC_ARN}: the SNS topic that receives Alertmanager's webhook messages
 * @param catchUpLimit    {@code RULES_CATCH_UP_LIMIT} (default 10, 1-1440): aligned times one invocation evaluates per
 *                        group, oldest first; what is left is counted ({@code RuleEvaluationsBehind}) for the next one
 * @param externalUrl     {@code RULES_EXTERNAL_URL} (default empty): {@code $externalURL} in templates, the messages'
 *                        {@code externalURL} and the start of each alert's {@code generatorURL}
 * @param receiver        {@code RULES_RECEIVER} (default {@code pulse}): the messages' {@code receiver}
 */
public record RulesConfig(
        PulseConfig shared, String region, String topicArn, int catchUpLimit, String externalUrl, String receiver) {

    private static final Pattern TOPIC =
            Pattern.compile("arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}");

    public static RulesConfig fromEnvironment(Map<String, String> env) {
        List<String> problems = new ArrayList<>();
        PulseConfig shared = null;
        try {
            shared = PulseConfig.fromEnvironment(env);
        } catch (ConfigException e) {
            problems.add(e.getMessage().replaceFirst("^invalid configuration: ", ""));
        }
        String region = env.getOrDefault("AWS_REGION", env.getOrDefault("AWS_DEFAULT_REGION", ""));
        if (region.isBlank()) {
            problems.add("AWS_REGION is required (the Lambda runtime sets it)");
        }
        String topic = env.getOrDefault("ALERT_TOPIC_ARN", "");
        if (topic.isBlank()) {
            problems.add("ALERT_TOPIC_ARN is required (the SNS topic alert notifications are published to)");
        } else if (!TOPIC.matcher(topic).matches()) {
            problems.add("ALERT_TOPIC_ARN must be the ARN of a standard SNS topic, got \"" + topic + "\"");
        }
        int catchUp = 10;
        String c = env.get("RULES_CATCH_UP_LIMIT");
        if (c != null && !c.isBlank()) {
            try {
                catchUp = Integer.parseInt(c.strip());
                if (catchUp < 1 || catchUp > 1440) {
                    problems.add("RULES_CATCH_UP_LIMIT must be between 1 and 1440, got " + catchUp);
                }
            } catch (NumberFormatException e) {
                problems.add("RULES_CATCH_UP_LIMIT must be a whole number, got \"" + c + "\"");
            }
        }
        String url = env.getOrDefault("RULES_EXTERNAL_URL", "");
        if (!url.isEmpty() && !url.matches("https?://\\S+")) {
            problems.add("RULES_EXTERNAL_URL must be empty or an http(s) URL, got \"" + url + "\"");
        }
        String receiver = env.getOrDefault("RULES_RECEIVER", "pulse");
        if (receiver.isBlank()) {
            problems.add("RULES_RECEIVER must not be blank");
        }
        if (!problems.isEmpty()) {
            throw new ConfigException("invalid configuration: " + String.join("; ", problems));
        }
        return new RulesConfig(shared, region, topic, catchUp, url.replaceAll("/+$", ""), receiver);
    }
}
