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

import java.nio.file.Path;
import java.util.Map;

/** The local stack's options for tests: the repository's template and tools, free ports, a work dir in target/. */
final class LocalDeployments {

    private LocalDeployments() {}

    static Path root() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    static StackOptions options(String name) {
        Path root = root();
        StackOptions d = StackOptions.defaults(root);
        // Two shards: still more than one, but fewer function JVMs than ON_DEMAND's four on a 2-core machine.
        return new StackOptions(
                d.template(),
                Map.of("StreamMode", "PROVISIONED", "StreamShardCount", "2"),
                d.stackName(),
                Path.of("target", name).toAbsolutePath(),
                d.runtimeDir(),
                Path.of(System.getProperty(
                        "pulse.kinesis.dir", root.resolve("tools/kinesis").toString())),
                Path.of(System.getProperty("pulse.moto.bin", d.motoServer().toString())),
                StackOptions.Ports.EPHEMERAL,
                d.maxConcurrency(),
                d.environment(),
                d.faults(),
                d.kinesisStore());
    }

    /** LocalStack's install, made by the Makefile (make test passes {@code pulse.localstack.home}). */
    static Path localStackHome() {
        return Path.of(System.getProperty(
                "pulse.localstack.home", root().resolve("tools/localstack").toString()));
    }

    /** As {@link #options}, on the localstack backend: a LocalStack started from {@link #localStackHome()}. */
    static StackOptions onLocalStack(String name) {
        return options(name).withBackend(StackOptions.Backend.localStack(localStackHome(), null));
    }
}
