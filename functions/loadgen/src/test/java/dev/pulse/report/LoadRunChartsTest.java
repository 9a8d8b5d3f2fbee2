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
package dev.pulse.report;

import static dev.pulse.report.HtmlReportTest.data;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The load generator's charts, drawn from its JSON answer. */
class LoadRunChartsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void create_whenLoadReportEmpty_drawsEveryLoadChartAndFetchesNothing() {
        String html = LoadRunCharts.create("run", JSON.createObjectNode()).render();

        assertThat(html).doesNotContainPattern("(?i)<(link|img|iframe)|\\ssrc=|\\shref=|@import|url\\(");
        assertThat(html)
                .contains("data-chart=\"rate\"", "data-chart=\"put-latency\"", "data-chart=\"canary-freshness\"");
    }

    @Test
    void create_whenLoadReportHasSecondsWithoutSamples_drawsGapsNotZeros() throws Exception {
        JsonNode load = JSON.readTree("{\"runId\":\"r\",\"targetPerSecond\":[1,2],\"sentPerSecond\":[1,2],"
                + "\"latencyPerSecondMs\":{\"count\":[3,0],\"p50\":[1.5,0],\"p90\":[2,0],\"p99\":[2,0],\"max\":[2,0]},"
                + "\"canary\":{\"verified\":true,\"sent\":2,\"freshnessPerCanaryMs\":[900,-1]}}");

        JsonNode charts = data(LoadRunCharts.create("r", load).render()).path("charts");

        assertThat(charts.path("put-latency")
                        .path("series")
                        .get(0)
                        .path("points")
                        .toString())
                .isEqualTo("[[0.0,1.5],[1.0,null]]");
        assertThat(charts.path("canary-freshness")
                        .path("series")
                        .get(0)
                        .path("points")
                        .toString())
                .isEqualTo("[[0.0,900.0],[1.0,null]]");
        assertThat(charts.path("rate").path("series").get(0).path("name").asText())
                .isEqualTo("target");
    }
}
