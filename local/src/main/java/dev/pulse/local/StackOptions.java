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

import dev.pulse.local.lambda.FaultPlan;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Where the local stack finds its inputs and which ports it takes.
 *
 * @param template       template.yaml (the single source of truth for functions, environment and mappings)
 * @param parameters     parameter overrides, as {@code sam deploy --parameter-overrides} takes them
 * @param stackName      the local stack's name ({@code AWS::StackName})
 * @param workDir        build output and function logs ({@code .local/})
 * @param runtimeDir     the Lambda runtime interface client jars (local/target/runtime)
 * @param kinesisDir     kinesalite's npm folder (tools/kinesis)
 * @param motoServer     moto_server (.venv/bin/moto_server), the SQS and S3 endpoint
 * @param ports          fixed ports (DynamoDB 8000, Kinesis 4567, SQS 4566, Lambda 9001, API 3000) or, with
 *                       {@link Ports#EPHEMERAL}, free ones (tests)
 * @param maxConcurrency execution environments per function at most
 * @param environment    variables set on every function on top of the template's ({@code make invoke ENV=...})
 * @param faults         faults to inject (tests); {@link FaultPlan#NONE} normally
 * @param kinesisStore   where kinesalite keeps its data, so it survives a restart; null: in memory
 * @param scheduleEvery  how often the template's {@code Schedule} events run: null for their own rate, a shorter
 *                       period to compress time ({@code make run}'s {@code COMPACT_EVERY}), {@link Duration#ZERO} for
 *                       no runs of their own (only {@link ScheduleRunner#runNow()})
 * @param backend        what serves DynamoDB, Kinesis, SQS and S3: the bundled emulators or LocalStack
 */
public record StackOptions(
        Path template,
        Map<String, String> parameters,
        String stackName,
        Path workDir,
        Path runtimeDir,
        Path kinesisDir,
        Path motoServer,
        Ports ports,
        int maxConcurrency,
        Map<String, String> environment,
        FaultPlan faults,
        Path kinesisStore,
        Duration scheduleEvery,
        Backend backend) {

    public StackOptions {
        if (scheduleEvery != null && scheduleEvery.isNegative()) {
            throw new IllegalArgumentException("scheduleEvery cannot be negative: " + scheduleEvery);
        }
        if (backend == null) {
            throw new IllegalArgumentException("backend is required");
        }
    }

    /** Options on the bundled emulators. */
    public StackOptions(
            Path template,
            Map<String, String> parameters,
            String stackName,
            Path workDir,
            Path runtimeDir,
            Path kinesisDir,
            Path motoServer,
            Ports ports,
            int maxConcurrency,
            Map<String, String> environment,
            FaultPlan faults,
            Path kinesisStore,
            Duration scheduleEvery) {
        this(
                template,
                parameters,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                maxConcurrency,
                environment,
                faults,
                kinesisStore,
                scheduleEvery,
                Backend.EMULATORS);
    }

    /**
     * What serves the AWS services the functions call.
     *
     * @param kind           the bundled emulators (DynamoDB Local, kinesalite, moto) or LocalStack
     * @param localStackHome LocalStack's install (tools/localstack: its venv, launcher and kinesis-mock)
     * @param localStackUrl  an already running LocalStack to use instead of starting one (null: start one)
     */
    public record Backend(Kind kind, Path localStackHome, URI localStackUrl) {
        public static final Backend EMULATORS = new Backend(Kind.EMULATORS, null, null);

        /** The two backends, by the name {@code --backend} takes. */
        public enum Kind {
            EMULATORS,
            LOCALSTACK;

            public String optionName() {
                return name().toLowerCase(java.util.Locale.ROOT);
            }
        }

        public static Backend localStack(Path home, URI url) {
            return new Backend(Kind.LOCALSTACK, home, url);
        }
    }

    /** Options whose schedules run at the template's rates. */
    public StackOptions(
            Path template,
            Map<String, String> parameters,
            String stackName,
            Path workDir,
            Path runtimeDir,
            Path kinesisDir,
            Path motoServer,
            Ports ports,
            int maxConcurrency,
            Map<String, String> environment,
            FaultPlan faults,
            Path kinesisStore) {
        this(
                template,
                parameters,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                maxConcurrency,
                environment,
                faults,
                kinesisStore,
                null);
    }

    /**
     * The ports the local stack listens on, all on 127.0.0.1; 0 means any free port. {@code localStack} is the
     * gateway of a LocalStack the stack starts (the localstack backend), in place of the three emulators' ports.
     */
    public record Ports(int dynamoDb, int kinesis, int sqs, int lambda, int api, int localStack) {
        public static final Ports FIXED = new Ports(8000, 4567, 4566, 9001, 3000, 4566);
        public static final Ports EPHEMERAL = new Ports(0, 0, 0, 0, 0, 0);

        public Ports withLocalStack(int port) {
            return new Ports(dynamoDb, kinesis, sqs, lambda, api, port);
        }
    }

    /** The repository's layout, rooted at the folder holding template.yaml. */
    public static StackOptions defaults(Path root) {
        return new StackOptions(
                root.resolve("template.yaml"),
                Map.of(),
                "pulse-local",
                root.resolve(".local"),
                root.resolve("local/target/runtime"),
                root.resolve("tools/kinesis"),
                root.resolve(".venv/bin/moto_server"),
                Ports.FIXED,
                10,
                Map.of(),
                FaultPlan.NONE,
                null);
    }

    public StackOptions withParameters(Map<String, String> p) {
        return new StackOptions(
                template,
                p,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                maxConcurrency,
                environment,
                faults,
                kinesisStore,
                scheduleEvery,
                backend);
    }

    public StackOptions withPorts(Ports p) {
        return new StackOptions(
                template,
                parameters,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                p,
                maxConcurrency,
                environment,
                faults,
                kinesisStore,
                scheduleEvery,
                backend);
    }

    public StackOptions withEnvironment(Map<String, String> env) {
        return new StackOptions(
                template,
                parameters,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                maxConcurrency,
                env,
                faults,
                kinesisStore,
                scheduleEvery,
                backend);
    }

    public StackOptions withMaxConcurrency(int n) {
        return new StackOptions(
                template,
                parameters,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                n,
                environment,
                faults,
                kinesisStore,
                scheduleEvery,
                backend);
    }

    public StackOptions withFaults(FaultPlan plan, Path kinesisStoreDir) {
        return new StackOptions(
                template,
                parameters,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                maxConcurrency,
                environment,
                plan,
                kinesisStoreDir,
                scheduleEvery,
                backend);
    }

    /** See {@link #scheduleEvery()}: null for the template's rates, zero for no scheduled runs. */
    public StackOptions withScheduleEvery(Duration every) {
        return new StackOptions(
                template,
                parameters,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                maxConcurrency,
                environment,
                faults,
                kinesisStore,
                every,
                backend);
    }

    /** The AWS services on {@code b} instead. */
    public StackOptions withBackend(Backend b) {
        return new StackOptions(
                template,
                parameters,
                stackName,
                workDir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                maxConcurrency,
                environment,
                faults,
                kinesisStore,
                scheduleEvery,
                b);
    }

    public StackOptions withWorkDir(Path dir) {
        return new StackOptions(
                template,
                parameters,
                stackName,
                dir,
                runtimeDir,
                kinesisDir,
                motoServer,
                ports,
                maxConcurrency,
                environment,
                faults,
                kinesisStore,
                scheduleEvery,
                backend);
    }
}
