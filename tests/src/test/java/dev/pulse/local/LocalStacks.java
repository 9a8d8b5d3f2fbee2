package dev.pulse.local;

import java.nio.file.Path;

/** The local stack's options for tests: the repository's template and tools, free ports, a work dir in target/. */
final class LocalStacks {

    private LocalStacks() {
    }

    static Path root() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    static StackOptions options(String name) {
        Path root = root();
        StackOptions d = StackOptions.defaults(root);
        return new StackOptions(d.template(), d.parameters(), d.stackName(), Path.of("target", name).toAbsolutePath(),
                d.runtimeDir(), Path.of(System.getProperty("pulse.kinesis.dir", root.resolve("tools/kinesis").toString())),
                Path.of(System.getProperty("pulse.moto.bin", d.motoServer().toString())), StackOptions.Ports.EPHEMERAL,
                d.maxConcurrency(), d.environment());
    }
}
