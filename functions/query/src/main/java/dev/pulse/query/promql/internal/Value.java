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

import java.util.List;

/** The value of an expression over all evaluation steps: a scalar or an instant vector. */
public sealed interface Value {

    /** One number per step. */
    record Scalar(double[] values) implements Value {}

    /**
     * Series with a value at some of the steps; {@code ordered} when the order is the answer's (sort, sort_desc, topk,
     * bottomk in an instant query), else the answer is sorted by labels.
     */
    record Vector(List<Series> series, boolean ordered) implements Value {
        public Vector(List<Series> series) {
            this(series, false);
        }
    }
}
