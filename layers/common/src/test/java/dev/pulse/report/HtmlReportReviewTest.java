package dev.pulse.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review of issue 16's HTML load-test report: {@code defect_*} tests assert the CURRENT (wrong)
 * behaviour with the expected one in a comment; {@code holds_*} tests are attacks that failed.
 */
class HtmlReportReviewTest {

    private static final String EVIL = "</script><script>alert('x')</script><!--\"'&<img src=x onerror=alert(1)>";

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
    void holds_hostileNamesEverywhere_cannotBreakOutOfTheirContext() {
        String html = HtmlReport.create(EVIL).summary(EVIL, EVIL)
                .chart(new HtmlReport.Chart("c", EVIL, EVIL, EVIL, List.of(HtmlReport.Series.perSecond(EVIL,
                        new double[] {1, 2}))))
                .render();
        // Only the report's own two script elements open and close; no injected element or comment.
        assertThat(count(html.toLowerCase(), "<script")).isEqualTo(2);
        assertThat(count(html.toLowerCase(), "</script")).isEqualTo(2);
        assertThat(html).doesNotContain("<img").doesNotContain("<!--");
        // In the markup every quote and bracket is an entity ('>' stays inside the JSON, where no '<' can open a tag).
        assertThat(html.substring(0, html.indexOf("<script"))).doesNotContain("onerror=alert(1)>")
                .doesNotContain("'x'").contains("&lt;img src=x onerror=alert(1)&gt;");
        String json = html.substring(html.indexOf("id=\"report-data\">"), html.indexOf("</script>"));
        assertThat(json).doesNotContain("<").contains("\\u003c/script>");
    }

    @Test
    void holds_page_fetchesNothing() {
        String html = HtmlReport.create("run").summary("k", "v").chart(chart("a", "s", 1, 2, 3)).render();
        assertThat(html).doesNotContainIgnoringCase("<link").doesNotContainIgnoringCase(" src=")
                .doesNotContainIgnoringCase("@import").doesNotContainIgnoringCase("url(")
                .doesNotContain("fetch(").doesNotContain("XMLHttpRequest");
        // The one absolute URL is the SVG namespace name, an identifier the browser never loads.
        Matcher m = Pattern.compile("https?://[^\"'\\s)]*").matcher(html);
        while (m.find()) {
            assertThat(m.group()).isEqualTo("http://www.w3.org/2000/svg");
        }
    }

    @Test
    void holds_emptyRunAndEmptyChart_render() {
        assertThat(HtmlReport.create("empty").render()).contains("{\"charts\":{}}");
        String html = HtmlReport.create("r").chart(new HtmlReport.Chart("a", "t", "u", "", List.of()))
                .chart(chart("b", "gaps", Double.NaN, Double.NaN)).render();
        assertThat(html).contains("\"a\":{\"unit\":\"u\",\"series\":[]}").contains("[0.0,null],[1.0,null]");
    }

    /**
     * Severity LOW. Two charts with the same id: the data object is keyed by id, so the second chart's data
     * replaces the first's and both figures draw the second chart (the first chart's series are silently lost).
     * Expected: the second chart with a used id is refused (IllegalArgumentException), as a bad id is.
     */
    @Test
    void holds_duplicateChartId_isRefused() {
        HtmlReport r = HtmlReport.create("r").chart(chart("a", "first", 1));
        assertThatThrownBy(() -> r.chart(chart("a", "second", 2))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("used twice");
        assertThat(count(r.render(), "data-chart=\"a\"")).isEqualTo(1);
    }

    /**
     * Severity LOW. A non-finite x is written by Jackson as the string "NaN"/"Infinity", which report.js feeds to
     * Math.min/max: every coordinate of the chart becomes NaN and nothing is drawn. Expected: Series refuses a
     * non-finite x (as it refuses mismatched lengths) or the point is written as a gap.
     */
    @Test
    void holds_nonFiniteX_isRefused() {
        assertThatThrownBy(() -> new HtmlReport.Series("s", new double[] {0, Double.NaN}, new double[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("x must be finite");
    }
}
