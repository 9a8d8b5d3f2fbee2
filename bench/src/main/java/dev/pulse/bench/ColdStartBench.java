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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.LocalDeployment;
import dev.pulse.local.StackOptions;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.lambda.FaultPlan;
import dev.pulse.local.lambda.FunctionConfig;
import dev.pulse.local.lambda.LocalLambda;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;

/**
 * cold-start: JVM start to first response of each handler as the Lambda runtime runs it: a fresh JVM per
 * execution environment running the AWS runtime interface client, with the artifact {@code sam build} packaged,
 * the layer's jars, the function's environment and memory (through the local stack's Lambda service). Each
 * environment is measured twice: its init (spawn until the runtime asks for the first invocation) and its first
 * invocation. The template's JAVA_TOOL_OPTIONS are compared with none, environments of the two alternating.
 */
final class ColdStartBench implements Benchmark {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OPTIONS = "JAVA_TOOL_OPTIONS";
    private static final String TABLE = "pulse-bench-cold-start";
    private static final String STREAM = "pulse-bench-cold-start";
    /** The smallest run the load generator accepts: 1 s, one worker, so no canary read-back through the API. */
    static final String LOADGEN_EVENT = "{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"rate\":100,"
            + "\"durationSeconds\":1,\"runId\":\"bench-cold-start\",\"worker\":0}";

    /**
     * A handler to start, the event of its first invocation, and what makes its answer a success.
     *
     * @param quick whether its first invocation answers at once (the load generator's runs for a second)
     */
    record Handler(String logicalId, String key, String event, boolean quick, Function<JsonNode, String> problem) {}

    static final List<Handler> HANDLERS = List.of(
            new Handler(
                    "IngestFunction",
                    "ingest",
                    "events/ingest-kinesis-native.json",
                    true,
                    ColdStartBench::batchProblem),
            new Handler("QueryFunction", "query", "events/query-post.json", true, ColdStartBench::httpProblem),
            new Handler(
                    "CompactFunction", "compact", "events/compact-scheduled.json", true, ColdStartBench::buildProblem),
            new Handler("LoadGenFunction", "loadgen", null, false, ColdStartBench::loadGenProblem));

    @Override
    public String name() {
        return "cold-start";
    }

    @Override
    public String howToRead() {
        return """
                Each handler started as Lambda starts it: a fresh JVM per execution environment running the AWS \
                Lambda runtime interface client against a local Runtime API (the local stack's Lambda service), with \
                the artifact `sam build` packaged (`.aws-sam/build/<Function>` as LAMBDA_TASK_ROOT, CommonLayer's \
                jars and the runtime client's on the class path), the function's environment from template.yaml (its \
                own JAVA_TOOL_OPTIONS: the compilation choice differs per function, see jvm-options) and \
                `-XX:MaxRAM` = MemorySize, against the local stack's emulators (DynamoDB Local, kinesalite, moto; a \
                table without a stream and a stream without a mapping, so no other function starts meanwhile). \
                Init: from spawning the JVM until the runtime asks for its first invocation (static initialisers and \
                the handler's constructor done). First response: init plus the first invocation, until its response \
                is posted back: IngestFunction with events/ingest-kinesis-native.json (6 records, written to the \
                table), QueryFunction with events/query-post.json, CompactFunction with events/compact-scheduled.json (one compaction run); \
                every response is checked (no failed batch items, HTTP 200, a compaction run that did not stop). LoadGenFunction's init counts, but its \
                first response does not enter the medians: its shortest run sends for a whole second (1 s at \
                100 records/s, after loading the 56,000-line bundled recording), so it is reported apart. Five \
                environments per handler and variant, with the function's JAVA_TOOL_OPTIONS and without, alternating \
                (the emulators warmed up first with the operations the functions use); medians pooled over the \
                handlers' environments, median [min .. max] per handler in the details. Ratio: with / without (below \
                1: the options shorten the cold start); this comparison is the "on demand" detail line. The headline \
                is SnapStart priming (docs/design.md, "SnapStart"). A SnapStart restore cannot run here (no \
                Firecracker snapshot, no CRaC JVM), so each fresh JVM runs on through the snapshot point instead: the \
                runtime interface client's SnapStart init (AWS_LAMBDA_INITIALIZATION_TYPE=snap-start) runs the \
                beforeCheckpoint hooks, asks the local Runtime API for /restore/next (answered at once), runs the \
                afterRestore hooks and only then asks for the first invocation. Primed: with \
                -Dorg.crac.Core.Compat=com.amazonaws.services.lambda.crac, as the managed runtime starts the JVM, so the \
                handlers' priming hooks run; unprimed: without it, so org.crac registers nothing and no hook runs; the \
                template's JAVA_TOOL_OPTIONS in both. Init: spawn until the first invocation is asked for (constructor, \
                priming, restore hooks; the priming's own time, from its log line, in the details). First response after \
                restore: the first invocation, until its response is posted (what a restored environment's caller \
                waits for, less the snapshot's resume, which is not measured). IngestFunction, QueryFunction and \
                CompactFunction (LoadGenFunction has no SnapStart), three environments each per variant, alternating; \
                medians pooled over the three. Ratio: primed / unprimed. Target: first response after restore primed \
                <= 0.3x unprimed. The JVM is this machine's JDK 25, not the managed java21 runtime, on 2 shared cores \
                (Lambda gives a 1,024 MB function about 0.6 vCPU), so the absolute times are not Lambda's; the ratio \
                is the figure to read.""";
    }

    /** One execution environment's timings, in milliseconds; primingMs is what its priming hooks reported (or 0). */
    record Sample(double initMs, double invokeMs, double primingMs) {
        Sample(double initMs, double invokeMs) {
            this(initMs, invokeMs, 0);
        }

        double firstResponseMs() {
            return initMs + invokeMs;
        }
    }

    /** In the log line of a priming run: how long it took and how many of its paths failed. */
    private static final java.util.regex.Pattern PRIMED_MS = java.util.regex.Pattern.compile("\"ms\":(\\d+)");

    private static final java.util.regex.Pattern PRIMED_FAILURES =
            java.util.regex.Pattern.compile("\"failures\":(\\d+)");

    /**
     * The priming reported by an environment's log: its duration in ms, or -1 when no priming ran; a priming that
     * failed is an error.
     */
    static double primingMs(List<String> log, String function) {
        for (String line : log) {
            if (line.contains("snapstart priming done")) {
                java.util.regex.Matcher f = PRIMED_FAILURES.matcher(line);
                if (f.find() && !f.group(1).equals("0")) {
                    throw new IllegalStateException(function + ": priming failed: " + line + "\n"
                            + String.join(
                                    "\n",
                                    log.stream()
                                            .filter(l -> l.contains("priming failed"))
                                            .toList()));
                }
                java.util.regex.Matcher m = PRIMED_MS.matcher(line);
                return m.find() ? Double.parseDouble(m.group(1)) : 0;
            }
        }
        return -1;
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        Path root = env.root();
        Path build = root.resolve(".aws-sam/build");
        List<Path> classPath = new ArrayList<>(jars(root.resolve("local/target/runtime")));
        if (classPath.isEmpty()) {
            throw new IllegalStateException("no Lambda runtime interface client in local/target/runtime: package the"
                    + " local module first (mvn package -pl local -am)");
        }
        List<Path> layer = jars(build.resolve("CommonLayer/java/lib"));
        for (Handler h : HANDLERS) {
            if (layer.isEmpty()
                    || !Files.isDirectory(build.resolve(h.logicalId()).resolve("lib"))) {
                throw new IllegalStateException(
                        "no `sam build` output for " + (layer.isEmpty() ? "CommonLayer" : h.logicalId()) + " in "
                                + build + ": run `sam build` at the repository root first (make bench does)");
            }
        }
        classPath.addAll(layer);
        int rounds = env.scale(3, 1);

        StackOptions d = StackOptions.defaults(root);
        StackOptions options = new StackOptions(
                        d.template(),
                        Map.of("StreamMode", "PROVISIONED", "StreamShardCount", "1"),
                        d.stackName(),
                        root.resolve("bench/target/cold-start-stack"),
                        d.runtimeDir(),
                        env.kinesisDir(),
                        env.motoBin(),
                        StackOptions.Ports.EPHEMERAL,
                        1,
                        Map.of(),
                        FaultPlan.NONE,
                        null)
                .withScheduleEvery(java.time.Duration.ZERO); // no scheduled build may start during the timing
        LocalDeployment stack = LocalDeployment.create(options, null);
        try {
            long starting = System.nanoTime();
            stack.start();
            double stackSeconds = (System.nanoTime() - starting) / 1e9;
            Map<String, FunctionConfig[]> variants = new LinkedHashMap<>();
            // Each function's own: the compilation choice differs between them (template.yaml, jvm-options).
            Map<String, String> templateOptions = new LinkedHashMap<>();
            for (Handler h : HANDLERS) {
                FunctionConfig base = stack.lambda().config(h.logicalId());
                Map<String, String> with = new LinkedHashMap<>(base.environment());
                String functionOptions = with.get(OPTIONS);
                templateOptions.put(h.logicalId(), functionOptions);
                if (functionOptions == null || functionOptions.isBlank()) {
                    throw new IllegalStateException(
                            h.logicalId() + " has no " + OPTIONS + " in template.yaml: nothing to compare");
                }
                with.put("TABLE_NAME", TABLE);
                with.computeIfPresent("STREAM_NAME", (k, v) -> STREAM);
                Map<String, String> without = new LinkedHashMap<>(with);
                without.remove(OPTIONS);
                variants.put(h.logicalId(), new FunctionConfig[] {
                    config(base, with, build.resolve(h.logicalId()), classPath),
                    config(base, without, build.resolve(h.logicalId()), classPath)
                });
            }
            createTableAndStream(stack, variants.get("IngestFunction")[0].environment());

            Map<String, byte[]> events = new LinkedHashMap<>();
            for (Handler h : HANDLERS) {
                events.put(
                        h.logicalId(),
                        h.event() == null
                                ? LOADGEN_EVENT.getBytes(StandardCharsets.UTF_8)
                                : Files.readAllBytes(root.resolve(h.event())));
            }
            Map<String, List<List<Sample>>> samples = new LinkedHashMap<>();
            HANDLERS.forEach(h -> samples.put(h.logicalId(), List.of(new ArrayList<>(), new ArrayList<>())));
            long batches = 0;
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < HANDLERS.size(); i++) {
                    Handler h = HANDLERS.get(i);
                    int first = (r + i) % 2;
                    for (int v : new int[] {first, 1 - first}) {
                        byte[] event = events.get(h.logicalId());
                        if (h.logicalId().equals("IngestFunction")) {
                            // The shard's next batch each time: a repeat would be skipped as already stored.
                            event = laterBatch(event, batches++);
                        }
                        samples.get(h.logicalId()).get(v).add(sample(h, variants.get(h.logicalId())[v], event, v == 0));
                    }
                }
            }
            // SnapStart: the snapshot point emulated in each fresh JVM (FunctionConfig.Init), with the priming hooks
            // and without them; same JVM flags (the template's options) otherwise.
            List<Handler> snapped = HANDLERS.stream().filter(Handler::quick).toList();
            Map<String, List<List<Sample>>> restored = new LinkedHashMap<>();
            snapped.forEach(h -> restored.put(h.logicalId(), List.of(new ArrayList<>(), new ArrayList<>())));
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < snapped.size(); i++) {
                    Handler h = snapped.get(i);
                    int first = (r + i) % 2;
                    for (int v : new int[] {first, 1 - first}) {
                        byte[] event = events.get(h.logicalId());
                        if (h.logicalId().equals("IngestFunction")) {
                            event = laterBatch(event, batches++);
                        }
                        FunctionConfig fn = variants.get(h.logicalId())[0].withInit(
                                v == 0 ? FunctionConfig.Init.SNAP_START : FunctionConfig.Init.SNAP_START_WITHOUT_HOOKS);
                        restored.get(h.logicalId()).get(v).add(sample(h, fn, event, true));
                    }
                }
            }
            return result(samples, restored, templateOptions, build)
                    .withDetails(List.of(String.format(
                            java.util.Locale.ROOT, "(the local stack took %.0f s to start)", stackSeconds)));
        } finally {
            stack.close();
        }
    }

    /** First response after restore with priming / without: at most this (issue 14). */
    static final double PRIMING_TARGET = 0.3;

    private Result result(
            Map<String, List<List<Sample>>> samples,
            Map<String, List<List<Sample>>> restored,
            Map<String, String> templateOptions,
            Path build) {
        List<String> details = new ArrayList<>();
        Map<String, Double> values = new LinkedHashMap<>();
        templateOptions.forEach((fn, o) -> details.add("JAVA_TOOL_OPTIONS of " + fn + " in the template: " + o));
        details.add(
                "artifacts: " + build + "; JVM: " + System.getProperty("java.home") + " (" + Runtime.version() + ")");
        List<List<Double>> init = List.of(new ArrayList<>(), new ArrayList<>());
        List<List<Double>> response = List.of(new ArrayList<>(), new ArrayList<>());
        String[] variant = {"with the options", "without"};
        String[] suffix = {"", "WithoutOptions"};
        for (Handler h : HANDLERS) {
            for (int v = 0; v < 2; v++) {
                List<Sample> s = samples.get(h.logicalId()).get(v);
                List<Double> allInit = init.get(v);
                List<Double> allResponse = response.get(v);
                Samples in = Samples.of(s.stream().mapToDouble(Sample::initMs).toArray());
                Samples inv =
                        Samples.of(s.stream().mapToDouble(Sample::invokeMs).toArray());
                Samples first = Samples.of(
                        s.stream().mapToDouble(Sample::firstResponseMs).toArray());
                details.add(String.format(
                        "%-16s %-16s init %s ms, first invocation %s ms, first response %s ms (%d" + " environments)",
                        h.logicalId(), variant[v], range(in), range(inv), range(first), s.size()));
                values.put(h.key() + "InitMs" + suffix[v], in.median());
                values.put(h.key() + "FirstResponseMs" + suffix[v], first.median());
                s.forEach(x -> allInit.add(x.initMs()));
                if (h.quick()) {
                    s.forEach(x -> allResponse.add(x.firstResponseMs()));
                }
            }
        }
        double[] initMedian = new double[2];
        double[] responseMedian = new double[2];
        for (int v = 0; v < 2; v++) {
            initMedian[v] = Samples.of(init.get(v).stream()
                            .mapToDouble(Double::doubleValue)
                            .toArray())
                    .median();
            responseMedian[v] = Samples.of(response.get(v).stream()
                            .mapToDouble(Double::doubleValue)
                            .toArray())
                    .median();
            values.put("initMs" + suffix[v], initMedian[v]);
            values.put("firstResponseMs" + suffix[v], responseMedian[v]);
        }
        values.put("initRatio", initMedian[0] / initMedian[1]);
        values.put("firstResponseRatio", responseMedian[0] / responseMedian[1]);
        details.add("LoadGenFunction's first invocation includes loading the bundled recording and its 1 s run.");
        details.add(String.format(
                "on demand: init %s ms (median of %d environments, %d handlers), first response %s ms"
                        + " (median of %d, ingest, query, compact) with the template's JAVA_TOOL_OPTIONS; without: init %s ms, first"
                        + " response %s ms; ratio %s and %s",
                Format.count(initMedian[0]),
                init.get(0).size(),
                HANDLERS.size(),
                Format.count(responseMedian[0]),
                response.get(0).size(),
                Format.count(initMedian[1]),
                Format.count(responseMedian[1]),
                Format.ratio(initMedian[0] / initMedian[1]),
                Format.ratio(responseMedian[0] / responseMedian[1])));

        // SnapStart, the snapshot point emulated: init (until the first invocation is asked for: the constructor, the
        // beforeCheckpoint hooks, the afterRestore hooks) and the first response after the restore.
        String[] primedVariant = {"primed", "unprimed"};
        String[] primedSuffix = {"Primed", "Unprimed"};
        List<List<Double>> rInit = List.of(new ArrayList<>(), new ArrayList<>());
        List<List<Double>> rFirst = List.of(new ArrayList<>(), new ArrayList<>());
        List<Double> priming = new ArrayList<>();
        for (Map.Entry<String, List<List<Sample>>> e : restored.entrySet()) {
            Handler h = HANDLERS.stream()
                    .filter(x -> x.logicalId().equals(e.getKey()))
                    .findFirst()
                    .orElseThrow();
            for (int v = 0; v < 2; v++) {
                List<Sample> s = e.getValue().get(v);
                Samples in = Samples.of(s.stream().mapToDouble(Sample::initMs).toArray());
                Samples first =
                        Samples.of(s.stream().mapToDouble(Sample::invokeMs).toArray());
                Samples pr =
                        Samples.of(s.stream().mapToDouble(Sample::primingMs).toArray());
                details.add(String.format(
                        "%-16s SnapStart %-8s init %s ms%s, first response after restore %s ms (%d environments)",
                        h.logicalId(),
                        primedVariant[v],
                        range(in),
                        v == 0 ? " (priming " + range(pr) + " ms of it)" : "",
                        range(first),
                        s.size()));
                values.put(h.key() + "RestoredInitMs" + primedSuffix[v], in.median());
                values.put(h.key() + "FirstResponseAfterRestoreMs" + primedSuffix[v], first.median());
                List<Double> allInit = rInit.get(v);
                List<Double> allFirst = rFirst.get(v);
                s.forEach(x -> allInit.add(x.initMs()));
                s.forEach(x -> allFirst.add(x.invokeMs()));
                if (v == 0) {
                    s.forEach(x -> priming.add(x.primingMs()));
                }
            }
        }
        double[] rInitMedian = new double[2];
        double[] rFirstMedian = new double[2];
        for (int v = 0; v < 2; v++) {
            rInitMedian[v] = Samples.of(rInit.get(v).stream()
                            .mapToDouble(Double::doubleValue)
                            .toArray())
                    .median();
            rFirstMedian[v] = Samples.of(rFirst.get(v).stream()
                            .mapToDouble(Double::doubleValue)
                            .toArray())
                    .median();
            values.put("restoredInitMs" + primedSuffix[v], rInitMedian[v]);
            values.put("firstResponseAfterRestoreMs" + primedSuffix[v], rFirstMedian[v]);
        }
        double primingMedian = Samples.of(
                        priming.stream().mapToDouble(Double::doubleValue).toArray())
                .median();
        values.put("primingMs", primingMedian);
        double primingRatio = rFirstMedian[0] / rFirstMedian[1];
        values.put("primingRatio", primingRatio);
        values.put("restoredInitRatio", rInitMedian[0] / rInitMedian[1]);
        details.add("SnapStart restore cannot run here (no Firecracker snapshot, no CRaC JVM): each JVM runs on through"
                + " the snapshot point instead, with the runtime interface client's SnapStart init (beforeCheckpoint hooks,"
                + " /restore/next, afterRestore hooks); unprimed: the same without -Dorg.crac.Core.Compat, so no hook is"
                + " registered. A real restore adds the snapshot's resume, not measured here.");
        String figure = String.format(
                "first response after restore %s ms with SnapStart priming (median of %d environments,"
                        + " ingest, query, compact), init %s ms including %s ms of priming",
                Format.count(rFirstMedian[0]),
                rFirst.get(0).size(),
                Format.count(rInitMedian[0]),
                Format.count(primingMedian));
        String baseline = "without priming: first response after restore " + Format.count(rFirstMedian[1])
                + " ms, init " + Format.count(rInitMedian[1]) + " ms";
        String ratio = "ratio " + Format.ratio(primingRatio) + " and " + Format.ratio(rInitMedian[0] / rInitMedian[1]);
        return new Result(
                name(),
                figure,
                baseline,
                ratio,
                "first response after restore primed <= " + PRIMING_TARGET + "x unprimed",
                primingRatio <= PRIMING_TARGET,
                details,
                values);
    }

    private static FunctionConfig config(
            FunctionConfig base, Map<String, String> environment, Path taskRoot, List<Path> classPath) {
        return new FunctionConfig(
                base.logicalId(),
                base.name(),
                base.arn(),
                base.handler(),
                base.memoryMb(),
                base.timeout(),
                Map.copyOf(environment),
                taskRoot,
                List.copyOf(classPath),
                base.javaHome());
    }

    /**
     * A fresh execution environment: its init, then its first invocation, each checked; the JVM is stopped
     * (through its handle) before this returns.
     */
    static Sample sample(Handler h, FunctionConfig fn, byte[] event, boolean withOptions) throws InterruptedException {
        List<String> log = new CopyOnWriteArrayList<>();
        try (LocalLambda lambda = new LocalLambda(List.of(fn), f -> log::add, 1)) {
            long start = System.nanoTime();
            int ready = lambda.prewarm(fn.name(), 1);
            long initialised = System.nanoTime();
            if (ready != 1) {
                throw new IllegalStateException(fn.logicalId() + " did not finish its init:\n" + tail(log));
            }
            InvokeResult r = lambda.invoke(fn.name(), event);
            long answered = System.nanoTime();
            String payload = new String(r.payload(), StandardCharsets.UTF_8);
            if (r.failed()) {
                throw new IllegalStateException(
                        fn.logicalId() + "'s first invocation failed: " + payload + "\n" + tail(log));
            }
            String problem;
            try {
                problem = h.problem().apply(JSON.readTree(payload));
            } catch (IOException e) {
                problem = "the response is not JSON";
            }
            if (problem != null) {
                throw new IllegalStateException(fn.logicalId() + "'s first response: " + problem + ": " + payload);
            }
            boolean picked = log.stream().anyMatch(l -> l.startsWith("Picked up " + OPTIONS));
            if (picked != withOptions) {
                throw new IllegalStateException(fn.logicalId() + ": the JVM "
                        + (picked ? "picked up" : "did not pick up") + " " + OPTIONS + ", expected the opposite");
            }
            double priming = primingMs(log, fn.logicalId());
            boolean primed = fn.init() == FunctionConfig.Init.SNAP_START;
            if ((priming >= 0) != primed) {
                throw new IllegalStateException(fn.logicalId() + ": priming " + (priming >= 0 ? "ran" : "did not run")
                        + " in a " + fn.init() + " environment:\n" + tail(log));
            }
            return new Sample((initialised - start) / 1e6, (answered - initialised) / 1e6, Math.max(priming, 0));
        }
    }

    /** The compactor: a finished run ({@code CompactResult}) that did not stop on a failure. */
    static String buildProblem(JsonNode response) {
        if (!response.has("hoursBuilt")) {
            return "no hoursBuilt in the response";
        }
        return response.path("stopped").asBoolean()
                ? "stopped: " + response.path("stopReason").asText()
                : null;
    }

    /**
     * The Kinesis event with every sequence number raised by {@code n} x 1,000 (the same number of digits), so the
     * records are above the shard's committed position and the function stores them as on its first invocation.
     */
    static byte[] laterBatch(byte[] event, long n) throws IOException {
        JsonNode root = JSON.readTree(event);
        for (JsonNode r : root.path("Records")) {
            com.fasterxml.jackson.databind.node.ObjectNode k =
                    (com.fasterxml.jackson.databind.node.ObjectNode) r.path("kinesis");
            String seq = new java.math.BigInteger(k.path("sequenceNumber").asText())
                    .add(java.math.BigInteger.valueOf(n * 1_000))
                    .toString();
            k.put("sequenceNumber", seq);
            String id = r.path("eventID").asText();
            ((com.fasterxml.jackson.databind.node.ObjectNode) r)
                    .put("eventID", id.substring(0, id.indexOf(':') + 1) + seq);
        }
        return JSON.writeValueAsBytes(root);
    }

    static String batchProblem(JsonNode response) {
        JsonNode failures = response.path("batchItemFailures");
        if (!failures.isArray()) {
            return "no batchItemFailures";
        }
        return failures.isEmpty() ? null : failures.size() + " failed batch items";
    }

    /** Query: an HTTP API response with status 200 and a body. */
    static String httpProblem(JsonNode response) {
        int status = response.path("statusCode").asInt();
        if (status != 200) {
            return "status " + status;
        }
        return response.path("body").asText("").isEmpty() ? "an empty body" : null;
    }

    /** The load generator: a report of a run that sent records and got every one acknowledged. */
    static String loadGenProblem(JsonNode response) {
        if (response.has("error")) {
            return "refused: " + response.path("error");
        }
        long sent = response.path("sent").asLong();
        long acked = response.path("acked").asLong();
        if (sent == 0) {
            return "nothing sent";
        }
        return acked == sent && response.path("failed").asLong() == 0
                ? null
                : "acked " + acked + " of " + sent + ", failed "
                        + response.path("failed").asLong();
    }

    /**
     * A table and a stream for the measured functions, so their writes start no function of the stack, and
     * the emulators warmed up.
     */
    private static void createTableAndStream(LocalDeployment stack, Map<String, String> functionEnvironment)
            throws Exception {
        // DynamoDB Local keeps a database per access key: the functions' key, or they would not see the table.
        StaticCredentialsProvider credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create(
                functionEnvironment.get("AWS_ACCESS_KEY_ID"), functionEnvironment.get("AWS_SECRET_ACCESS_KEY")));
        try (DynamoDbClient dynamo = DynamoDbClient.builder()
                        .endpointOverride(stack.dynamoDbUrl())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(credentials)
                        .httpClientBuilder(UrlConnectionHttpClient.builder())
                        .build();
                KinesisClient kinesis = KinesisClient.builder()
                        .endpointOverride(stack.kinesisUrl())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(credentials)
                        .httpClientBuilder(UrlConnectionHttpClient.builder())
                        .build()) {
            LocalDynamoDb.createTable(dynamo, TABLE);
            kinesis.createStream(b -> b.streamName(STREAM).shardCount(1));
            kinesis.waiter().waitUntilStreamExists(b -> b.streamName(STREAM));
            // The emulators' own first requests are slow (class loading, DynamoDB Local's SQLite): paid here, once,
            // with the operations the functions use, rather than by whichever environment comes first.
            for (int i = 0; i < 3; i++) {
                Map<String, AttributeValue> item = Map.of(
                        "pk", AttributeValue.fromS("bench#warm-up"), "sk", AttributeValue.fromS(Integer.toString(i)));
                dynamo.putItem(b -> b.tableName(TABLE).item(item));
                dynamo.batchWriteItem(b -> b.requestItems(Map.of(
                        TABLE,
                        List.of(WriteRequest.builder()
                                .putRequest(p -> p.item(item))
                                .build()))));
                dynamo.query(b -> b.tableName(TABLE)
                        .keyConditionExpression("pk = :pk")
                        .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS("bench#warm-up"))));
                dynamo.batchGetItem(b -> b.requestItems(Map.of(
                        TABLE,
                        KeysAndAttributes.builder()
                                .keys(Map.of("pk", item.get("pk"), "sk", item.get("sk")))
                                .build())));
                kinesis.putRecords(b -> b.streamName(STREAM)
                        .records(PutRecordsRequestEntry.builder()
                                .partitionKey("warm-up")
                                .data(SdkBytes.fromUtf8String("{}"))
                                .build()));
            }
        }
    }

    private static List<Path> jars(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
    }

    private static String range(Samples s) {
        return Format.count(s.median()) + " [" + Format.count(s.min()) + " .. " + Format.count(s.max()) + "]";
    }

    private static String tail(List<String> log) {
        return String.join("\n", log.subList(Math.max(0, log.size() - 30), log.size()));
    }
}
