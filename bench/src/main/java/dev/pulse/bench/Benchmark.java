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

/** One line of {@code make bench}: a measurement of a hot path against its baseline, run in the same process. */
public interface Benchmark {

    /** The name on the printed line and the {@code --only} selector. */
    String name();

    /** One paragraph for docs/benchmarks.md: what is measured against what, and how to read the figure. */
    String howToRead();

    /** Runs the benchmark, bounded to a few minutes ({@code env.quick()}: seconds, for a smoke run). */
    Result run(BenchEnv env) throws Exception;
}
