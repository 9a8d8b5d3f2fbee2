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

import dev.pulse.testing.Chromium;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report page's inline script, run by headless Chromium: one SVG path per series with data, as many points as
 * the data has (a NaN or a stalled sampling is a gap, not a line), an empty series says so, text from the data cannot inject markup,
 * and the page loads nothing from anywhere.
 */
class HtmlReportChromiumIT {

    @TempDir
    Path dir;

    @Test
    void render_whenOpenedInChromium_drawsOnePathPerSeriesWithItsPointsAndGaps() throws Exception {
        double[] withGap = {5, 6, Double.NaN, 8, 9, 10, 11, 12, 13, 14};
        HtmlReport report = HtmlReport.create("Run </script><b id=\"injected\">x</b>")
                .summary("run", "r-1 <i id=\"injected-summary\">")
                .chart(new HtmlReport.Chart(
                        "rate",
                        "Rate",
                        "records/s",
                        "a note",
                        List.of(
                                HtmlReport.Series.perSecond(
                                        "target", new long[] {0, 10, 20, 30, 40, 50, 50, 50, 50, 50}),
                                HtmlReport.Series.perSecond("achieved </script>", withGap))))
                .chart(new HtmlReport.Chart(
                        "empty", "Nothing yet", "ms", "", List.of(HtmlReport.Series.perSecond("p99", new double[] {
                            Double.NaN, Double.NaN
                        }))))
                .chart(new HtmlReport.Chart(
                        "single", "One point", "ms", "", List.of(HtmlReport.Series.perSecond("v", new double[] {42}))))
                .chart(new HtmlReport.Chart(
                        "stalled",
                        "Sampling stalled",
                        "s",
                        "",
                        List.of(new HtmlReport.Series(
                                "lag", new double[] {1, 2, 3, 4, 20, 21, 22}, new double[] {1, 1, 2, 2, 3, 3, 3}))));
        Path html = dir.resolve("report.html");
        Files.writeString(html, report.render(), StandardCharsets.UTF_8);

        Document dom = Chromium.dumpDom(html);

        assertThat(dom.body().attr("data-rendered")).isEqualTo("4");
        List<Element> rate = dom.select("figure[data-chart=rate] path.series");
        assertThat(rate).extracting(e -> e.attr("data-series")).containsExactly("target", "achieved </script>");
        assertThat(rate).extracting(e -> e.attr("data-points")).containsExactly("10", "9");
        // One move per unbroken run of points, one line command per further point.
        assertThat(commands(rate.get(0).attr("d"), 'M')).isEqualTo(1);
        assertThat(commands(rate.get(0).attr("d"), 'L')).isEqualTo(9);
        assertThat(commands(rate.get(1).attr("d"), 'M')).isEqualTo(2);
        assertThat(commands(rate.get(1).attr("d"), 'L')).isEqualTo(7);
        assertThat(dom.select("figure[data-chart=empty] path.series")).isEmpty();
        assertThat(dom.select("figure[data-chart=empty] text.empty").text()).isEqualTo("no data");
        assertThat(dom.select("figure[data-chart=single] path.series").attr("data-points"))
                .isEqualTo("1");
        assertThat(dom.select("figure[data-chart=single] circle")).hasSize(1);
        // A step far longer than the usual one (4 s to 20 s here) breaks the line instead of bridging it.
        String stalled = dom.select("figure[data-chart=stalled] path.series").attr("d");
        assertThat(commands(stalled, 'M')).isEqualTo(2);
        assertThat(commands(stalled, 'L')).isEqualTo(5);
        // Text from the data stays text.
        assertThat(dom.select("#injected, #injected-summary")).isEmpty();
        assertThat(dom.select("h1").text()).isEqualTo("Run </script><b id=\"injected\">x</b>");
        // Self-contained: nothing to fetch.
        assertThat(dom.select("[src], [href], link, iframe, img")).isEmpty();
    }

    private static long commands(String d, char c) {
        return d.chars().filter(ch -> ch == c).count();
    }
}
