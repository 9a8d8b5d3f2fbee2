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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.config.ConfigException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The evaluator's settings are checked together at start-up, every bad one named in one message. */
class RulesConfigTest {

    private static Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("TABLE_NAME", "pulse");
        env.put("DLQ_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/dlq");
        env.put("AWS_REGION", "us-east-1");
        env.put("ALERT_TOPIC_ARN", "arn:aws:sns:us-east-1:123456789012:pulse-alerts");
        return env;
    }

    @Test
    void fromEnvironment_whenOnlyTheRequiredSettingsAreGiven_usesTheDefaults() {
        RulesConfig c = RulesConfig.fromEnvironment(env());

        assertThat(c.catchUpLimit()).isEqualTo(10);
        assertThat(c.externalUrl()).isEmpty();
        assertThat(c.receiver()).isEqualTo("pulse");
        assertThat(c.shared().tableName()).isEqualTo("pulse");
        assertThat(c.alertmanagerUrl()).isEmpty();
        assertThat(c.alertmanagerAuth()).isEqualTo(AlertmanagerAuth.Scheme.NONE);
        assertThat(RulesFunction.alertmanager(c)).isNull();
    }

    @Test
    void fromEnvironment_whenAnAlertmanagerWithBearerAuthIsSet_keepsItsUrlWithoutTrailingSlashAndTheSecret() {
        Map<String, String> env = env();
        env.put("ALERTMANAGER_URL", "https://am.example.com/alertmanager/");
        env.put("ALERTMANAGER_AUTH", "bearer");
        env.put("ALERTMANAGER_SECRET_ARN", "arn:aws:secretsmanager:us-east-1:123456789012:secret:pulse/am-AbCdEf");

        RulesConfig c = RulesConfig.fromEnvironment(env);

        assertThat(c.alertmanagerUrl()).isEqualTo("https://am.example.com/alertmanager");
        assertThat(c.alertmanagerAuth()).isEqualTo(AlertmanagerAuth.Scheme.BEARER);
        assertThat(c.alertmanagerSecretArn()).endsWith(":secret:pulse/am-AbCdEf");
        assertThat(RulesFunction.alertmanager(c).endpoint())
                .hasToString("https://am.example.com/alertmanager/api/v2/alerts");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "am.example.com          | none  | ''       | ALERTMANAGER_URL must be empty or an http(s) URL",
                "https://u:p@am.example  | none  | ''       | without credentials",
                "https://am.example?x=1  | none  | ''       | without credentials, query or fragment",
                "https://am.example      | oauth | ''       | ALERTMANAGER_AUTH must be none, basic or bearer",
                "http://am.example       | basic | SECRET   | ALERTMANAGER_URL must be https when ALERTMANAGER_AUTH",
                "https://am.example      | basic | ''       | ALERTMANAGER_SECRET_ARN is required when ALERTMANAGER_AUTH",
                "https://am.example      | basic | pulse/am | ALERTMANAGER_SECRET_ARN must be the ARN of a Secrets",
                "''                      | bearer| SECRET   | ALERTMANAGER_AUTH is bearer but ALERTMANAGER_URL is empty",
                "https://am.example      | none  | SECRET   | ALERTMANAGER_SECRET_ARN is set but ALERTMANAGER_AUTH is none"
            })
    void fromEnvironment_whenTheAlertmanagerSettingsDisagree_namesTheSetting(
            String url, String auth, String secret, String reason) {
        Map<String, String> env = env();
        env.put("ALERTMANAGER_URL", url);
        env.put("ALERTMANAGER_AUTH", auth);
        env.put(
                "ALERTMANAGER_SECRET_ARN",
                secret.equals("SECRET") ? "arn:aws:secretsmanager:us-east-1:123456789012:secret:am-AbCdEf" : secret);

        assertThatThrownBy(() -> RulesConfig.fromEnvironment(env))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void fromEnvironment_whenSeveralSettingsAreBad_namesEveryOneInOneMessage() {
        Map<String, String> env = env();
        env.remove("TABLE_NAME");
        env.put("ALERT_TOPIC_ARN", "pulse-alerts");
        env.put("RULES_CATCH_UP_LIMIT", "0");
        env.put("RULES_EXTERNAL_URL", "grafana.example.com");

        assertThatThrownBy(() -> RulesConfig.fromEnvironment(env))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("TABLE_NAME")
                .hasMessageContaining("ALERT_TOPIC_ARN must be the ARN of a standard SNS topic, got \"pulse-alerts\"")
                .hasMessageContaining("RULES_CATCH_UP_LIMIT must be between 1 and 1440, got 0")
                .hasMessageContaining("RULES_EXTERNAL_URL must be empty or an http(s) URL");
    }

    @ParameterizedTest
    @CsvSource({
        "RULES_CATCH_UP_LIMIT, ten, must be a whole number",
        "RULES_CATCH_UP_LIMIT, 1441, between 1 and 1440",
        "ALERT_TOPIC_ARN, '', ALERT_TOPIC_ARN is required",
        "RULES_RECEIVER, ' ', must not be blank"
    })
    void fromEnvironment_whenOneSettingIsBad_namesIt(String name, String value, String reason) {
        Map<String, String> env = env();
        env.put(name, value);

        assertThatThrownBy(() -> RulesConfig.fromEnvironment(env))
                .hasMessageContaining(name)
                .hasMessageContaining(reason);
    }

    @Test
    void fromEnvironment_whenTheExternalUrlEndsWithASlash_dropsItSoLinksHaveOne() {
        Map<String, String> env = env();
        env.put("RULES_EXTERNAL_URL", "https://grafana.example.com/");

        assertThat(RulesConfig.fromEnvironment(env).externalUrl()).isEqualTo("https://grafana.example.com");
    }
}
