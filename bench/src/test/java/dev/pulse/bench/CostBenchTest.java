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

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CostBenchTest {

    /** Every budgeted unit at its budget. */
    private static Map<String, Double> atBudget() {
        Map<String, Double> v = new HashMap<>();
        CostBench.BUDGETS.forEach(b -> v.put(b.key(), b.budget()));
        return v;
    }

    @Test
    void check_whenEveryUnitAtItsBudget_passesEvery() {
        List<CostBench.Check> checks = CostBench.check(atBudget());

        assertThat(checks).hasSize(CostBench.BUDGETS.size()).allMatch(CostBench.Check::pass);
        assertThat(checks.get(0).line()).startsWith("  PASS partialWruPerDp").contains("0.1050");
    }

    @ParameterizedTest
    @CsvSource({
        "partialWruPerDp, 0.1051",
        "hourlyWruPerSeriesHour, 5",
        "queryRruPerDashboardQuery, 351",
        "partialBytesPerSeriesHour, 18101"
    })
    void check_whenOneUnitAboveItsBudget_failsThatUnitOnly(String key, double value) {
        Map<String, Double> v = atBudget();
        v.put(key, value);

        List<CostBench.Check> failed =
                CostBench.check(v).stream().filter(c -> !c.pass()).toList();

        assertThat(failed).singleElement().satisfies(c -> {
            assertThat(c.budget().key()).isEqualTo(key);
            assertThat(c.line()).startsWith("  FAIL " + key);
        });
    }

    @Test
    void check_whenAUnitWasNotMeasured_failsIt() {
        Map<String, Double> v = atBudget();
        v.remove("queueScanRruPerRun");

        assertThat(CostBench.check(v).stream()
                        .filter(c -> !c.pass())
                        .map(c -> c.budget().key()))
                .containsExactly("queueScanRruPerRun");
    }

    @Test
    void budgets_whenCompared_withTheUnitsOfTheRunAtCd7e23b_allowAboutFivePercent() {
        // The units of the full run at cd7e23b (docs/benchmarks.json, docs/capacity.md): a budget below them would
        // fail every run, one far above them would not catch a regression.
        Map<String, Double> measured = Map.of(
                "partialWruPerDp",
                0.1,
                "hourlyWruPerSeriesHour",
                4.6,
                "hourlyRruPerSeriesHour",
                3.1,
                "queueScanRruPerRun",
                865.97,
                "queryRruPerDashboardQuery",
                332.42,
                "partialBytesPerSeriesHour",
                17_252.52,
                "hourlyBytesPerSeriesHour",
                3_073.34,
                "dailyBytesPerSeriesDay",
                4_899.17);
        for (CostBench.Budget b : CostBench.BUDGETS) {
            if (measured.containsKey(b.key())) {
                assertThat(b.budget() / measured.get(b.key())).as(b.key()).isBetween(1.0, 1.1);
            }
        }
    }
}
