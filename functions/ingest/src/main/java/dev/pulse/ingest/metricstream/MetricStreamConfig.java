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
package dev.pulse.ingest.metricstream;

import dev.pulse.config.ConfigException;
import dev.pulse.config.PulseConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The metric stream endpoint's settings, from environment variables template.yaml declares once, checked together at
 * start-up with the settings every function shares: a misconfigured endpoint fails its first invocation with one
 * message naming every bad variable.
 *
 * @param shared          the settings every function reads (table, retries, safety margin, accepted window)
 * @param region          {@code AWS_REGION} (the Lambda runtime sets it)
 * @param accessKeySecret {@code FIREHOSE_ACCESS_KEY_SECRET_ARN}: the Secrets Manager secret whose {@code api_key} Firehose
 *                        sends as {@code X-Amz-Firehose-Access-Key} (the format Firehose itself reads the key in)
 */
public record MetricStreamConfig(PulseConfig shared, String region, String accessKeySecret) {

    private static final Pattern SECRET =
            Pattern.compile("arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}");

    public static MetricStreamConfig fromEnvironment(Map<String, String> env) {
        List<String> problems = new ArrayList<>();
        PulseConfig shared = PulseConfig.fromEnvironment(env, problems);
        String region = PulseConfig.region(env, problems);
        String secret = env.getOrDefault("FIREHOSE_ACCESS_KEY_SECRET_ARN", "");
        if (secret.isBlank()) {
            problems.add(
                    "FIREHOSE_ACCESS_KEY_SECRET_ARN is required (the secret holding the access key Firehose sends)");
        } else if (!SECRET.matcher(secret).matches()) {
            problems.add("FIREHOSE_ACCESS_KEY_SECRET_ARN must be the ARN of a Secrets Manager secret, got \"" + secret
                    + "\"");
        }
        if (!problems.isEmpty()) {
            throw new ConfigException("invalid configuration: " + String.join("; ", problems));
        }
        return new MetricStreamConfig(shared, region, secret);
    }
}
