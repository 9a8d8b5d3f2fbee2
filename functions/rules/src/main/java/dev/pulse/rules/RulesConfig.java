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
 *                        external URL field and the start of each alert's {@code generatorURL}
 * @param receiver        {@code RULES_RECEIVER} (default {@code pulse}): the messages' {@code receiver}
 * @param alertmanagerUrl {@code ALERTMANAGER_URL} (default empty: off): an Alertmanager's URL; the evaluator posts
 *                        its firing and resolved alerts to {@code <url>/api/v2/alerts}
 * @param alertmanagerAuth {@code ALERTMANAGER_AUTH} (default {@code none}; {@code basic} or {@code bearer}, only over
 *                        https): how the evaluator authenticates to it
 * @param alertmanagerSecretArn {@code ALERTMANAGER_SECRET_ARN}: the Secrets Manager secret holding the credentials,
 *                        required with {@code basic} or {@code bearer}, refused with {@code none}
 */
public record RulesConfig(
        PulseConfig shared,
        String region,
        String topicArn,
        int catchUpLimit,
        String externalUrl,
        String receiver,
        String alertmanagerUrl,
        AlertmanagerAuth.Scheme alertmanagerAuth,
        String alertmanagerSecretArn) {

    private static final Pattern TOPIC =
            Pattern.compile("arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}");
    private static final Pattern SECRET =
            Pattern.compile("arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}");

    public static RulesConfig fromEnvironment(Map<String, String> env) {
        List<String> problems = new ArrayList<>();
        PulseConfig shared = PulseConfig.fromEnvironment(env, problems);
        String region = PulseConfig.region(env, problems);
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
        String am = env.getOrDefault("ALERTMANAGER_URL", "").strip();
        java.net.URI amUri = null;
        if (!am.isEmpty()) {
            try {
                amUri = new java.net.URI(am);
            } catch (java.net.URISyntaxException e) {
                // reported below
            }
            if (amUri == null
                    || !("http".equals(amUri.getScheme()) || "https".equals(amUri.getScheme()))
                    || amUri.getHost() == null
                    || amUri.getRawQuery() != null
                    || amUri.getRawFragment() != null
                    || amUri.getRawUserInfo() != null) {
                problems.add("ALERTMANAGER_URL must be empty or an http(s) URL without credentials, query or fragment,"
                        + " got \"" + am + "\"");
                amUri = null;
            }
        }
        AlertmanagerAuth.Scheme auth = AlertmanagerAuth.Scheme.NONE;
        String a = env.getOrDefault("ALERTMANAGER_AUTH", "none");
        try {
            auth = AlertmanagerAuth.Scheme.parse(a.isBlank() ? "none" : a);
        } catch (IllegalArgumentException e) {
            problems.add("ALERTMANAGER_AUTH must be none, basic or bearer, got \"" + a + "\"");
        }
        String secret = env.getOrDefault("ALERTMANAGER_SECRET_ARN", "").strip();
        if (auth != AlertmanagerAuth.Scheme.NONE) {
            if (am.isEmpty()) {
                problems.add("ALERTMANAGER_AUTH is " + auth.name().toLowerCase(java.util.Locale.ROOT)
                        + " but ALERTMANAGER_URL is empty");
            } else if (amUri != null && !"https".equals(amUri.getScheme())) {
                problems.add(
                        "ALERTMANAGER_URL must be https when ALERTMANAGER_AUTH sends credentials, got \"" + am + "\"");
            }
            if (secret.isEmpty()) {
                problems.add("ALERTMANAGER_SECRET_ARN is required when ALERTMANAGER_AUTH is "
                        + auth.name().toLowerCase(java.util.Locale.ROOT));
            } else if (!SECRET.matcher(secret).matches()) {
                problems.add(
                        "ALERTMANAGER_SECRET_ARN must be the ARN of a Secrets Manager secret, got \"" + secret + "\"");
            }
        } else if (!secret.isEmpty()) {
            problems.add("ALERTMANAGER_SECRET_ARN is set but ALERTMANAGER_AUTH is none");
        }
        if (!problems.isEmpty()) {
            throw new ConfigException("invalid configuration: " + String.join("; ", problems));
        }
        return new RulesConfig(
                shared,
                region,
                topic,
                catchUp,
                url.replaceAll("/+$", ""),
                receiver,
                am.replaceAll("/+$", ""),
                auth,
                secret);
    }
}
