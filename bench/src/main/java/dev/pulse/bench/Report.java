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

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a run into docs/benchmarks.md, between the markers {@value #BEGIN} and {@value #END}: the command, the
 * machine, the printed lines, and for each benchmark how to read it with its details. Everything outside the
 * markers (the analysis of misses, the history) is written by hand and kept. The raw figures go to a JSON file
 * beside it.
 */
public final class Report {

    static final String BEGIN = "<!-- make bench: begin (generated; edit outside these markers) -->";
    static final String END = "<!-- make bench: end -->";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Report() {}

    /** The generated part of the document. */
    static String render(
            String command,
            String machine,
            String date,
            String commit,
            List<Benchmark> benches,
            List<Result> results,
            List<Double> seconds,
            double totalSeconds) {
        StringBuilder md = new StringBuilder();
        md.append(BEGIN).append("\n\n");
        md.append("Run: `")
                .append(command)
                .append("` on ")
                .append(date)
                .append(" at commit `")
                .append(commit)
                .append("`  \nMachine: ")
                .append(machine)
                .append("\n\n");
        md.append("```\n");
        results.forEach(r -> md.append(r.line()).append('\n'));
        md.append("```\n\n");
        md.append(wallTimes(results, seconds, totalSeconds));
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            md.append("\n### ").append(r.name()).append("\n\n");
            md.append(benches.get(i).howToRead()).append("\n");
            if (!r.details().isEmpty()) {
                md.append("\n```\n");
                r.details().forEach(d -> md.append(d).append('\n'));
                md.append("```\n");
            }
        }
        md.append("\n").append(END);
        return md.toString();
    }

    /**
     * Each benchmark's wall time and the run's, as a Markdown table: what to shorten when {@code make bench} grows
     * (it is held to 20 minutes with its Maven and sam builds). The total includes the emulators' start and stop.
     */
    static String wallTimes(List<Result> results, List<Double> seconds, double totalSeconds) {
        StringBuilder md = new StringBuilder("| benchmark | wall time |\n|---|---:|\n");
        for (int i = 0; i < results.size(); i++) {
            md.append("| ")
                    .append(results.get(i).name())
                    .append(" | ")
                    .append(duration(seconds.get(i)))
                    .append(" |\n");
        }
        md.append("| **all of the above** (emulators included) | **")
                .append(duration(totalSeconds))
                .append("** |\n");
        return md.toString();
    }

    /** {@code 42 s} below two minutes, {@code 7 min 35 s} above. */
    static String duration(double seconds) {
        long s = Math.round(seconds);
        return s < 120 ? s + " s" : (s / 60) + " min " + (s % 60) + " s";
    }

    /** Replaces the generated part of {@code doc} (or appends it when the markers are missing). */
    static String splice(String doc, String generated) {
        int b = doc.indexOf(BEGIN);
        int e = doc.indexOf(END);
        if (b < 0 || e < b) {
            return doc + (doc.isEmpty() || doc.endsWith("\n") ? "" : "\n") + "\n" + generated + "\n";
        }
        return doc.substring(0, b) + generated + doc.substring(e + END.length());
    }

    static void write(Path markdown, String generated) throws IOException {
        String doc = Files.exists(markdown) ? Files.readString(markdown, StandardCharsets.UTF_8) : "";
        Files.createDirectories(markdown.toAbsolutePath().getParent());
        Files.writeString(markdown, splice(doc, generated), StandardCharsets.UTF_8);
    }

    static void writeJson(
            Path file,
            String command,
            String machine,
            String date,
            String commit,
            List<Result> results,
            List<Double> seconds,
            double totalSeconds)
            throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("command", command).put("machine", machine).put("date", date).put("commit", commit);
        root.put("seconds", Math.round(totalSeconds * 10) / 10.0);
        ObjectNode all = root.putObject("benchmarks");
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            ObjectNode n = all.putObject(r.name());
            n.put("line", r.line());
            n.put("seconds", Math.round(seconds.get(i) * 10) / 10.0);
            if (r.met() != null) {
                n.put("met", r.met());
            }
            ObjectNode v = n.putObject("values");
            r.values().forEach(v::put);
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, JSON.writeValueAsString(root) + "\n", StandardCharsets.UTF_8);
    }
}
