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
package dev.pulse.loadgen;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Deadline;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * Lambda entry point of the load generator, invoked directly ({@code aws lambda invoke}, {@code sam remote
 * invoke}) with the run's JSON. Translates only: the event to a validated {@link LoadGenRequest} (a bad one
 * gets {@code {"error":{"field","message"}}} and sends nothing), the run to {@link LoadGenService}, the report
 * to JSON and one EMF document. Sending stops {@value #STOP_MARGIN_MILLIS} ms before the timeout.
 */
public final class LoadGenHandler implements RequestStreamHandler {

    private static final Logger LOG = LoggerFactory.getLogger(LoadGenHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Time kept back at the end of the invocation to drain acknowledgements and verify the canary. */
    static final long STOP_MARGIN_MILLIS = 45_000;

    private final LoadGenService service;
    private final Metrics metrics;
    private final ColdStart coldStart = new ColdStart();

    /** Used by the Lambda runtime: STREAM_NAME is required; the function invokes itself for workers. */
    public LoadGenHandler() {
        this(
                LoadGenFunction.service(System.getenv("STREAM_NAME"), System.getenv("AWS_LAMBDA_FUNCTION_NAME")),
                PulseMetrics.create("loadgen"));
    }

    /** The handler around a wired service; {@link LoadGenFunction#handler} is the way in from other packages. */
    LoadGenHandler(LoadGenService service, Metrics metrics) {
        this.service = service;
        this.metrics = metrics;
    }

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        JsonNode event = JSON.readTree(input);
        ObjectNode result = PowertoolsLogging.withLogging(
                context,
                () -> InvocationMetrics.measure(LoadGenMetric.class, metrics, counters -> {
                    counters.add(LoadGenMetric.COLD_START, coldStart.take() ? 1 : 0);
                    long maxDuration = Math.max(1, (context.getRemainingTimeInMillis() - STOP_MARGIN_MILLIS) / 1000);
                    try {
                        LoadGenRequest r = LoadGenRequest.parse(event, maxDuration, context.getAwsRequestId());
                        ObjectNode report =
                                service.run(r, Deadline.inMillis(context.getRemainingTimeInMillis() - 5_000), counters);
                        LOG.info(
                                "load run finished",
                                entry("runId", r.runId()),
                                entry("worker", r.worker()),
                                entry("sent", report.path("sent").asLong()),
                                entry("acked", report.path("acked").asLong()),
                                entry("aggregate", r.aggregate()),
                                entry(
                                        "kinesisRecords",
                                        report.path("kinesisRecords").asLong()),
                                entry(
                                        "putPayloadUnits",
                                        report.path("putPayloadUnits").asLong()),
                                entry(
                                        "putPayloadUnitsUnaggregated",
                                        report.path("putPayloadUnitsUnaggregated")
                                                .asLong()));
                        return report;
                    } catch (LoadGenRequest.InvalidRequestException e) {
                        ObjectNode error = JSON.createObjectNode();
                        ObjectNode body = error.putObject("error");
                        body.put("field", e.field());
                        body.put("message", e.getMessage());
                        return error;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted", e);
                    }
                }));
        JSON.writeValue(output, result);
    }
}
