package dev.pulse.retry;

/** Jitter's package-private state for tests in other packages. */
public final class JitterAccess {

    private JitterAccess() {
    }

    public static long seeder() {
        return Jitter.seeder();
    }
}
