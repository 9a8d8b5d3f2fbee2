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

import dev.pulse.bench.internal.Machine;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code make bench}: runs the benchmarks in order, prints one line each ({@code name: figure (baseline figure,
 * ratio)}), and writes docs/benchmarks.md and its JSON. Exit 0 when every benchmark ran (a missed target is
 * reported, not an error), 1 when one failed, 2 on a usage error.
 */
public final class BenchMain {

    static final String USAGE = """
            usage: bench [--only NAME[,NAME...]] [--quick] [--out FILE.md] [--json FILE.json]
                         [--root DIR] [--kinesis-dir DIR] [--moto-bin FILE] [--command TEXT]
              --only         run these benchmarks only (default: all, in order): %s
              --quick        a smoke run in seconds; the figures mean nothing
              --out          the Markdown file whose generated part is replaced (default: none, print only)
              --json         the raw figures (default: none)
              --root         the repository (default: .)
              --kinesis-dir  kinesalite's install (default: ROOT/tools/kinesis)
              --moto-bin     moto_server (default: ROOT/.venv/bin/moto_server)
              --command      the command line recorded in the report (default: make bench)""";

    static {
        // The JDK's HTTP server flushes a response's headers before its body; without TCP_NODELAY the body waits
        // for the client's delayed ACK, and every local endpoint (the Kinesis sink, the Lambda Runtime API, the
        // local HTTP API) adds tens of milliseconds to a call. Read once, when the first server starts.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private BenchMain() {}

    /** Every benchmark, in the order of the issue and of the printed lines. */
    static List<Benchmark> all() {
        return List.of(
                new IngestDecodeBench(),
                new IngestEndToEndBench(),
                new QueryBench(),
                new RulesBench(RulesBench.Line.THROUGHPUT),
                new RulesBench(RulesBench.Line.DETECTION),
                new MetricsBench(),
                new ClientMetricsBench(),
                new LoadGenBench(),
                new PushBench(),
                new FreshnessBench(),
                new ColdStartBench(),
                new JvmOptionsBench(),
                new MemoryBench(),
                new CostBench());
    }

    public static void main(String[] args) throws Exception {
        if (!"Local".equals(System.getenv("AWS_EMF_ENVIRONMENT"))) {
            System.exit(relaunch(args));
        }
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the harness again in a child JVM whose environment makes the functions' EMF documents go to stdout
     * (where the benchmarks check and count them) rather than to a CloudWatch agent socket, as they go to the
     * log pipe in Lambda. The environment of a running JVM cannot be changed, hence the child; it inherits the
     * console and its exit status is passed on.
     */
    private static int relaunch(String[] args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
        pb.environment().put("AWS_EMF_ENVIRONMENT", "Local");
        pb.environment().putIfAbsent("AWS_REGION", "us-east-1");
        Process child = pb.start();
        // Ctrl-C reaches the child through the terminal; a kill of this JVM must not orphan it.
        Thread stop = new Thread(child::destroy);
        Runtime.getRuntime().addShutdownHook(stop);
        int status = child.waitFor();
        Runtime.getRuntime().removeShutdownHook(stop);
        return status;
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, String> opts;
        List<Benchmark> selected;
        try {
            opts = parse(args);
            selected = select(opts.get("--only"));
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            err.println(usage());
            return 2;
        }
        Path root = Path.of(opts.getOrDefault("--root", ".")).toAbsolutePath().normalize();
        boolean quick = opts.containsKey("--quick");
        String command = opts.getOrDefault("--command", "make bench");
        List<Result> results = new ArrayList<>();
        List<Double> seconds = new ArrayList<>();
        long runStarted = System.nanoTime();
        int status = 0;
        try (BenchEnv env = new BenchEnv(
                root,
                quick,
                // Absolute: the emulators run in other working directories.
                Path.of(opts.getOrDefault(
                                "--kinesis-dir", root.resolve("tools/kinesis").toString()))
                        .toAbsolutePath(),
                Path.of(opts.getOrDefault(
                                "--moto-bin",
                                root.resolve(".venv/bin/moto_server").toString()))
                        .toAbsolutePath())) {
            for (Benchmark b : selected) {
                err.println("bench: running " + b.name() + (quick ? " (quick)" : ""));
                long started = System.nanoTime();
                Result r;
                try {
                    r = b.run(env);
                } catch (Exception | AssertionError e) {
                    status = 1;
                    e.printStackTrace(err);
                    r = new Result(b.name(), "FAILED: " + e, "n/a", "n/a", "", null, List.of(), Map.of());
                }
                double took = (System.nanoTime() - started) / 1e9;
                results.add(r);
                seconds.add(took);
                out.println(r.line());
                out.flush();
                err.println("bench: %s took %.0f s".formatted(b.name(), took));
            }
        }
        // The whole run, emulators' start and stop included: what make bench costs on top of its Maven and sam builds.
        double total = (System.nanoTime() - runStarted) / 1e9;
        Report.wallTimes(results, seconds, total).lines().forEach(l -> err.println("bench: " + l));
        String machine = Machine.describe();
        String date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        String commit = commit(root);
        try {
            if (opts.containsKey("--out")) {
                Report.write(
                        Path.of(opts.get("--out")),
                        Report.render(command, machine, date, commit, selected, results, seconds, total));
            }
            if (opts.containsKey("--json")) {
                Report.writeJson(Path.of(opts.get("--json")), command, machine, date, commit, results, seconds, total);
            }
        } catch (IOException e) {
            err.println("bench: cannot write the report: " + e);
            return 1;
        }
        return status;
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> opts.put(a, "true");
                case "--only", "--out", "--json", "--root", "--kinesis-dir", "--moto-bin", "--command" -> {
                    if (i + 1 >= args.length || args[i + 1].isBlank()) {
                        throw new IllegalArgumentException(a + " needs a value");
                    }
                    opts.put(a, args[++i]);
                }
                default -> throw new IllegalArgumentException("unknown argument: " + a);
            }
        }
        return opts;
    }

    static List<Benchmark> select(String only) {
        List<Benchmark> all = all();
        if (only == null) {
            return all;
        }
        List<Benchmark> out = new ArrayList<>();
        for (String name : only.split(",", -1)) {
            if (name.isBlank()) {
                continue; // "a,,b" or a trailing comma names no benchmark
            }
            Benchmark b = all.stream()
                    .filter(x -> x.name().equals(name.trim()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no benchmark named '" + name.trim() + "'"));
            if (!out.contains(b)) {
                out.add(b);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--only names no benchmark");
        }
        return out;
    }

    static String usage() {
        return USAGE.formatted(
                String.join(", ", all().stream().map(Benchmark::name).toList()));
    }

    private static String commit(Path root) {
        try {
            Process p = new ProcessBuilder("git", "-C", root.toString(), "rev-parse", "--short", "HEAD")
                    .redirectErrorStream(true)
                    .start();
            String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 ? s : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
