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
package dev.pulse.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;

/**
 * Headless Chromium (system property {@code pulse.chromium.bin}, installed by {@code make test} through
 * scripts/install-chromium.sh) opening a local HTML file: the DOM after the page's scripts ran, as jsoup reads
 * it. Each call is its own browser process with a throwaway profile, stopped through its handle.
 */
public final class Chromium {

    private Chromium() {}

    /** The DOM of {@code html} once loaded (its inline scripts have run). */
    public static Document dumpDom(Path html) throws IOException, InterruptedException {
        String dom = run(html, "--dump-dom");
        return Jsoup.parse(dom, html.toUri().toString());
    }

    /** A PNG of {@code html} rendered at {@code width} x {@code height} CSS pixels. */
    public static void screenshot(Path html, Path png, int width, int height) throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        run(html, "--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height, "--hide-scrollbars");
        if (!Files.isRegularFile(png) || Files.size(png) == 0) {
            throw new IllegalStateException("chromium wrote no screenshot to " + png);
        }
    }

    private static String run(Path html, String... args) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("pulse-chromium");
        List<String> cmd = new ArrayList<>(List.of(
                binary().toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-extensions",
                "--mute-audio",
                "--user-data-dir=" + profile));
        cmd.addAll(List.of(args));
        cmd.add(html.toAbsolutePath().toUri().toString());
        Path out = profile.resolve("stdout");
        Path err = profile.resolve("stderr");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("chromium did not finish in 60 s: " + cmd);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        "chromium exited " + p.exitValue() + ": " + Files.readString(err, StandardCharsets.UTF_8));
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            deleteTree(profile);
        }
    }

    private static Path binary() {
        String bin = System.getProperty("pulse.chromium.bin");
        if (bin == null || !Files.isExecutable(Path.of(bin))) {
            throw new IllegalStateException("no chromium at -Dpulse.chromium.bin=" + bin
                    + ": make test installs it (scripts/install-chromium.sh tools/chromium)");
        }
        return Path.of(bin);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        }
    }
}
