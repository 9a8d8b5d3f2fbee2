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
package dev.pulse.store.write;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers the compaction marks this warm container has set, so a busy series marks its hour once per container
 * rather than once per batch. A remembered mark is skipped only while no build can have consumed it: the
 * builder touches a period only after it ended plus the grace, so the skip stops {@code horizonMillis} (the
 * longest a write of this invocation may take to land, plus clock skew) before that. Late data for a period
 * past that point always writes its mark. Bounded: past {@code maxRemembered} marks it starts over.
 */
public final class MarkMemory {

    private final Set<String> written = ConcurrentHashMap.newKeySet();
    private final int maxRemembered;
    private final long graceMillis;
    private final long horizonMillis;

    public MarkMemory(int maxRemembered, long graceMillis, long horizonMillis) {
        this.maxRemembered = maxRemembered;
        this.graceMillis = graceMillis;
        this.horizonMillis = horizonMillis;
    }

    /** The marks among {@code marks} that must be written at {@code now}. */
    public List<CompactMarks.Mark> toWrite(Collection<CompactMarks.Mark> marks, long now) {
        List<CompactMarks.Mark> out = new ArrayList<>(marks.size());
        for (CompactMarks.Mark m : marks) {
            boolean safeToSkip = now + horizonMillis < m.periodEnd() + graceMillis;
            if (!safeToSkip || !written.contains(m.id())) {
                out.add(m);
            }
        }
        return out;
    }

    /** Called once the marks are stored. */
    public void remember(Collection<CompactMarks.Mark> marks) {
        if (written.size() + marks.size() > maxRemembered) {
            written.clear();
        }
        for (CompactMarks.Mark m : marks) {
            written.add(m.id());
        }
    }
}
