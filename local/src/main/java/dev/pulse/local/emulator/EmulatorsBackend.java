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

import dev.pulse.testing.StdoutCapture;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The default backend: DynamoDB Local in this JVM, kinesalite and moto as processes of their own, each on
 * 127.0.0.1 and its own port.
 */
public final class EmulatorsBackend implements Backend {

    /** Held strongly: java.util.logging keeps loggers weakly, and a collected one forgets its level. */
    private static final java.util.logging.Logger SDK_V1_LOG = java.util.logging.Logger.getLogger("com.amazonaws");

    private final LocalDynamoDb dynamo;
    private final KinesisEmulator kinesis;
    private final MotoSqs sqs;

    private EmulatorsBackend(LocalDynamoDb dynamo, KinesisEmulator kinesis, MotoSqs sqs) {
        this.dynamo = dynamo;
        this.kinesis = kinesis;
        this.sqs = sqs;
    }

    /**
     * Starts the three emulators (kinesalite and moto in parallel: they take a few seconds each); on failure stops
     * those that started.
     *
     * @param kinesisStore where kinesalite keeps its data across {@link #restartKinesis()}; null: in memory
     */
    public static EmulatorsBackend start(
            Path kinesisDir, Path motoServer, int dynamoPort, int kinesisPort, int sqsPort, Path kinesisStore)
            throws Exception {
        CompletableFuture<KinesisEmulator> k = CompletableFuture.supplyAsync(
                () -> call(() -> KinesisEmulator.start(kinesisDir, kinesisPort, kinesisStore)));
        CompletableFuture<MotoSqs> m =
                CompletableFuture.supplyAsync(() -> call(() -> MotoSqs.start(motoServer.toString(), sqsPort)));
        List<Exception> failures = new ArrayList<>();
        // DynamoDB Local prints its configuration to stdout and warns through java.util.logging; the local
        // stack's console is for the run's progress, so both are kept out of it (and shown if the start fails).
        SDK_V1_LOG.setLevel(java.util.logging.Level.SEVERE);
        LocalDynamoDb dynamo = null;
        StdoutCapture banner = StdoutCapture.keepingText();
        try {
            dynamo = LocalDynamoDb.start(dynamoPort);
        } catch (Exception e) {
            failures.add(new IllegalStateException("DynamoDB Local: " + e.getMessage() + "\n" + banner.text(), e));
        } finally {
            banner.close();
        }
        KinesisEmulator kinesis = join(k, failures);
        MotoSqs sqs = join(m, failures);
        if (!failures.isEmpty()) {
            IllegalStateException e = new IllegalStateException(
                    "could not start the emulators: " + failures.get(0).getMessage());
            failures.forEach(e::addSuppressed);
            for (AutoCloseable started : new AutoCloseable[] {dynamo, kinesis, sqs}) {
                if (started != null) {
                    try {
                        started.close();
                    } catch (Exception x) {
                        e.addSuppressed(x);
                    }
                }
            }
            throw e;
        }
        return new EmulatorsBackend(dynamo, kinesis, sqs);
    }

    @Override
    public String name() {
        return "emulators";
    }

    @Override
    public URI dynamoDb() {
        return dynamo.endpoint();
    }

    @Override
    public URI kinesis() {
        return kinesis.endpoint();
    }

    @Override
    public URI sqs() {
        return sqs.endpoint();
    }

    @Override
    public Map<String, String> functionEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("AWS_ENDPOINT_URL_DYNAMODB", dynamo.endpoint().toString());
        env.put("AWS_ENDPOINT_URL_DYNAMODB_STREAMS", dynamo.endpoint().toString());
        env.put("AWS_ENDPOINT_URL_KINESIS", kinesis.endpoint().toString());
        env.put("AWS_ENDPOINT_URL_SQS", sqs.endpoint().toString());
        env.put("AWS_ENDPOINT_URL_S3", sqs.endpoint().toString());
        // moto serves SNS too: the rules evaluator's notifications stay on 127.0.0.1.
        env.put("AWS_ENDPOINT_URL_SNS", sqs.endpoint().toString());
        // And Secrets Manager (the metric stream endpoint's access key).
        env.put("AWS_ENDPOINT_URL_SECRETS_MANAGER", sqs.endpoint().toString());
        // kinesalite speaks JSON only. SDK v2 reads the aws.cborEnabled setting from CBOR_ENABLED (not from
        // v1's AWS_CBOR_DISABLED, which v2 ignores: the records would arrive CBOR-encoded and unreadable).
        env.put("CBOR_ENABLED", "false");
        return env;
    }

    @Override
    public List<String[]> describe() {
        return List.of(
                new String[] {"DynamoDB Local", dynamo.endpoint().toString()},
                new String[] {"Kinesis", kinesis.endpoint().toString()},
                new String[] {"SQS (moto)", sqs.endpoint().toString()});
    }

    @Override
    public List<Long> pids() {
        return List.of(kinesis.pid(), sqs.pid());
    }

    /** Stops kinesalite and starts it again on the same port (with a store, the stream's records survive). */
    @Override
    public void restartKinesis() throws Exception {
        kinesis.restart();
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        for (AutoCloseable c : new AutoCloseable[] {sqs, kinesis, dynamo}) {
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private interface Call<T> {
        T call() throws Exception;
    }

    private static <T> T call(Call<T> c) {
        try {
            return c.call();
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static <T> T join(CompletableFuture<T> f, List<Exception> failures) {
        try {
            return f.join();
        } catch (CompletionException e) {
            failures.add(e.getCause() instanceof Exception x ? x : e);
            return null;
        }
    }
}
