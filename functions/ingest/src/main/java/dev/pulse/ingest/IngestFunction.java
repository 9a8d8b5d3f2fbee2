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
package dev.pulse.ingest;

import dev.pulse.codec.RecordDecoder;
import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import dev.pulse.dlq.DeadLetterQueue;
import dev.pulse.model.DatapointValidator;
import dev.pulse.retry.Backoff;
import dev.pulse.store.codec.SeriesCatalog;
import dev.pulse.store.schema.RedriveWindow;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.store.write.DynamoDbStore;
import dev.pulse.store.write.MarkMemory;
import dev.pulse.store.write.ShardCheckpoints;
import java.time.Clock;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * How IngestFunction is put together: its collaborators in, the {@link IngestService} or the Lambda handler out.
 * The runtime's path ({@link IngestHandler#IngestHandler()}) and every test, fuzz target or benchmark that runs the
 * function in process go through these methods, so they all run the wiring that is deployed.
 */
public final class IngestFunction {

    /** Series a warm container remembers as catalogued; past it the memory starts over (a few repeated, idempotent puts). */
    static final int MAX_REMEMBERED_SERIES = 100_000;
    /** Compaction marks a warm container remembers as set; past it the memory starts over. */
    static final int MAX_REMEMBERED_MARKS = 200_000;

    private IngestFunction() {}

    /** The deployed wiring: clients built from the Lambda environment, the system clock. */
    public static IngestService service(PulseConfig config) {
        // Marks (one UpdateItem each) run before the partials, with twice the lanes: see CompactMarks.
        return service(config, AwsClients.dynamoDbAsync(config.writeConcurrency() * 2), AwsClients.sqs());
    }

    /** The deployed wiring on given clients (emulators in tests and benchmarks) and the system clock. */
    public static IngestService service(PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs) {
        return service(config, dynamo, sqs, Clock.systemUTC());
    }

    /**
     * The deployed wiring on given clients and clock. The clock is the function's "now": the arrival-time checks,
     * the TTLs and the compaction marks read it (a simulated day runs on a clock the test moves).
     */
    public static IngestService service(PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs, Clock clock) {
        return service(config, dynamo, sqs, clock, UnaryOperator.identity());
    }

    /**
     * The deployed wiring with its record decoder wrapped by {@code decoder}: fault injection (a record that fails
     * every attempt, a decode that dies mid-batch) without a second copy of the wiring.
     */
    public static IngestService service(
            PulseConfig config,
            DynamoDbAsyncClient dynamo,
            SqsClient sqs,
            Clock clock,
            UnaryOperator<IngestService.UnitDecoder> decoder) {
        return serviceDecoding(config, dynamo, sqs, clock, records -> decoder.apply(records::decodeUnits));
    }

    /**
     * The deployed wiring with the unit decoder {@code decoderOf} makes of the configured record decoder: a source
     * whose records are not in the stream's formats (a Firehose delivery of a metric stream) goes through the same
     * exactly-once path with its own decoding and the same validation.
     */
    public static IngestService serviceDecoding(
            PulseConfig config,
            DynamoDbAsyncClient dynamo,
            SqsClient sqs,
            Clock clock,
            Function<RecordDecoder, IngestService.UnitDecoder> decoderOf) {
        Backoff backoff = new Backoff(config.retryBaseMillis(), config.retryCapMillis());
        RecordDecoder records =
                new RecordDecoder(new DatapointValidator(clock, config.acceptPast(), config.acceptFuture()));
        return new IngestService(
                        decoderOf.apply(records),
                        IngestService.MAX_BATCH_PARTIALS,
                        IngestService.MAX_BATCH_DATAPOINTS,
                        new DynamoDbStore(dynamo, config.tableName(), config.writeConcurrency(), backoff),
                        new SeriesCatalog(MAX_REMEMBERED_SERIES),
                        new CompactMarks(dynamo, config.tableName(), config.writeConcurrency() * 2, backoff),
                        new MarkMemory(
                                MAX_REMEMBERED_MARKS,
                                config.compactGrace().toMillis(),
                                config.ingestTimeout().toMillis() + 5_000),
                        // A record is attempted, live or redriven, up to the redrive window after it arrived: content
                        // claims outlive that (ShardCheckpoints#claimContent).
                        new ShardCheckpoints(dynamo, config.tableName(), backoff, config.redriveWindow()),
                        new DeadLetterQueue(sqs, config.deadLetterUrl(), backoff),
                        config.partialTtl().toSeconds(),
                        config.hourlyTtl().toSeconds(),
                        config.dailyTtl().toSeconds(),
                        clock)
                .redriveWindow(new RedriveWindow(config.redriveWindow()));
    }

    /**
     * The Lambda handler around {@code service}, as the runtime calls it: it stops taking new work
     * {@code safetyMarginMillis} before the invocation's deadline and publishes one metrics document per invocation
     * to {@code metrics}. No SnapStart hooks are registered (only the runtime's constructor does that).
     */
    public static IngestHandler handler(IngestService service, Metrics metrics, long safetyMarginMillis) {
        return new IngestHandler(service, metrics, safetyMarginMillis);
    }

    /** {@link #handler(IngestService, Metrics, long)} over the deployed wiring on given clients and clock. */
    public static IngestHandler handler(
            PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs, Clock clock, Metrics metrics) {
        return handler(service(config, dynamo, sqs, clock), metrics, config.safetyMarginMillis());
    }
}
