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
package dev.pulse.bench.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JDK Flight Recorder profile of a workload in this process: CPU samples every 10 ms, summarised as the
 * methods that were on top of the stack (self time) and the project methods that were on the stack (total
 * time). Used when a benchmark misses its target, to show where the time went.
 */
public final class JfrProfile {

    private static final int TOP = 12;

    private JfrProfile() {}

    /** A workload that may throw. */
    public interface Workload {
        void run() throws Exception;
    }

    /**
     * Runs {@code workload} under a recording and returns the summary lines; the raw recording is kept at
     * {@code keepAt} (open it with JDK Mission Control or {@code jfr print}) when that is not null.
     */
    public static List<String> profile(String label, Workload workload, Path keepAt) throws Exception {
        return profile(label, workload, keepAt, List.of("dev.pulse."));
    }

    /** As above, listing the methods of {@code packages} (name prefixes) in the "total" part. */
    public static List<String> profile(String label, Workload workload, Path keepAt, List<String> packages)
            throws Exception {
        Path file = keepAt != null ? keepAt : Files.createTempFile("pulse-bench-", ".jfr");
        if (keepAt != null) {
            Files.createDirectories(keepAt.toAbsolutePath().getParent());
        }
        try (Recording r = new Recording()) {
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            r.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(20));
            r.start();
            workload.run();
            r.stop();
            r.dump(file);
        }
        try {
            return summarise(label, file, keepAt != null, packages);
        } finally {
            if (keepAt == null) {
                Files.deleteIfExists(file);
            }
        }
    }

    static List<String> summarise(String label, Path file, boolean kept, List<String> packages) throws Exception {
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> total = new HashMap<>();
        int samples = 0;
        int nativeSamples = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            RecordedStackTrace st = e.getStackTrace();
            if (st == null || st.getFrames().isEmpty()) {
                continue;
            }
            boolean isNative = e.getEventType().getName().equals("jdk.NativeMethodSample");
            if (isNative) {
                nativeSamples++;
                continue;
            }
            samples++;
            List<RecordedFrame> frames = st.getFrames();
            self.merge(name(frames.get(0)), 1, Integer::sum);
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (RecordedFrame f : frames) {
                String n = name(f);
                if (packages.stream().anyMatch(n::startsWith) && !n.startsWith("dev.pulse.bench.") && seen.add(n)) {
                    total.merge(n, 1, Integer::sum);
                }
            }
        }
        List<String> out = new ArrayList<>();
        out.add("JFR profile of " + label + ": " + samples + " CPU samples (10 ms), " + nativeSamples
                + " samples of threads in native code (I/O waits)" + (kept ? ", recording kept at " + file : ""));
        out.add("top of stack (self):");
        top(self, samples).forEach(l -> out.add("  " + l));
        out.add("methods of " + String.join(", ", packages) + " on the stack (total):");
        top(total, samples).forEach(l -> out.add("  " + l));
        return out;
    }

    private static List<String> top(Map<String, Integer> counts, int samples) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(TOP)
                .map(e -> String.format(
                        Locale.ROOT, "%5.1f%%  %s", 100.0 * e.getValue() / Math.max(1, samples), e.getKey()))
                .toList();
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }
}
