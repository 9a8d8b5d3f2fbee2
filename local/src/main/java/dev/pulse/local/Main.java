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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.emulator.BackendStartException;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.template.Bindings;
import dev.pulse.local.template.FunctionSpec;
import dev.pulse.local.template.SamTemplate;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

/**
 * {@code make run} and {@code make invoke}: the whole pipeline on one machine, or one handler invoked with an
 * event file, both from template.yaml and without Docker.
 */
public final class Main {

    static final String USAGE = """
            usage: pulse-local run [options]      the whole pipeline with a load run and canary check (make run)
                   pulse-local invoke --function <LogicalId> --event <file.json>... [--env NAME=VALUE]... (make invoke)

            run options:
              --rate N            records per second in rate mode (default 500)
              --duration S        seconds of load (default 60)
              --ramp S            linear ramp-up seconds (default 10)
              --source PATH       bundled recording or s3://bucket/key (default events/replay/sample.ndjson.gz)
              --mode rate|recorded  fixed rate, or the recording's own timing (default rate)
              --speed X           recorded mode: replay speed-up (default 60)
              --workers N         load generator workers (default 1)
              --schedule-every S  run the template's schedules (CompactFunction's rollup builds) every S seconds
                                  instead of their rate (default: the rate; 0: never on their own)
              --keep              leave the stack up after the report, until Ctrl-C
              --report FILE       also write the report as JSON (default .local/report.json)
              --ephemeral-ports   listen on free ports instead of 8000/4567/4566/9001/3000
              --no-alert-check    end after the canary check, without waiting for the bundled alert to resolve
            common options:
              --backend NAME      emulators (default: DynamoDB Local, kinesalite, moto) or localstack (LocalStack
                                  in host mode from tools/localstack, installed by make; docs/localstack.md)
              --localstack-url URL  localstack backend: use the LocalStack running there (e.g. in Docker) instead
                                  of starting one
              --localstack-port N   localstack backend: the started LocalStack's gateway port (default 4566)
              --template FILE     template.yaml (default ./template.yaml)
              --param NAME=VALUE  template parameter override (repeatable, like --parameter-overrides)
              --work-dir DIR      build output and function logs (default .local next to the template)
            """;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("help")) {
            (args.isEmpty() ? err : out).print(USAGE);
            return args.isEmpty() ? 2 : 0;
        }
        try {
            return switch (args.get(0)) {
                case "run" -> runPipeline(args.subList(1, args.size()), out);
                case "invoke" -> invoke(args.subList(1, args.size()), out, err);
                default -> throw new UsageException("unknown command: " + args.get(0));
            };
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            err.print(USAGE);
            return 2;
        } catch (BackendStartException e) {
            // Something to install or free outside the program: the one line says what and how.
            err.println("error: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println("error: " + e.getMessage());
            e.printStackTrace(err);
            return 1;
        }
    }

    private static final Set<String> COMMON =
            Set.of("template", "param", "work-dir", "backend", "localstack-url", "localstack-port");

    private static StackOptions stackOptions(Args a) throws UsageException {
        Path template =
                Path.of(a.text("template", "template.yaml")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(template)) {
            throw new UsageException("no template at " + template);
        }
        StackOptions o = StackOptions.defaults(template.getParent()).withParameters(a.pairs("param"));
        if (a.text("work-dir", null) != null) {
            o = o.withWorkDir(Path.of(a.text("work-dir", null)).toAbsolutePath());
        }
        o = o.withBackend(backend(a, template.getParent()));
        if (a.flag("ephemeral-ports")) {
            o = o.withPorts(StackOptions.Ports.EPHEMERAL);
        }
        if (a.text("localstack-port", null) != null) {
            o = o.withPorts(o.ports().withLocalStack((int) a.number("localstack-port", 4566, 1, 65535)));
        }
        return o;
    }

    private static StackOptions.Backend backend(Args a, Path root) throws UsageException {
        String name = a.text("backend", "");
        String url = a.text("localstack-url", "");
        if (name.isEmpty() || name.equals("emulators")) {
            if (!url.isEmpty() || a.text("localstack-port", null) != null) {
                throw new UsageException("--localstack-url and --localstack-port need --backend localstack");
            }
            return StackOptions.Backend.EMULATORS;
        }
        if (!name.equals("localstack")) {
            throw new UsageException("--backend must be emulators or localstack, got " + name);
        }
        if (url.isEmpty()) {
            return StackOptions.Backend.localStack(root.resolve("tools/localstack"), null);
        }
        java.net.URI uri;
        try {
            uri = new java.net.URI(url);
        } catch (java.net.URISyntaxException e) {
            throw new UsageException("--localstack-url must be a URL like http://127.0.0.1:4566, got " + url);
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new UsageException("--localstack-url must be a URL like http://127.0.0.1:4566, got " + url);
        }
        return StackOptions.Backend.localStack(root.resolve("tools/localstack"), uri);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        return Stream.concat(a.stream(), b.stream()).collect(java.util.stream.Collectors.toSet());
    }

    static int runPipeline(List<String> args, PrintStream out) throws Exception {
        Args a = new Args(
                args,
                union(
                        COMMON,
                        Set.of(
                                "rate",
                                "duration",
                                "ramp",
                                "source",
                                "mode",
                                "speed",
                                "workers",
                                "report",
                                "loadgen-function",
                                "schedule-every")),
                Set.of("keep", "ephemeral-ports", "no-alert-check"));
        String mode = a.text("mode", "rate");
        if (!mode.equals("rate") && !mode.equals("recorded")) {
            throw new UsageException("--mode must be rate or recorded, got " + mode);
        }
        StackOptions options = stackOptions(a);
        if (a.text("schedule-every", null) != null) {
            double every = a.number("schedule-every", 0, 0, 86_400);
            options = options.withScheduleEvery(
                    java.time.Duration.ofMillis(every == 0 ? 0 : Math.max(1, Math.round(every * 1000))));
        }
        String loadGen = a.text("loadgen-function", "LoadGenFunction");
        // The load generator keeps 45 s of its timeout for the canary check; the template sets the timeout.
        SamTemplate template = SamTemplate.load(options.template());
        if (!template.resourceIds("AWS::Serverless::Function").contains(loadGen)) {
            throw new UsageException("no function " + loadGen + " in the template (--loadgen-function)");
        }
        double maxDuration = Math.max(
                1,
                template.resolve(options.parameters(), NO_BINDINGS)
                                .function(loadGen)
                                .timeoutSeconds()
                        - 60);
        double duration = a.number("duration", 60, 1, maxDuration);
        double ramp = a.number("ramp", 10, 0, duration);
        int workers = (int) a.number("workers", 1, 1, 100);
        PipelineRun.Config config = new PipelineRun.Config(
                a.text("source", "events/replay/sample.ndjson.gz"),
                mode,
                a.number("rate", 500, 0.001, 1_000_000),
                a.number("speed", 60, 0.001, 1000),
                ramp,
                (long) duration,
                workers,
                loadGen,
                Path.of(a.text(
                        "report", options.workDir().resolve("report.json").toString())),
                !a.flag("no-alert-check"));
        // The coordinator waits for its workers inside one environment: room for all of them at once.
        options = options.withMaxConcurrency(Math.max(options.maxConcurrency(), workers + 2));
        out.println("starting the local stack from " + options.template() + " ...");
        long t0 = System.nanoTime();
        LocalDeployment stack = LocalDeployment.create(options, null);
        // Registered before start-up: a SIGTERM while emulators and JVMs start must stop them too.
        Thread hook = new Thread(stack::close, "local-stack-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            stack.start();
            printEndpoints(stack, out);
            out.printf(
                    "ready in %.1f s; function logs in %s%n",
                    (System.nanoTime() - t0) / 1e9, options.workDir().resolve("logs"));
            var report = new PipelineRun(stack, config, out).run();
            if (a.flag("keep")) {
                out.println();
                out.println("the stack stays up; Ctrl-C stops it. Try:");
                out.println("  curl -s --aws-sigv4 aws:amz:us-east-1:execute-api --user local:local " + stack.apiUrl()
                        + "/series?prefix=");
                out.println(
                        "  AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local aws --region us-east-1 --endpoint-url "
                                + stack.dynamoDbUrl() + " dynamodb scan --table-name " + stack.ref(tableId(stack))
                                + " --max-items 5");
                new CountDownLatch(1).await();
            }
            return report.path("passed").asBoolean() ? 0 : 1;
        } finally {
            stack.close();
            removeHook(hook);
        }
    }

    /** Resolving a function's own settings needs no resource bindings. */
    private static final Bindings NO_BINDINGS = Bindings.unbound("pulse-local");

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook is running or ran.
        }
    }

    private static String tableId(LocalDeployment stack) {
        return stack.template().resourceIds("AWS::DynamoDB::Table").stream()
                .findFirst()
                .orElse("Table");
    }

    static void printEndpoints(LocalDeployment stack, PrintStream out) {
        for (String[] line : stack.backend().describe()) {
            out.printf("  %-15s %s%n", line[0], line[1]);
        }
        out.println("  table           " + stack.ref(tableId(stack)) + streamNames(stack));
        out.println("  queues          " + stack.queueUrls());
        out.println("  Lambda          " + stack.lambdaUrl());
        if (stack.apiUrl() != null) {
            out.println("  HTTP API        " + stack.apiUrl());
        }
        for (MappingRunner m : stack.mappings()) {
            out.println("  mapping         " + m.describe());
        }
        for (ScheduleRunner s : stack.schedules()) {
            out.println("  schedule        " + s.describe());
        }
        if (stack.alertSubscriber() != null) {
            out.println("  alerts          SNS topic -> subscriber "
                    + stack.alertSubscriber().endpoint());
        }
        if (!stack.notEmulated().isEmpty()) {
            out.println("  names only      " + String.join(", ", stack.notEmulated()));
        }
    }

    private static String streamNames(LocalDeployment stack) {
        List<String> streams = stack.template().resourceIds("AWS::Kinesis::Stream").stream()
                .map(stack::ref)
                .toList();
        return streams.isEmpty() ? "" : "   stream " + String.join(", ", streams);
    }

    static int invoke(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args(args, union(COMMON, Set.of("function", "event", "env")), Set.of());
        StackOptions options = stackOptions(a).withPorts(StackOptions.Ports.EPHEMERAL);
        Path root = options.template().getParent();
        String function = a.text("function", "");
        List<String> eventNames = a.all("event");
        List<String> functions = SamTemplate.load(options.template()).resourceIds("AWS::Serverless::Function");
        List<String> events = eventFiles(root);
        if (!functions.contains(function)) {
            throw new UsageException(
                    (function.isEmpty() ? "FUNCTION is required" : "no function " + function + " in the template")
                            + "; valid: " + String.join(", ", functions));
        }
        if (eventNames.isEmpty()) {
            throw new UsageException("EVENT is required; valid: " + String.join(", ", events));
        }
        // Every file is read and parsed before the stack starts, so a typo costs no start-up.
        Map<String, JsonNode> payloads = new LinkedHashMap<>();
        for (String event : eventNames) {
            Path eventFile = root.resolve(event);
            if (!Files.isRegularFile(eventFile)) {
                throw new UsageException("no event file " + event + "; valid: " + String.join(", ", events));
            }
            try {
                payloads.put(event, new ObjectMapper().readTree(Files.readAllBytes(eventFile)));
            } catch (IOException e) {
                throw new UsageException(event + " is not JSON: " + e.getMessage());
            }
        }
        options = options.withEnvironment(a.pairs("env"));
        err.println("starting the local stack for " + function + " ...");
        LocalDeployment stack = LocalDeployment.create(options, (fn, line) -> {
            if (fn.equals(function)) {
                out.println(line);
            }
        });
        Thread hook = new Thread(stack::close, "local-stack-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            stack.start();
            FunctionSpec spec = stack.stack().function(function);
            int status = 0;
            // One stack, one execution environment: the events run in order, as warm invocations after the first.
            for (Map.Entry<String, JsonNode> e : payloads.entrySet()) {
                err.println("invoking " + function + " (" + spec.handler() + ", " + spec.memoryMb() + " MB, "
                        + spec.timeoutSeconds() + " s) with " + e.getKey());
                InvokeResult r = stack.lambda()
                        .invoke(function, e.getValue().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                // One println: the function's log lines come from another thread and must not split the two.
                out.println("--- response to " + e.getKey()
                        + (r.failed() ? " (function error: " + r.functionError() + ")" : "") + " ---\n"
                        + pretty(r.payload()));
                status = r.failed() ? 1 : status;
            }
            return status;
        } finally {
            stack.close();
            removeHook(hook);
        }
    }

    private static String pretty(byte[] payload) {
        ObjectMapper m = new ObjectMapper();
        try {
            return m.writerWithDefaultPrettyPrinter().writeValueAsString(m.readTree(payload));
        } catch (IOException e) {
            return new String(payload, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    static List<String> eventFiles(Path root) throws IOException {
        Path dir = root.resolve("events");
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            // env-*.json are sam local's --env-vars files (events/env-local.json), not events.
            return s.filter(p -> p.toString().endsWith(".json")
                            && !p.getFileName().toString().startsWith("env-"))
                    .map(p -> root.relativize(p).toString())
                    .sorted()
                    .toList();
        }
    }
}
