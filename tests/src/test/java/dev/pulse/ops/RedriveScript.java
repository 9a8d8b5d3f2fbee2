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
package dev.pulse.ops;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Runs scripts/redrive.py with the project venv's python (beside {@code pulse.moto.bin}) against the emulators,
 * the way an operator runs it: AWS_ENDPOINT_URL_* point boto3 at them, nothing else is special.
 */
final class RedriveScript {

    /** Exit status and output of one run. */
    record Run(int status, String out, String err) {

        /** The closing summary line. */
        String summary() {
            return out.lines()
                    .filter(l -> l.startsWith("summary"))
                    .reduce((a, b) -> b)
                    .orElse("");
        }
    }

    private final Map<String, String> env;

    private RedriveScript(Map<String, String> env) {
        this.env = env;
    }

    /** A script talking to Kinesis at {@code kinesis} and SQS (and CloudFormation) at {@code sqs}. */
    static RedriveScript against(URI kinesis, URI sqs) {
        return against(kinesis, sqs, null);
    }

    /** As above, with the Lambda API at {@code lambda} (none if null). */
    static RedriveScript against(URI kinesis, URI sqs, URI lambda) {
        Map<String, String> env = new HashMap<>(Map.of(
                "AWS_ENDPOINT_URL_KINESIS",
                kinesis.toString(),
                "AWS_ENDPOINT_URL_SQS",
                sqs.toString(),
                "AWS_ENDPOINT_URL_CLOUDFORMATION",
                sqs.toString(),
                "AWS_ACCESS_KEY_ID",
                "local",
                "AWS_SECRET_ACCESS_KEY",
                "local",
                "AWS_DEFAULT_REGION",
                "us-east-1"));
        if (lambda != null) {
            env.put("AWS_ENDPOINT_URL_LAMBDA", lambda.toString());
        }
        return new RedriveScript(Map.copyOf(env));
    }

    static Path repoRoot() {
        return Path.of(System.getProperty("pulse.repo.root", ".."))
                .toAbsolutePath()
                .normalize();
    }

    static Path python() {
        Path bin = Path.of(System.getProperty("pulse.moto.bin", ""));
        Path python = bin.toAbsolutePath().getParent().resolve("python");
        if (!Files.isExecutable(python)) {
            throw new IllegalStateException(
                    "no python beside pulse.moto.bin (" + bin + "): run the tests with `make test`");
        }
        return python;
    }

    /** scripts/redrive.py with {@code args}. */
    Run redrive(String... args) {
        List<String> command = new ArrayList<>(List.of(
                python().toString(), repoRoot().resolve("scripts/redrive.py").toString()));
        command.addAll(List.of(args));
        return exec(command);
    }

    /** {@code python -c code args...} in the same environment (boto3 calls a test needs that Java has no client for). */
    Run python(String code, String... args) {
        List<String> command = new ArrayList<>(List.of(python().toString(), "-c", code));
        command.addAll(List.of(args));
        return exec(command);
    }

    private Run exec(List<String> command) {
        ProcessBuilder pb = new ProcessBuilder(command).directory(repoRoot().toFile());
        // Only what the test sets: no endpoint, profile or region of the machine's own leaks in.
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
        pb.environment().putAll(env);
        // The pipes are read on threads of their own, not the common pool: a test may serve the script's calls in
        // this JVM (LambdaInvokeServer), and the functions' async code needs the common pool, which has a single
        // worker on a two-core machine.
        try (ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor()) {
            Process p = pb.start();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()), readers);
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()), readers);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new IllegalStateException(command + " did not finish in 120 s");
            }
            Run r = new Run(p.exitValue(), out.join(), err.join());
            System.out.println("$ " + String.join(" ", command.subList(1, command.size())) + "\n" + r.out() + r.err()
                    + "exit " + r.status());
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
