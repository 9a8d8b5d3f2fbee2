package dev.pulse.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HtmlReportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode data(String html) throws Exception {
        int from = html.indexOf("<script type=\"application/json\" id=\"report-data\">");
        int start = html.indexOf('>', from) + 1;
        return JSON.readTree(html.substring(start, html.indexOf("</script>", start)));
    }

    @Test
    void render_whenSeriesHasGapsAndScriptText_embedsNullsAndKeepsTheScriptElementClosed() throws Exception {
        String html = HtmlReport.create("t").chart(new HtmlReport.Chart("lag", "Lag", "s", "",
                List.of(HtmlReport.Series.perSecond("</script><b>", new double[] {1, Double.NaN, 3})))).render();

        JsonNode series = data(html).path("charts").path("lag").path("series").get(0);
        assertThat(series.path("name").asText()).isEqualTo("</script><b>");
        assertThat(series.path("points").toString()).isEqualTo("[[0.0,1.0],[1.0,null],[2.0,3.0]]");
        assertThat(html).doesNotContain("<b>").contains("data-chart=\"lag\"");
    }

    @Test
    void render_whenAnyContent_fetchesNothing() {
        String html = LoadRunCharts.create("run", JSON.createObjectNode()).render();

        assertThat(html).doesNotContainPattern("(?i)<(link|img|iframe)|\\ssrc=|\\shref=|@import|url\\(");
        assertThat(html).contains("data-chart=\"rate\"", "data-chart=\"put-latency\"", "data-chart=\"canary-freshness\"");
    }

    @Test
    void series_whenLengthsDiffer_throwsNamingTheSeries() {
        assertThatThrownBy(() -> new HtmlReport.Series("lag", new double[2], new double[3]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lag");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Rate", "a b", "x\"y"})
    void chart_whenIdNotLowercaseWord_throws(String id) {
        assertThatThrownBy(() -> new HtmlReport.Chart(id, "t", "u", "", List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chart id");
    }

    @Test
    void create_whenLoadReportHasSecondsWithoutSamples_drawsGapsNotZeros() throws Exception {
        JsonNode load = JSON.readTree("{\"runId\":\"r\",\"targetPerSecond\":[1,2],\"sentPerSecond\":[1,2],"
                + "\"latencyPerSecondMs\":{\"count\":[3,0],\"p50\":[1.5,0],\"p90\":[2,0],\"p99\":[2,0],\"max\":[2,0]},"
                + "\"canary\":{\"verified\":true,\"sent\":2,\"freshnessPerCanaryMs\":[900,-1]}}");

        JsonNode charts = data(LoadRunCharts.create("r", load).render()).path("charts");

        assertThat(charts.path("put-latency").path("series").get(0).path("points").toString()).isEqualTo("[[0.0,1.5],[1.0,null]]");
        assertThat(charts.path("canary-freshness").path("series").get(0).path("points").toString()).isEqualTo("[[0.0,900.0],[1.0,null]]");
        assertThat(charts.path("rate").path("series").get(0).path("name").asText()).isEqualTo("target");
    }
}
