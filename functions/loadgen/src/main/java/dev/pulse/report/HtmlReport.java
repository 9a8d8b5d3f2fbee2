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

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A self-contained HTML page of a run: a summary table and line charts over the run's seconds. The page fetches
 * nothing: the data sit in the page as JSON and a small inline script draws each chart as SVG when the page
 * opens, so the file can be mailed, stored in S3 or opened offline. Written here rather than with a charting
 * library because every one we could embed is larger than the whole report, and a CDN link breaks offline use.
 *
 * <p>Each chart is a {@code <figure class="chart" data-chart="id">}; after drawing, each series with data is a
 * {@code <path class="series" data-series="name" data-points="n">} (the Chromium test counts them).
 */
public final class HtmlReport {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One line of a chart: {@code y[i]} at {@code x[i]} seconds after the run's start; a NaN y is a gap.
     *
     * @param name legend label
     * @param x    seconds since the start
     * @param y    values, same length as {@code x}
     */
    public record Series(String name, double[] x, double[] y) {

        public Series {
            if (x.length != y.length) {
                throw new IllegalArgumentException(
                        "series " + name + ": " + x.length + " x values, " + y.length + " y values");
            }
            for (double v : x) {
                if (!Double.isFinite(v)) {
                    // The page would compute NaN coordinates and draw nothing; a gap is a NaN y, not a NaN x.
                    throw new IllegalArgumentException("series " + name + ": x must be finite, got " + v);
                }
            }
        }

        /** Values at seconds 0, 1, 2, ... */
        public static Series perSecond(String name, double[] y) {
            double[] x = new double[y.length];
            for (int i = 0; i < x.length; i++) {
                x[i] = i;
            }
            return new Series(name, x, y);
        }

        /** Values at seconds 0, 1, 2, ... */
        public static Series perSecond(String name, long[] y) {
            double[] d = new double[y.length];
            for (int i = 0; i < d.length; i++) {
                d[i] = y[i];
            }
            return perSecond(name, d);
        }

        int points() {
            int n = 0;
            for (double v : y) {
                n += Double.isFinite(v) ? 1 : 0;
            }
            return n;
        }
    }

    /**
     * A line chart.
     *
     * @param id     stable identifier (letters, digits, '-'), the figure's {@code data-chart}
     * @param title  caption
     * @param unit   y axis unit, e.g. {@code records/s}
     * @param note   one sentence under the chart saying how the numbers were taken (may be empty)
     * @param series its lines
     */
    public record Chart(String id, String title, String unit, String note, List<Series> series) {

        public Chart {
            if (!id.matches("[a-z0-9-]+")) {
                throw new IllegalArgumentException("chart id must be lowercase letters, digits and '-': " + id);
            }
            series = List.copyOf(series);
        }
    }

    private final String title;
    private final Map<String, String> summary = new LinkedHashMap<>();
    private final List<Chart> charts = new ArrayList<>();

    private HtmlReport(String title) {
        this.title = title;
    }

    public static HtmlReport create(String title) {
        return new HtmlReport(title);
    }

    /** A row of the summary table, in insertion order. */
    public HtmlReport summary(String key, String value) {
        summary.put(key, value);
        return this;
    }

    public HtmlReport chart(Chart chart) {
        // The page's data is keyed by id: a second chart of the same id would replace the first's series.
        if (charts.stream().anyMatch(c -> c.id().equals(chart.id()))) {
            throw new IllegalArgumentException("chart id used twice: " + chart.id());
        }
        charts.add(chart);
        return this;
    }

    public List<Chart> charts() {
        return List.copyOf(charts);
    }

    /** The page, UTF-8. */
    public String render() {
        StringBuilder html = new StringBuilder(8_192);
        html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
                .append(escape(title))
                .append("</title>\n<style>")
                .append(resource("report.css"))
                .append("</style></head>\n<body>\n<h1>")
                .append(escape(title))
                .append("</h1>\n<table class=\"summary\">\n");
        summary.forEach((k, v) -> html.append("<tr><th>")
                .append(escape(k))
                .append("</th><td>")
                .append(escape(v))
                .append("</td></tr>\n"));
        html.append("</table>\n<div class=\"charts\">\n");
        for (Chart c : charts) {
            html.append("<figure class=\"chart\" data-chart=\"")
                    .append(c.id())
                    .append("\"><figcaption>")
                    .append(escape(c.title()))
                    .append(" <span class=\"unit\">(")
                    .append(escape(c.unit()))
                    .append(")</span></figcaption><svg viewBox=\"0 0 640 260\" role=\"img\" aria-label=\"")
                    .append(escape(c.title()))
                    .append("\"></svg>");
            if (!c.note().isEmpty()) {
                html.append("<p class=\"note\">").append(escape(c.note())).append("</p>");
            }
            html.append("</figure>\n");
        }
        html.append("</div>\n<script type=\"application/json\" id=\"report-data\">")
                .append(data())
                .append("</script>\n<script>")
                .append(resource("report.js"))
                .append("</script>\n</body></html>\n");
        return html.toString();
    }

    private String data() {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode byId = root.putObject("charts");
        for (Chart c : charts) {
            ObjectNode n = byId.putObject(c.id());
            n.put("unit", c.unit());
            ArrayNode series = n.putArray("series");
            for (Series s : c.series()) {
                ObjectNode sn = series.addObject();
                sn.put("name", s.name());
                ArrayNode points = sn.putArray("points");
                for (int i = 0; i < s.x().length; i++) {
                    ArrayNode p = points.addArray().add(s.x()[i]);
                    if (Double.isFinite(s.y()[i])) {
                        p.add(s.y()[i]);
                    } else {
                        p.addNull();
                    }
                }
            }
        }
        try {
            // "</script" or "<!--" in a name would end or change the script element: no '<' at all (JSON's \\u003c).
            return JSON.writeValueAsString(root).replace("<", "\\u003c");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("report data not serializable", e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource dev/pulse/report/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
