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
package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.rules.AlertingRule;
import dev.pulse.rules.RecordingRule;
import dev.pulse.rules.RuleFiles;
import dev.pulse.rules.RuleSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The benchmark's generated rule file is a valid Pulse rule file with the mix its description gives. */
class RulesBenchTest {

    @Test
    void rulesFile_whenTenGroupsOfHundred_loadsThousandRulesOfTheDescribedMix() throws Exception {
        RuleSet rules = RuleFiles.load(Map.of("bench.rules.yml", RulesBench.rulesFile(10, 100)));

        assertThat(rules.ruleCount()).isEqualTo(1_000);
        assertThat(rules.groups())
                .hasSize(10)
                .allSatisfy(g -> assertThat(g.intervalMillis()).isEqualTo(60_000));
        var all = rules.groups().stream().flatMap(g -> g.rules().stream()).toList();
        assertThat(all).filteredOn(r -> r instanceof RecordingRule).hasSize(200);
        assertThat(all).filteredOn(r -> r instanceof AlertingRule).hasSize(800);
        assertThat(all).filteredOn(r -> r.expr().endsWith(" > 0")).hasSize(100);
        assertThat(all.get(7).expr())
                .isEqualTo("sum by (route) (rate(api_latency_milliseconds_count{service=\"svc-7\"}[5m])) > 1e12");
    }
}
