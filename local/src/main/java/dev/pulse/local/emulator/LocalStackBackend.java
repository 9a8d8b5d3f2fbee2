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
package dev.pulse.local.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.testing.emulator.Ports;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * LocalStack as the backend: started here in host mode (no Docker; its install in tools/localstack, made by the
 * Makefile) on 127.0.0.1, or an already running one (LocalStack in Docker) named by its URL. Every service the
 * pipeline uses is behind LocalStack's one gateway; the functions are told only {@code AWS_ENDPOINT_URL}.
 *
 * <p>Started here, everything it runs listens on 127.0.0.1: the gateway through tools/localstack/launch.py,
 * kinesis-mock (Node) through the same loopback preload kinesalite gets, and DynamoDB Local through a
 * {@code DynamoDBLocal.jar} of this module's own ({@link LoopbackDynamoDbLocal}) built over the Maven artifact
 * already on the class path (LocalStack would download DynamoDB Local from a host that is not reachable here).
 * Everything it writes stays in its state folder in the work dir; it is stopped by its process handle, and
 * whatever it started that outlives it by theirs.
 */
public final class LocalStackBackend implements Backend {

    /** What LocalStack runs for the pipeline (its other services are not loaded). */
    static final List<String> SERVICES =
            List.of("kinesis", "dynamodb", "dynamodbstreams", "sqs", "secretsmanager", "sns");

    /** The version the Makefile installs (tools/localstack/constraints.txt). */
    static final String KINESIS_MOCK_VERSION = "0.5.2";

    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path home;
    private final Path localTarget;
    private final Path stateDir;
    private final Path kinesisPreload;
    private final boolean external;
    private volatile URI endpoint;
    private volatile Process process;
    private volatile boolean closed;
    private String version = "";

    private LocalStackBackend(
            Path home, Path localTarget, Path stateDir, Path kinesisPreload, URI endpoint, boolean external) {
        this.home = home;
        this.localTarget = localTarget;
        this.stateDir = stateDir;
        this.kinesisPreload = kinesisPreload;
        this.endpoint = endpoint;
        this.external = external;
    }

    /** The LocalStack already running at {@code url}, checked to serve the pipeline's services. */
    public static LocalStackBackend connect(URI url) throws BackendStartException {
        String base = url.toString().replaceAll("/+$", "");
        LocalStackBackend b = new LocalStackBackend(null, null, null, null, URI.create(base), true);
        JsonNode health;
        try {
            health = b.health();
        } catch (IOException e) {
            int port = url.getPort() > 0 ? url.getPort() : 4566;
            throw new BackendStartException(
                    "no LocalStack answers at " + base + " (" + oneLine(e) + "): start it (docker run -d -p "
                            + "127.0.0.1:" + port
                            + ":4566 localstack/localstack) or leave LOCALSTACK_URL empty to let the local stack start one",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendStartException("interrupted while asking " + base + " for its health", e);
        }
        List<String> missing = missing(health);
        if (!missing.isEmpty()) {
            throw new BackendStartException("the LocalStack at " + base + " does not serve "
                    + String.join(", ", missing) + ": start it with SERVICES=" + String.join(",", SERVICES)
                    + " (or without SERVICES, for all)");
        }
        b.version = health.path("version").asText("");
        return b;
    }

    /**
     * A LocalStack to start with {@link #start()}: created first, so that {@link #close()} (a Ctrl-C's shutdown
     * hook) can stop it while it starts.
     *
     * @param home           tools/localstack: the venv, launch.py and kinesis-mock's node_modules
     * @param localTarget    local/target: this module's classes and classpath.txt, for DynamoDB Local's launcher
     * @param stateDir       where LocalStack keeps everything it writes (emptied first)
     * @param kinesisPreload the Node preload that keeps a server on 127.0.0.1 (tools/kinesis/loopback.js)
     * @param port           the gateway's port on 127.0.0.1; 0 for a free one
     */
    public static LocalStackBackend create(Path home, Path localTarget, Path stateDir, Path kinesisPreload, int port) {
        return new LocalStackBackend(
                home,
                localTarget,
                stateDir,
                kinesisPreload,
                URI.create("http://127.0.0.1:" + (port == 0 ? Ports.free() : port)),
                false);
    }

    /** Starts LocalStack and returns once it is ready; on failure stops what it had started. */
    public void start() throws Exception {
        if (external) {
            return;
        }
        Path python = home.resolve(".venv/bin/python");
        Path kinesisMain = home.resolve("node_modules/kinesis-local/main.js");
        if (!Files.isExecutable(python) || !Files.isRegularFile(kinesisMain)) {
            throw new BackendStartException(
                    "LocalStack is not installed in " + home.resolve(".venv")
                            + ": `make run BACKEND=localstack` installs it (it needs Python 3.13: apt-get install python3.13, or pyenv install 3.13)");
        }
        List<Path> classPath = dynamoDbClassPath();
        int port = endpoint.getPort();
        if (LocalServer.listening(port)) {
            throw new BackendStartException("127.0.0.1:" + port
                    + ", the port of LocalStack's gateway, is in use by another process: stop it"
                    + " (ss -ltnp 'sport = :" + port
                    + "' shows it), or if it is a LocalStack use it with LOCALSTACK_URL=http://127.0.0.1:" + port);
        }
        prepare(kinesisMain.getParent().getParent(), classPath);
        Path log = stateDir.resolve("localstack.log");
        ProcessBuilder pb = new ProcessBuilder(
                        python.toString(), home.resolve("launch.py").toString())
                .directory(stateDir.toFile());
        // Only what it needs from ours: LocalStack reads hundreds of settings from the environment, and one a user
        // exported for a LocalStack in Docker (DYNAMODB_HEAP_SIZE=...) could make this one loop until the timeout.
        pb.environment().keySet().retainAll(INHERITED);
        pb.environment().putAll(environment(port));
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the local stack is stopping");
            }
            process = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        }
        try {
            awaitReady(log);
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** The variables of ours a started LocalStack sees (besides its own settings below). */
    private static final java.util.Set<String> INHERITED =
            java.util.Set.of("PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM");

    /** An exception's message on one line, never "null": its class when it has none, with its cause's. */
    // Identity is the point: a cause that is the exception itself ends the chain.
    @SuppressWarnings("ReferenceEquality")
    static String oneLine(Throwable e) {
        StringBuilder b = new StringBuilder();
        String last = null;
        for (Throwable t = e; t != null && b.length() < 400; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            String part = m == null || m.isBlank()
                    ? t.getClass().getSimpleName()
                    : m.replaceAll("\\s*\\R\\s*", " ").strip();
            if (!part.equals(last)) {
                b.append(b.length() > 0 ? ": " : "").append(part);
                last = part;
            }
        }
        return b.toString();
    }

    /** LocalStack's own settings for a host-mode run confined to {@link #stateDir} and 127.0.0.1. */
    private Map<String, String> environment(int port) {
        Map<String, String> env = new LinkedHashMap<>();
        // This machine kind has /.dockerenv: without this LocalStack believes it is in a container, writes under
        // /var/lib/localstack and binds 0.0.0.0.
        env.put("OVERRIDE_IN_DOCKER", "0");
        env.put("GATEWAY_LISTEN", "127.0.0.1:" + port);
        env.put("LOCALSTACK_HOST", "127.0.0.1:" + port);
        env.put("SERVICES", String.join(",", SERVICES));
        env.put("EAGER_SERVICE_LOADING", "1");
        env.put("FILESYSTEM_ROOT", stateDir.toString());
        env.put("CONFIG_DIR", stateDir.resolve("config").toString());
        env.put("XDG_CACHE_HOME", stateDir.resolve("cache").toString());
        env.put("DISABLE_EVENTS", "1");
        env.put("SKIP_SSL_CERT_DOWNLOAD", "1");
        env.put("DNS_ADDRESS", "0");
        env.put("KINESIS_PERSISTENCE", "0");
        env.put("KINESIS_MOCK_VERSION", KINESIS_MOCK_VERSION);
        // With the default 500 ms, DynamoDB stream records written right after CreateTable were silently lost.
        env.put("KINESIS_LATENCY", "0");
        // Otherwise queue URLs name a host (sqs.<region>.localhost.localstack.cloud) that does not resolve here.
        env.put("SQS_ENDPOINT_STRATEGY", "path");
        env.put("DYNAMODB_IN_MEMORY", "1");
        env.put("NODE_OPTIONS", "--require \"" + kinesisPreload + "\"");
        // DynamoDB Local runs on this JVM's java; no perf data in /tmp, temporary files in the state folder.
        env.put(
                "PATH",
                Path.of(System.getProperty("java.home"), "bin") + java.io.File.pathSeparator + System.getenv("PATH"));
        env.put("JAVA_TOOL_OPTIONS", "-XX:-UsePerfData -Djava.io.tmpdir=" + stateDir.resolve("tmp"));
        env.put("TEMP", stateDir.resolve("tmp").toString());
        return env;
    }

    /** This module's classes and its runtime class path: DynamoDB Local's Maven artifact and its dependencies. */
    private List<Path> dynamoDbClassPath() throws IOException, BackendStartException {
        Path file = localTarget.resolve("classpath.txt");
        Path classes = localTarget.resolve("classes");
        if (!Files.isRegularFile(file) || !Files.isDirectory(classes)) {
            throw new BackendStartException(
                    "no " + file + ": build the local module first (mvn package -pl local -am, which `make run` does)");
        }
        List<Path> cp = new ArrayList<>();
        cp.add(classes.toAbsolutePath());
        for (String entry : Files.readString(file).trim().split(java.io.File.pathSeparator, -1)) {
            if (!entry.isBlank()) {
                cp.add(Path.of(entry).toAbsolutePath());
            }
        }
        return cp;
    }

    /**
     * Lays out what LocalStack counts as installed under its FILESYSTEM_ROOT: DynamoDB Local (the launcher jar,
     * and the same jar as its always-passed agent) and kinesis-mock (the Makefile's npm install, linked).
     */
    private void prepare(Path kinesisModules, List<Path> classPath) throws IOException {
        deleteTree(stateDir);
        Path lib = stateDir.resolve("var/lib/localstack/lib");
        Path dynamo = Files.createDirectories(lib.resolve("dynamodb-local/2"));
        Files.createDirectories(dynamo.resolve("DynamoDBLocal_lib"));
        Files.createDirectories(stateDir.resolve("tmp"));
        Manifest manifest = new Manifest();
        Attributes a = manifest.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.put(Attributes.Name.MAIN_CLASS, LoopbackDynamoDbLocal.class.getName());
        a.putValue("Premain-Class", LoopbackDynamoDbLocal.class.getName());
        a.put(
                Attributes.Name.CLASS_PATH,
                classPath.stream().map(p -> p.toUri().toString()).collect(Collectors.joining(" ")));
        for (String jar : List.of("DynamoDBLocal.jar", "ddb-local-loader-0.1.jar")) {
            try (OutputStream out = Files.newOutputStream(dynamo.resolve(jar));
                    JarOutputStream j = new JarOutputStream(out, manifest)) {
                j.flush();
            }
        }
        Path kinesis = Files.createDirectories(lib.resolve("kinesis-local/" + KINESIS_MOCK_VERSION));
        Files.createSymbolicLink(kinesis.resolve("node_modules"), kinesisModules.toAbsolutePath());
    }

    private void awaitReady(Path log) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            Process p = process;
            if (!p.isAlive()) {
                throw new BackendStartException("LocalStack exited during start-up with status " + p.exitValue() + ": "
                        + lastLine(log) + " (log: " + log + ")");
            }
            if (Files.readString(log).contains("\nReady.") && LocalServer.listening(endpoint.getPort())) {
                JsonNode health = health();
                if (missing(health).isEmpty()) {
                    version = health.path("version").asText("");
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new BackendStartException(
                        "LocalStack was not ready within " + START_TIMEOUT.toSeconds() + " s (log: " + log + ")");
            }
            Thread.sleep(100);
        }
    }

    private static String lastLine(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log).stream()
                .map(String::strip)
                .filter(l -> !l.isEmpty())
                .toList();
        return lines.isEmpty() ? "no output" : lines.get(lines.size() - 1);
    }

    private JsonNode health() throws IOException, InterruptedException {
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(endpoint + "/_localstack/health"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("GET /_localstack/health answered " + r.statusCode());
            }
            return JSON.readTree(r.body());
        }
    }

    /** The pipeline's services that LocalStack's health does not report as available or running. */
    private static List<String> missing(JsonNode health) {
        return SERVICES.stream()
                .filter(s -> {
                    String state = health.path("services").path(s).asText("");
                    return !state.equals("available") && !state.equals("running");
                })
                .toList();
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            // Files.walk does not follow links: the kinesis-mock link goes, its target stays.
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Override
    public String name() {
        return "localstack";
    }

    /** LocalStack's gateway, which serves every service. */
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public URI dynamoDb() {
        return endpoint;
    }

    @Override
    public URI kinesis() {
        return endpoint;
    }

    @Override
    public URI sqs() {
        return endpoint;
    }

    @Override
    public Map<String, String> functionEnvironment() {
        // One variable: the functions find every service through it, as they would with LocalStack in Docker.
        return Map.of("AWS_ENDPOINT_URL", endpoint.toString());
    }

    @Override
    public List<String[]> describe() {
        String what = external
                ? "already running"
                : "host mode, pid " + process.pid() + ", log " + stateDir.resolve("localstack.log");
        return List.<String[]>of(new String[] {
            "LocalStack", endpoint + "   (" + version + ", " + what + "; serves " + String.join(", ", SERVICES) + ")"
        });
    }

    @Override
    public List<Long> pids() {
        Process p = process;
        if (p == null) {
            return List.of();
        }
        List<Long> out = new ArrayList<>();
        out.add(p.pid());
        p.descendants().forEach(h -> out.add(h.pid()));
        return out;
    }

    @Override
    public void close() throws Exception {
        Process p;
        synchronized (this) {
            closed = true;
            p = process;
        }
        if (p != null) {
            LocalServer.stop(p);
        }
    }
}
