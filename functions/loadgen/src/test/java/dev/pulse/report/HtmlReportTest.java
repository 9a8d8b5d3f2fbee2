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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The page HtmlReport renders: its embedded data, what it fetches, and what it refuses to draw. */
class HtmlReportTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Text that would end the data script, open an element or a comment, or leave an attribute if not escaped. */
    private static final String HOSTILE = "</script><script>alert('x')</script><!--\"'&<img src=x onerror=alert(1)>";

    static JsonNode data(String html) throws Exception {
        int from = html.indexOf("<script type=\"application/json\" id=\"report-data\">");
        int start = html.indexOf('>', from) + 1;
        return JSON.readTree(html.substring(start, html.indexOf("</script>", start)));
    }

    private static HtmlReport.Chart chart(String id, String name, double... y) {
        return new HtmlReport.Chart(id, "t " + id, "u", "", List.of(HtmlReport.Series.perSecond(name, y)));
    }

    private static int count(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void render_whenSeriesHasGapsAndScriptText_embedsNullsAndKeepsTheScriptElementClosed() throws Exception {
        String html = HtmlReport.create("t")
                .chart(new HtmlReport.Chart(
                        "lag", "Lag", "s", "", List.of(HtmlReport.Series.perSecond("</script><b>", new double[] {
                            1, Double.NaN, 3
                        }))))
                .render();

        JsonNode series = data(html).path("charts").path("lag").path("series").get(0);
        assertThat(series.path("name").asText()).isEqualTo("</script><b>");
        assertThat(series.path("points").toString()).isEqualTo("[[0.0,1.0],[1.0,null],[2.0,3.0]]");
        assertThat(html).doesNotContain("<b>").contains("data-chart=\"lag\"");
    }

    @Test
    void render_whenEveryTextIsHostile_opensNoElementAndLeavesNoContext() {
        String html = HtmlReport.create(HOSTILE)
                .summary(HOSTILE, HOSTILE)
                .chart(new HtmlReport.Chart(
                        "c", HOSTILE, HOSTILE, HOSTILE, List.of(HtmlReport.Series.perSecond(HOSTILE, new double[] {1, 2
                        }))))
                .render();

        // Only the report's own two script elements open and close; no injected element or comment.
        assertThat(count(html.toLowerCase(), "<script")).isEqualTo(2);
        assertThat(count(html.toLowerCase(), "</script")).isEqualTo(2);
        assertThat(html).doesNotContain("<img").doesNotContain("<!--");
        // In the markup every quote and bracket is an entity ('>' stays inside the JSON, where no '<' can open a tag).
        assertThat(html.substring(0, html.indexOf("<script")))
                .doesNotContain("onerror=alert(1)>")
                .doesNotContain("'x'")
                .contains("&lt;img src=x onerror=alert(1)&gt;");
        String json = html.substring(html.indexOf("id=\"report-data\">"), html.indexOf("</script>"));
        assertThat(json).doesNotContain("<").contains("\\u003c/script>");
    }

    @Test
    void render_whenAnyContent_fetchesNothing() {
        String html = HtmlReport.create("run")
                .summary("k", "v")
                .chart(chart("a", "s", 1, 2, 3))
                .render();

        assertThat(html)
                .doesNotContainPattern("(?i)<(link|img|iframe)|\\ssrc=|\\shref=|@import|url\\(")
                .doesNotContain("fetch(")
                .doesNotContain("XMLHttpRequest");
        // The one absolute URL is the SVG namespace name, an identifier the browser never loads.
        Matcher m = Pattern.compile("https?://[^\"'\\s)]*").matcher(html);
        while (m.find()) {
            assertThat(m.group()).isEqualTo("http://www.w3.org/2000/svg");
        }
    }

    @Test
    void render_whenRunOrChartEmpty_rendersEmptyData() {
        assertThat(HtmlReport.create("empty").render()).contains("{\"charts\":{}}");
        String html = HtmlReport.create("r")
                .chart(new HtmlReport.Chart("a", "t", "u", "", List.of()))
                .chart(chart("b", "gaps", Double.NaN, Double.NaN))
                .render();
        assertThat(html).contains("\"a\":{\"unit\":\"u\",\"series\":[]}").contains("[0.0,null],[1.0,null]");
    }

    @Test
    void chart_whenIdUsedTwice_throwsAndKeepsTheFirst() {
        // The data are keyed by chart id: a second chart with the same id would replace the first one's series.
        HtmlReport r = HtmlReport.create("r").chart(chart("a", "first", 1));

        assertThatThrownBy(() -> r.chart(chart("a", "second", 2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("used twice");
        assertThat(count(r.render(), "data-chart=\"a\"")).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Rate", "a b", "x\"y"})
    void chart_whenIdNotLowercaseWord_throws(String id) {
        assertThatThrownBy(() -> new HtmlReport.Chart(id, "t", "u", "", List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("chart id");
    }

    @Test
    void series_whenLengthsDiffer_throwsNamingTheSeries() {
        assertThatThrownBy(() -> new HtmlReport.Series("lag", new double[2], new double[3]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lag");
    }

    @Test
    void series_whenXNotFinite_throws() {
        // Written as the string "NaN", a non-finite x would make every coordinate of the chart NaN in the browser.
        assertThatThrownBy(() -> new HtmlReport.Series("s", new double[] {0, Double.NaN}, new double[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("x must be finite");
    }
}
