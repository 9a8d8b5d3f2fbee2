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

import dev.pulse.local.api.LocalHttpApi;
import dev.pulse.local.emulator.Backend;
import dev.pulse.local.emulator.EmulatorsBackend;
import dev.pulse.local.emulator.LocalStackBackend;
import dev.pulse.local.lambda.FunctionConfig;
import dev.pulse.local.lambda.LambdaApiServer;
import dev.pulse.local.lambda.LocalLambda;
import dev.pulse.local.template.FunctionSpec;
import dev.pulse.local.template.LayerSpec;
import dev.pulse.local.template.MappingSpec;
import dev.pulse.local.template.RouteSpec;
import dev.pulse.local.template.SamTemplate;
import dev.pulse.local.template.ScheduleSpec;
import dev.pulse.local.template.Stack;
import dev.pulse.testing.emulator.Ports;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The whole pipeline on one machine, all on 127.0.0.1: DynamoDB Local, kinesalite and moto (or LocalStack, with
 * the localstack backend: {@link StackOptions#backend()}) with the template's table, stream and queue; every function in its own JVM behind a local Lambda service; the event source
 * mappings; the schedules (EventBridge rules); the HTTP API. Everything about functions, environment and mappings comes from template.yaml.
 * Closing it stops every process it started, through their handles (by PID).
 */
public final class LocalDeployment implements AutoCloseable {

    static final String REGION = "us-east-1";
    static final StaticCredentialsProvider CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));

    private final Deque<AutoCloseable> running = new ArrayDeque<>();
    private final Map<String, EmfTotals> metrics = new ConcurrentHashMap<>();
    private final Map<String, PrintWriter> logs = new ConcurrentHashMap<>();
    private final StackOptions options;
    private final BiConsumer<String, String> echo;
    private Stack stack;
    private SamTemplate template;
    private boolean closed;
    private StackResources resources;
    private Backend backend;
    private DynamoDbClient dynamoClient;
    private KinesisClient kinesisClient;
    private SqsClient sqsClient;
    private LocalLambda lambda;
    private LambdaApiServer lambdaApi;
    private LocalHttpApi httpApi;
    private final List<MappingRunner> mappings = new ArrayList<>();
    private final List<ScheduleRunner> schedules = new ArrayList<>();
    private AlertSubscriber alertSubscriber;

    private LocalDeployment(StackOptions options, BiConsumer<String, String> echo) {
        this.options = options;
        this.echo = echo;
    }

    /**
     * A stack that starts nothing yet: register {@link #close()} (for example as a shutdown hook) before
     * {@link #start()}, so an interrupted start-up stops what it had started.
     *
     * @param echo receives every line the functions print, with the function's logical id (null: only to the log files)
     */
    public static LocalDeployment create(StackOptions options, BiConsumer<String, String> echo) {
        return new LocalDeployment(options, echo);
    }

    /** {@link #create} and {@link #start()}. */
    public static LocalDeployment start(StackOptions options, BiConsumer<String, String> echo) throws Exception {
        LocalDeployment s = create(options, echo);
        s.start();
        return s;
    }

    /** Starts everything and returns when the stack is ready; on failure stops what was started. */
    public void start() throws Exception {
        try {
            startAll();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** Records something to stop on {@link #close()}; refuses (and stops it) once the stack is closing. */
    private synchronized <T extends AutoCloseable> T track(T resource) throws Exception {
        if (closed) {
            resource.close();
            throw new IllegalStateException("the local stack is stopping");
        }
        running.push(resource);
        return resource;
    }

    private void startAll() throws Exception {
        // kinesalite speaks JSON only; the SDK's CBOR default would fail against it.
        System.setProperty("aws.cborEnabled", "false");
        template = SamTemplate.load(options.template());
        // Settings that cannot run locally (a cron schedule) fail here, before any emulator starts.
        template.resolve(options.parameters(), dev.pulse.local.template.Bindings.unbound(options.stackName()))
                .schedules();
        Files.createDirectories(options.workDir().resolve("logs"));
        StackOptions.Ports p = options.ports();
        Ports.Reservation lambdaReserved = track(Ports.reserve(p.lambda()));
        Ports.Reservation apiReserved = track(Ports.reserve(p.api()));
        int lambdaPort = lambdaReserved.port();
        int apiPort = apiReserved.port();

        backend = startBackend(p);
        if (options.backend().kind() == StackOptions.Backend.Kind.EMULATORS
                || options.backend().localStackUrl() != null) {
            track(backend);
        }
        dynamoClient = client(DynamoDbClient.builder(), backend.dynamoDb());
        kinesisClient = client(KinesisClient.builder(), backend.kinesis());
        sqsClient = client(SqsClient.builder(), backend.sqs());
        SecretsManagerClient secretsClient = client(SecretsManagerClient.builder(), backend.secretsManager());
        track(dynamoClient);
        track(kinesisClient);
        track(sqsClient);
        track(secretsClient);
        SnsClient snsClient = track(client(SnsClient.builder(), backend.sns()));

        resources = new StackResources(template, options.stackName());
        stack = template.resolve(options.parameters(), resources);
        resources.bind(stack);
        resources.create(dynamoClient, kinesisClient, sqsClient, secretsClient, snsClient);
        // The alert topic's notifications go to a subscriber of this process on 127.0.0.1, as they would go to a
        // team's webhook receiver: make run reads what arrived (AlertCheck).
        if (!resources.topicArns().isEmpty()) {
            alertSubscriber = track(AlertSubscriber.start(java.time.Clock.systemUTC()));
            for (String arn : resources.topicArns()) {
                snsClient.subscribe(b -> b.topicArn(arn)
                        .protocol("http")
                        .endpoint(alertSubscriber.endpoint().toString())
                        .attributes(Map.of("RawMessageDelivery", "true")));
            }
        }

        URI lambdaUrl = URI.create("http://127.0.0.1:" + lambdaPort);
        URI apiUrl = URI.create("http://127.0.0.1:" + apiPort);
        Map<String, String> reserved = new LinkedHashMap<>();
        reserved.put("AWS_REGION", REGION);
        reserved.put("AWS_DEFAULT_REGION", REGION);
        reserved.put("AWS_ACCESS_KEY_ID", "local");
        reserved.put("AWS_SECRET_ACCESS_KEY", "local");
        reserved.put("AWS_SESSION_TOKEN", "local");
        reserved.putAll(backend.functionEnvironment());
        URI faultyDynamo = options.faults().dynamoDbEndpoint(backend.dynamoDb());
        if (!faultyDynamo.equals(backend.dynamoDb())) {
            reserved.put("AWS_ENDPOINT_URL_DYNAMODB", faultyDynamo.toString());
        }
        // The functions' Lambda calls (the load generator's fan-out) go to the local Lambda service on every backend.
        reserved.put("AWS_ENDPOINT_URL_LAMBDA", lambdaUrl.toString());

        Artifacts artifacts = new Artifacts(options.workDir().resolve("build"));
        List<Path> runtime = Artifacts.jars(options.runtimeDir());
        if (runtime.isEmpty()) {
            throw new IllegalStateException("no Lambda runtime interface client in " + options.runtimeDir()
                    + ": build the local module first (mvn package -pl local -am, which `make run` does)");
        }
        Map<String, LayerSpec> layers = new LinkedHashMap<>();
        stack.layers().forEach(l -> layers.put(l.logicalId(), l));
        List<FunctionConfig> configs = new ArrayList<>();
        for (FunctionSpec f : stack.functions()) {
            List<Path> cp = new ArrayList<>(runtime);
            for (String id : f.layerIds()) {
                LayerSpec layer = layers.get(id);
                if (layer == null) {
                    throw new IllegalStateException(
                            f.logicalId() + " uses layer " + id + ", which is not in the template");
                }
                cp.addAll(artifacts.layerJars(layer));
            }
            Map<String, String> env = new LinkedHashMap<>();
            f.environment().forEach((key, value) -> env.put(key, localApiUrl(value, apiUrl)));
            env.putAll(options.environment());
            env.putAll(reserved);
            String arn = resources.getAtt(f.logicalId(), "Arn");
            env.put("AWS_EXECUTION_ENV", "AWS_Lambda_" + f.runtime());
            configs.add(new FunctionConfig(
                    f.logicalId(),
                    f.functionName(),
                    arn,
                    f.handler(),
                    f.memoryMb(),
                    Duration.ofSeconds(f.timeoutSeconds()),
                    env,
                    artifacts.function(f).toAbsolutePath(),
                    cp,
                    Path.of(System.getProperty("java.home")),
                    f.snapStart() ? FunctionConfig.Init.SNAP_START : FunctionConfig.Init.ON_DEMAND));
        }
        lambda = new LocalLambda(configs, this::sink, options.maxConcurrency(), options.faults());
        track(lambda);
        lambdaReserved.close();
        lambdaApi = new LambdaApiServer(lambda, lambdaPort);
        track(lambdaApi);
        List<LocalHttpApi.Route> routes = new ArrayList<>();
        boolean iam = false;
        for (RouteSpec r : stack.routes()) {
            routes.add(new LocalHttpApi.Route(
                    r.method(), r.path(), stack.function(r.functionId()).functionName(), unsigned(r)));
            // An implicit API (no ApiId) has no resource of its own, hence no authorizer.
            boolean declared = template.resourceIds("AWS::Serverless::HttpApi").contains(r.apiId());
            if (declared
                    && stack.resolvedProperties(r.apiId())
                            .path("Auth")
                            .path("DefaultAuthorizer")
                            .asText("")
                            .equals("AWS_IAM")) {
                iam = true;
            }
        }
        if (!routes.isEmpty()) {
            apiReserved.close();
            httpApi = new LocalHttpApi(routes, lambda, iam, apiPort);
            track(httpApi);
        }
        for (MappingSpec spec : stack.mappings()) {
            String fn = stack.function(spec.functionId()).functionName();
            MappingRunner runner =
                    MappingRunner.start(spec, fn, lambda, this::sendToDestination, backend.kinesis(), options.faults());
            mappings.add(runner);
            track(runner);
        }
        for (ScheduleSpec spec : stack.schedules()) {
            String fn = stack.function(spec.functionId()).functionName();
            Duration every = options.scheduleEvery() == null ? spec.period() : options.scheduleEvery();
            ScheduleRunner runner = ScheduleRunner.start(
                    spec,
                    payload -> lambda.invoke(fn, payload),
                    every,
                    resources.pseudo().region(),
                    resources.pseudo().accountId(),
                    options.faults(),
                    java.time.Clock.systemUTC());
            schedules.add(runner);
            track(runner);
        }
    }

    /**
     * The template's execute-api URLs ({@code https://<api>.execute-api.<region>.amazonaws.com}) point at the
     * local API: the only place a value is rewritten rather than resolved, because no local name makes that
     * hostname reach 127.0.0.1.
     */
    private static String localApiUrl(String value, URI apiUrl) {
        return value.replaceAll(
                "https://[A-Za-z0-9-]+\\.execute-api\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?", apiUrl.toString());
    }

    private void sendToDestination(String arn, String json) {
        if (arn.startsWith("arn:aws:sqs:")) {
            String url = resources.queueUrl(arn);
            sqsClient.sendMessage(b -> b.queueUrl(url).messageBody(json));
        } else {
            throw new IllegalArgumentException("on-failure destinations other than SQS are not emulated: " + arn);
        }
    }

    private Consumer<String> sink(FunctionConfig f) {
        EmfTotals totals = metrics.computeIfAbsent(f.logicalId(), id -> new EmfTotals());
        PrintWriter out = logs.computeIfAbsent(f.logicalId(), id -> {
            try {
                return new PrintWriter(
                        Files.newBufferedWriter(
                                options.workDir().resolve("logs").resolve(id + ".log"), StandardCharsets.UTF_8),
                        true);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return line -> {
            totals.accept(line);
            synchronized (out) {
                out.println(line);
            }
            if (echo != null) {
                echo.accept(f.logicalId(), line);
            }
        };
    }

    public LocalLambda lambda() {
        return lambda;
    }

    public SamTemplate template() {
        return template;
    }

    public Stack stack() {
        return stack;
    }

    public List<MappingRunner> mappings() {
        return mappings;
    }

    /** The template's schedules, running (EventBridge rules of {@code Schedule} events). */
    public List<ScheduleRunner> schedules() {
        return schedules;
    }

    /** Metric totals from a function's EMF output, by logical id. */
    EmfTotals metrics(String logicalId) {
        return metrics.computeIfAbsent(logicalId, id -> new EmfTotals());
    }

    public URI apiUrl() {
        return httpApi == null ? null : httpApi.endpoint();
    }

    public LocalHttpApi httpApi() {
        return httpApi;
    }

    public URI lambdaUrl() {
        return lambdaApi.endpoint();
    }

    public URI dynamoDbUrl() {
        return backend.dynamoDb();
    }

    public URI kinesisUrl() {
        return backend.kinesis();
    }

    public URI sqsUrl() {
        return backend.sqs();
    }

    /** Whether the route's event opts out of the API's authorizer ({@code Auth: {Authorizer: NONE}}), as AWS honours it. */
    private boolean unsigned(RouteSpec r) {
        for (com.fasterxml.jackson.databind.JsonNode e :
                stack.resolvedProperties(r.functionId()).path("Events")) {
            com.fasterxml.jackson.databind.JsonNode p = e.path("Properties");
            if (e.path("Type").asText().equals("HttpApi")
                    && p.path("Path").asText().equals(r.path())
                    && p.path("Method").asText().equalsIgnoreCase(r.method())) {
                return p.path("Auth").path("Authorizer").asText("").equals("NONE");
            }
        }
        return false;
    }

    /** The subscriber to the stack's alert topics, or null when the stack has none. */
    public AlertSubscriber alertSubscriber() {
        return alertSubscriber;
    }

    /** What serves the AWS services (the emulators or LocalStack). */
    public Backend backend() {
        return backend;
    }

    public SqsClient sqs() {
        return sqsClient;
    }

    /** Ref of a resource (table name, stream name, queue URL). */
    public String ref(String logicalId) {
        return resources.ref(logicalId);
    }

    /** The URLs of the template's queues (the DLQ). */
    public List<String> queueUrls() {
        return resources.queueUrls();
    }

    public List<String> notEmulated() {
        return resources.notEmulated();
    }

    /**
     * Stops kinesalite and starts it again on the same port (fault injection: with a {@code kinesisStore} the
     * stream's records survive, as a Kinesis outage does not lose acknowledged records).
     */
    public void restartKinesis() throws Exception {
        backend.restartKinesis();
    }

    /** The PIDs of every process the stack started (emulators and function JVMs). */
    public List<Long> pids() {
        List<Long> out = new ArrayList<>(lambda == null ? List.of() : lambda.pids());
        if (backend != null) {
            out.addAll(backend.pids());
        }
        return out;
    }

    /** Stops everything in reverse order of start; safe to call twice (Ctrl-C's hook and the normal exit). */
    @Override
    public synchronized void close() {
        closed = true;
        RuntimeException failure = null;
        while (!running.isEmpty()) {
            try {
                running.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("stopping the local stack failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        logs.values().forEach(PrintWriter::close);
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The backend {@link StackOptions#backend()} names. A LocalStack to start is tracked before it starts, so a
     * Ctrl-C during its start-up stops it too.
     */
    private Backend startBackend(StackOptions.Ports p) throws Exception {
        StackOptions.Backend choice = options.backend();
        if (choice.kind() == StackOptions.Backend.Kind.EMULATORS) {
            return EmulatorsBackend.start(
                    options.kinesisDir(),
                    options.motoServer(),
                    port(p.dynamoDb()),
                    port(p.kinesis()),
                    port(p.sqs()),
                    options.kinesisStore());
        }
        if (choice.localStackUrl() != null) {
            return LocalStackBackend.connect(choice.localStackUrl());
        }
        LocalStackBackend ls = track(LocalStackBackend.create(
                choice.localStackHome(),
                options.runtimeDir().getParent(),
                options.workDir().resolve("localstack"),
                options.kinesisDir().resolve("loopback.js"),
                p.localStack()));
        ls.start();
        return ls;
    }

    private static int port(int p) {
        return p == 0 ? Ports.free() : p;
    }

    private static <
                    B extends
                            software.amazon.awssdk.awscore.client.builder.AwsClientBuilder<B, C>
                                    & software.amazon.awssdk.core.client.builder.SdkSyncClientBuilder<B, C>,
                    C>
            C client(B builder, URI endpoint) {
        return builder.endpointOverride(endpoint)
                .region(Region.of(REGION))
                .credentialsProvider(CREDENTIALS)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
    }
}
