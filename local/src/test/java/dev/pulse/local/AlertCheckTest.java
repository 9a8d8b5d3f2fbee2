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
package dev.pulse.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.local.AlertSubscriber.Delivery;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** make run's verdict on the notifications: exactly one firing and one resolved of the load's alert. */
class AlertCheckTest {

    private static final String RUN = "local-1795869599";
    private static final long FIRST_CANARY = 1_795_869_600_000L;
    private static final long LAST_CANARY = FIRST_CANARY + 59_000;

    private static Delivery delivery(String name, String run, String status, long at) {
        return new Delivery(
                at,
                status,
                "fp-" + name + "-" + run,
                Map.of("alertname", name, "run", run, "severity", "info"),
                "2026-11-29T08:01:00Z",
                status.equals("firing") ? "0001-01-01T00:00:00Z" : "2026-11-29T08:03:00Z");
    }

    private static List<Delivery> deliveries(int firing, int resolved) {
        List<Delivery> out = new ArrayList<>();
        for (int i = 0; i < firing; i++) {
            out.add(delivery(AlertCheck.EXPECTED_ALERT, RUN, "firing", FIRST_CANARY + 64_000 + i));
        }
        for (int i = 0; i < resolved; i++) {
            out.add(delivery(AlertCheck.EXPECTED_ALERT, RUN, "resolved", LAST_CANARY + 95_000 + i));
        }
        return out;
    }

    @Test
    void judge_whenOneFiringAndOneResolved_passesWithDetectionLatency() {
        List<Delivery> d = new ArrayList<>(deliveries(1, 1));
        // Another alert (another rule, or another run's) is listed, not judged.
        d.add(delivery("LoadgenCanaryStopped", "local-1", "firing", FIRST_CANARY));

        AlertCheck.Outcome o = AlertCheck.judge(d, RUN, FIRST_CANARY, LAST_CANARY);

        assertThat(o.passed()).isTrue();
        assertThat(o.json().path("detectionLatencyMs").asLong()).isEqualTo(64_000);
        assertThat(o.json().path("detectionTargetMet").asBoolean()).isTrue();
        assertThat(o.json().path("resolveLatencyMs").asLong()).isEqualTo(95_000);
        assertThat(o.json().path("alerts")).hasSize(2);
        assertThat(o.json().path("alerts").get(0).path("firedAt").asText()).isEqualTo("2026-11-29T08:01:00Z");
        assertThat(o.json().path("alerts").get(0).path("resolvedAt").asText()).isEqualTo("2026-11-29T08:03:00Z");
        assertThat(o.lines())
                .anySatisfy(l -> assertThat(l)
                        .startsWith("alert     LoadgenRunning{run=\"" + RUN + "\",severity=\"info\"} fired")
                        .contains("1 firing + 1 resolved"))
                .anySatisfy(l -> assertThat(l).startsWith("detection 64.0 s").contains("met"));
        assertThat(AlertCheck.resolved(d, RUN)).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"0,0", "1,0", "0,1", "2,1", "1,2", "2,2"})
    void judge_whenPairMissingOrDoubled_fails(int firing, int resolved) {
        AlertCheck.Outcome o = AlertCheck.judge(deliveries(firing, resolved), RUN, FIRST_CANARY, LAST_CANARY);

        assertThat(o.passed()).isFalse();
        assertThat(o.json().path("passed").asBoolean()).isFalse();
        assertThat(o.json().path("reason").asText()).contains("LoadgenRunning{run=\"" + RUN + "\"}");
        assertThat(o.lines()).anySatisfy(l -> assertThat(l).startsWith("alerts    FAIL: "));
    }

    @Test
    void judge_whenOnlyAnotherRunsAlert_fails() {
        List<Delivery> other = List.of(
                delivery(AlertCheck.EXPECTED_ALERT, "local-1", "firing", FIRST_CANARY),
                delivery(AlertCheck.EXPECTED_ALERT, "local-1", "resolved", LAST_CANARY));

        AlertCheck.Outcome o = AlertCheck.judge(other, RUN, FIRST_CANARY, LAST_CANARY);

        assertThat(o.passed()).isFalse();
        assertThat(o.json().path("reason").asText()).startsWith("no notification of");
        assertThat(AlertCheck.resolved(other, RUN)).isFalse();
    }

    @Test
    void judge_whenFiringArrivesLate_reportsTheTargetMissed() {
        List<Delivery> d = List.of(
                delivery(AlertCheck.EXPECTED_ALERT, RUN, "firing", FIRST_CANARY + 91_000),
                delivery(AlertCheck.EXPECTED_ALERT, RUN, "resolved", LAST_CANARY + 90_000));

        AlertCheck.Outcome o = AlertCheck.judge(d, RUN, FIRST_CANARY, LAST_CANARY);

        // The latency target is measured and shown, not a pass condition.
        assertThat(o.passed()).isTrue();
        assertThat(o.json().path("detectionTargetMet").asBoolean()).isFalse();
        assertThat(o.lines())
                .anySatisfy(l -> assertThat(l).startsWith("detection 91.0 s").contains("MISSED"));
    }

    @Test
    void notChecked_whenNoSchedule_passesAndSaysWhy() {
        AlertCheck.Outcome o = AlertCheck.notChecked("the rules evaluator's schedule does not run");

        assertThat(o.passed()).isTrue();
        assertThat(o.json().path("checked").asBoolean()).isFalse();
        assertThat(PipelineRun.alertLines(o.json()))
                .containsExactly("alerts    not checked: the rules evaluator's schedule does not run");
    }
}
