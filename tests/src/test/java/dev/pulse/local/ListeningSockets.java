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
package dev.pulse.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The TCP sockets in LISTEN state that belong to given processes, read from /proc (Linux). */
final class ListeningSockets {

    /** One listening socket: its local address as /proc prints it (hex) and the owning PID. */
    record Socket(long pid, String address, int port, boolean loopback) {}

    private ListeningSockets() {}

    static List<Socket> of(List<Long> pids) throws IOException {
        Map<String, Long> inodes = new HashMap<>();
        for (long pid : pids) {
            Path fds = Path.of("/proc", Long.toString(pid), "fd");
            if (!Files.isDirectory(fds)) {
                continue;
            }
            try (Stream<Path> s = Files.list(fds)) {
                for (Path fd : s.toList()) {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) {
                            inodes.put(target.substring(8, target.length() - 1), pid);
                        }
                    } catch (IOException e) {
                        // The descriptor closed while we looked.
                    }
                }
            }
        }
        List<Socket> out = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (!f[3].equals("0A")) {
                    continue;
                }
                Long pid = inodes.get(f[9]);
                if (pid == null) {
                    continue;
                }
                String[] local = f[1].split(":");
                out.add(new Socket(pid, local[0], Integer.parseInt(local[1], 16), loopback(local[0])));
            }
        }
        return out;
    }

    /** 127.0.0.0/8 in /proc's little-endian hex, ::1, or ::ffff:127.x. */
    static boolean loopback(String hex) {
        if (hex.length() == 8) {
            return hex.endsWith("7F");
        }
        return hex.equals("00000000000000000000000001000000")
                || (hex.startsWith("0000000000000000FFFF0000") && hex.endsWith("7F"));
    }
}
