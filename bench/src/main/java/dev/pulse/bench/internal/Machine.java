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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A one-line description of the machine a run was measured on. */
public final class Machine {

    private Machine() {}

    public static String describe() {
        String cpu = firstValue(Path.of("/proc/cpuinfo"), "model name");
        String mem = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        // The collector decides the tail of the in-process handler measurements (Makefile, BENCH_JVM).
        String gc = String.join(
                " + ",
                java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(java.lang.management.GarbageCollectorMXBean::getName)
                        .toList());
        return "%s, %d cores available to the JVM, %s RAM, %s %s, JDK %s (%s), collectors %s"
                .formatted(
                        cpu == null ? System.getProperty("os.arch") : cpu,
                        Runtime.getRuntime().availableProcessors(),
                        mem == null
                                ? "?"
                                : Math.round(Long.parseLong(mem.replaceAll("[^0-9]", "")) / 1024.0 / 1024.0) + " GiB",
                        System.getProperty("os.name"),
                        System.getProperty("os.version"),
                        System.getProperty("java.runtime.version"),
                        System.getProperty("java.vm.name"),
                        gc);
    }

    private static String firstValue(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (String l : lines) {
                if (l.startsWith(key)) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // Not Linux: the caller falls back.
        }
        return null;
    }
}
