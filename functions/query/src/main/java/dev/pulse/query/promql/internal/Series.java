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
package dev.pulse.query.promql.internal;

import java.util.SortedMap;

/**
 * One series of an instant-vector result: its labels and a value per evaluation step; {@code present[i]} says
 * whether step {@code i} has a value (a NaN from arithmetic is a value, as in Prometheus; an empty window is not).
 */
public record Series(SortedMap<String, String> labels, double[] values, boolean[] present) {

    boolean isEmpty() {
        for (boolean p : present) {
            if (p) {
                return false;
            }
        }
        return true;
    }
}
