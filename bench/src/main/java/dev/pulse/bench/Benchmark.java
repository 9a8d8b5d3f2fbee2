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
