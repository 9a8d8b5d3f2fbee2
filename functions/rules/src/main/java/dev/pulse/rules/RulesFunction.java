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
package dev.pulse.rules;

import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.CatalogService;
import dev.pulse.query.QueryFunction;
import dev.pulse.query.QueryMetric;
import dev.pulse.query.QueryService;
import dev.pulse.query.promql.PromQlException;
import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.rules.store.DynamoDbAlertStore;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * How the rules evaluator is put together: the rule files, the query service's PromQL as the {@link Querier}, the
 * alert store and the record sink in, a {@link GroupEvaluator} out. The Lambda handler and every test that runs the
 * evaluator in process go through these methods.
 */
public final class RulesFunction {

    /** A query inside a rule may take this long; a group's rules share the invocation's budget. */
    public static final long QUERY_BUDGET_MILLIS = 10_000;

    private RulesFunction() {}

    /** The rule files packaged with the function ({@code rules/} in the artifact, from the repository's rules/). */
    public static RuleSet bundledRules() throws RuleFileException {
        URL url = RulesFunction.class.getClassLoader().getResource("rules");
        if (url == null) {
            return new RuleSet(java.util.List.of());
        }
        try {
            if ("jar".equals(url.getProtocol())) {
                // Inside the function's jar (the deployed artifact): read through the jar's file system.
                String s = url.toString();
                java.net.URI jar = java.net.URI.create(s.substring(0, s.indexOf("!/")));
                try (FileSystem fs = FileSystems.newFileSystem(jar, Map.of())) {
                    return RuleFiles.loadDirectory(fs.getPath("/rules"));
                }
            }
            return RuleFiles.loadDirectory(Path.of(url.toURI()));
        } catch (IOException | URISyntaxException e) {
            throw new RuleFileException("rules/: cannot be read: " + e.getMessage());
        }
    }

    /**
     * The query service's PromQL as a {@link Querier}: an expression at {@code t} is the point at {@code t} of a
     * range query whose step is the group's interval, read with the query function's own code and clock.
     */
    public static Querier querier(PulseConfig config, DynamoDbAsyncClient client, Clock clock) {
        QueryService queries = QueryFunction.service(config, client, clock, QueryFunction.cache());
        return querier(new RuleEvaluation(queries, new CatalogService(client, config.tableName(), clock)));
    }

    public static Querier querier(RuleEvaluation evaluation) {
        return (expr, time, interval) -> {
            try {
                return evaluation
                        .evaluate(
                                expr,
                                time,
                                interval,
                                Deadline.inMillis(QUERY_BUDGET_MILLIS),
                                new InvocationMetrics<>(QueryMetric.class))
                        .samples();
            } catch (PromQlException e) {
                throw new Querier.QueryFailedException(e.type().wireName() + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
                throw new Querier.QueryFailedException("query failed: " + e, e);
            }
        };
    }

    public static GroupEvaluator evaluator(
            Querier querier,
            AlertStore store,
            RecordSink sink,
            Map<String, String> externalLabels,
            String externalUrl) {
        return new GroupEvaluator(querier, store, sink, externalLabels, externalUrl);
    }

    /** Everything the handler needs, built once per container. */
    record Wiring(
            RuleSet rules,
            GroupEvaluator evaluator,
            AlertStore store,
            Notifier notifier,
            Metrics metrics,
            int catchUpLimit,
            long safetyMarginMillis,
            AtomicReference<Deadline> deadline,
            Clock clock,
            AlertmanagerSender alertmanager,
            int groupConcurrency) {}

    static Wiring wire(RulesConfig config, RuleSet rules, Metrics metrics, Clock clock) {
        PulseConfig shared = config.shared();
        SnsClient sns = AwsClients.endpoint(SnsClient.builder(), "SNS", "sns", Region.of(config.region()))
                .region(Region.of(config.region()))
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(3)))
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(10)))
                .build();
        return wire(
                config,
                rules,
                metrics,
                clock,
                AwsClients.dynamoDbAsync(shared.writeConcurrency()),
                AwsClients.sqs(),
                sns,
                alertmanager(config));
    }

    /**
     * The handler over clients the caller built (the benchmarks' emulators), wired as the deployed function is
     * otherwise; no Alertmanager.
     */
    public static RulesHandler handler(
            RulesConfig config,
            RuleSet rules,
            Metrics metrics,
            Clock clock,
            DynamoDbAsyncClient dynamo,
            software.amazon.awssdk.services.sqs.SqsClient sqs,
            SnsClient sns) {
        return new RulesHandler(wire(config, rules, metrics, clock, dynamo, sqs, sns, null));
    }

    private static Wiring wire(
            RulesConfig config,
            RuleSet rules,
            Metrics metrics,
            Clock clock,
            DynamoDbAsyncClient dynamo,
            software.amazon.awssdk.services.sqs.SqsClient sqs,
            SnsClient sns,
            AlertmanagerSender alertmanager) {
        PulseConfig shared = config.shared();
        AtomicReference<Deadline> deadline = new AtomicReference<>(Deadline.inMillis(QUERY_BUDGET_MILLIS));
        AlertStore store = new DynamoDbAlertStore(
                dynamo,
                shared.tableName(),
                new Backoff(shared.retryBaseMillis(), shared.retryCapMillis()),
                deadline::get);
        Notifier notifier = new SnsNotifier(sns, config.topicArn(), Map.of(), config.externalUrl(), config.receiver());
        RecordSink sink = new IngestRecordSink(
                IngestFunction.service(shared, dynamo, sqs, clock), deadline::get, clock, config.region());
        GroupEvaluator evaluator =
                evaluator(querier(shared, dynamo, clock), store, sink, Map.of(), config.externalUrl());
        return new Wiring(
                rules,
                evaluator,
                store,
                notifier,
                metrics,
                config.catchUpLimit(),
                shared.safetyMarginMillis(),
                deadline,
                clock,
                alertmanager,
                // As many groups at once as the DynamoDB client has connections: each group's thread waits on one
                // request at a time (its state read and conditional write, its records, its queries' reads).
                shared.writeConcurrency());
    }

    /**
     * The Alertmanager sender {@code ALERTMANAGER_URL} asks for, or null. Its credentials are read from Secrets Manager
     * at the first send, not here: the init is snapshotted (SnapStart), and a snapshot holds no credential.
     */
    static AlertmanagerSender alertmanager(RulesConfig config) {
        if (config.alertmanagerUrl().isEmpty()) {
            return null;
        }
        AlertmanagerAuth auth = AlertmanagerAuth.none();
        if (config.alertmanagerAuth() != AlertmanagerAuth.Scheme.NONE) {
            SecretsManagerClient secrets = AwsClients.endpoint(
                            SecretsManagerClient.builder(),
                            "SECRETS_MANAGER",
                            "secretsmanager",
                            Region.of(config.region()))
                    .region(Region.of(config.region()))
                    .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(3)))
                    .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(5)))
                    .build();
            auth = new AlertmanagerAuth(
                    config.alertmanagerAuth(),
                    () -> secrets.getSecretValue(r -> r.secretId(config.alertmanagerSecretArn()))
                            .secretString(),
                    Clock.systemUTC());
        }
        return new AlertmanagerSender(
                AlertmanagerSender.httpClient(), config.alertmanagerUrl(), auth, Map.of(), config.externalUrl());
    }
}
