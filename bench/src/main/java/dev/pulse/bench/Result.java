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

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one benchmark measured: its figure, the baseline measured beside it in the same run, their ratio, and
 * the target it is held to. {@link #line()} is the one line {@code make bench} prints.
 *
 * @param name     the benchmark's name ({@code ingest-decode}, ...)
 * @param figure   what the product achieved, with its unit ({@code "812,000 datapoints/s"})
 * @param baseline what the baseline achieved, with what it is ({@code "2,100,000 datapoints/s tokenizer only"})
 * @param ratio    the ratio as printed ({@code "34.1x"}, {@code "1.004"})
 * @param target   the target, in words ({@code ">= 10x"}), or empty when there is none
 * @param met      whether the target was met; null when there is none
 * @param details  further lines for docs/benchmarks.md (spreads, sub-figures, the profile when a target is missed)
 * @param values   the raw figures by name, for docs/benchmarks.json
 */
public record Result(
        String name,
        String figure,
        String baseline,
        String ratio,
        String target,
        Boolean met,
        List<String> details,
        Map<String, Double> values) {

    public Result {
        details = List.copyOf(details);
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** {@code name: figure (baseline figure, ratio)}, then the target and whether it was met. */
    public String line() {
        String out = name + ": " + figure + " (baseline " + baseline + ", " + ratio + ")";
        if (!target.isEmpty()) {
            out += "; target " + target + ": " + (met == null ? "n/a" : met ? "met" : "MISSED");
        }
        return out;
    }

    /** This result with {@code more} appended to its details. */
    public Result withDetails(List<String> more) {
        List<String> all = new ArrayList<>(details);
        all.addAll(more);
        return new Result(name, figure, baseline, ratio, target, met, all, values);
    }
}
