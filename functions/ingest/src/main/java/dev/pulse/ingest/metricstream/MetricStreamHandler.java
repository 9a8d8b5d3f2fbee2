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
package dev.pulse.ingest.metricstream;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * Lambda entry point behind {@code POST /firehose/metric-stream}, the HTTP endpoint a Firehose delivery stream sends a
 * CloudWatch metric stream to. Translates only: Firehose's request (protocol 1.0) to {@link MetricStreamService}, the
 * result to Firehose's response ({@code requestId}, {@code timestamp}, and {@code errorMessage} with any status but 200,
 * which Firehose retries until its retry duration ends, then backs the delivery up to S3).
 */
public final class MetricStreamHandler implements RequestHandler<APIGatewayV2HTTPEvent, APIGatewayV2HTTPResponse> {

    private static final Logger LOG = LoggerFactory.getLogger(MetricStreamHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Firehose waits 3 minutes for an answer; API Gateway 30 s. The answer leaves well before either. */
    static final long MAX_BUDGET_MILLIS = 25_000;

    private final MetricStreamService service;
    private final AccessKey accessKey;
    private final Metrics metrics;
    private final long safetyMarginMillis;
    private final Clock clock;
    private final ColdStart coldStart = new ColdStart();

    /** Used by the Lambda runtime: configuration from the environment, clients built once per container. */
    public MetricStreamHandler() {
        this(MetricStreamFunction.wire(MetricStreamConfig.fromEnvironment(System.getenv())));
    }

    private MetricStreamHandler(MetricStreamFunction.Wiring w) {
        this(w.service(), w.accessKey(), w.metrics(), w.safetyMarginMillis(), w.clock());
    }

    /** The handler around wired collaborators; {@link MetricStreamFunction#handler} is the way in from other packages. */
    MetricStreamHandler(
            MetricStreamService service, AccessKey accessKey, Metrics metrics, long safetyMarginMillis, Clock clock) {
        this.service = service;
        this.accessKey = accessKey;
        this.metrics = metrics;
        this.safetyMarginMillis = safetyMarginMillis;
        this.clock = clock;
    }

    @Override
    public APIGatewayV2HTTPResponse handleRequest(APIGatewayV2HTTPEvent event, Context context) {
        return PowertoolsLogging.withLogging(
                context,
                () -> InvocationMetrics.measure(IngestMetric.class, metrics, counters -> {
                    counters.add(IngestMetric.COLD_START, coldStart.take() ? 1 : 0);
                    Map<String, String> headers = event.getHeaders() == null ? Map.of() : event.getHeaders();
                    String requestId = header(headers, "x-amz-firehose-request-id");
                    String method = event.getRequestContext() == null
                                    || event.getRequestContext().getHttp() == null
                            ? ""
                            : event.getRequestContext().getHttp().getMethod();
                    if (!"POST".equals(method)) {
                        return answer(
                                405,
                                requestId,
                                "use POST: this is Firehose's HTTP endpoint for a CloudWatch metric stream");
                    }
                    try {
                        if (!accessKey.accepts(header(headers, "x-amz-firehose-access-key"))) {
                            LOG.warn("delivery refused: wrong or missing access key", entry("requestId", requestId));
                            return answer(
                                    401,
                                    requestId,
                                    "X-Amz-Firehose-Access-Key is missing or not the stack's access key");
                        }
                        byte[] body = event.getBody() == null
                                ? new byte[0]
                                : event.getIsBase64Encoded()
                                        ? Base64.getDecoder().decode(event.getBody())
                                        : event.getBody().getBytes(StandardCharsets.UTF_8);
                        FirehoseRequest request = FirehoseRequest.parse(
                                body, "gzip".equalsIgnoreCase(header(headers, "content-encoding")));
                        long budget =
                                Math.min(MAX_BUDGET_MILLIS, context.getRemainingTimeInMillis() - safetyMarginMillis);
                        IngestResult r = service.deliver(request, Deadline.inMillis(budget), counters);
                        if (r.failed() || r.endedEarly() != null) {
                            String why = r.failed() ? r.failureReason() : r.endedEarly();
                            LOG.error(
                                    "delivery not stored whole; Firehose sends it again and what was stored is skipped",
                                    entry("reason", why),
                                    entry("requestId", request.requestId()),
                                    entry("records", r.records()));
                            return answer(500, request.requestId(), "not stored whole, send again: " + why);
                        }
                        LOG.info(
                                "delivery stored",
                                entry("requestId", request.requestId()),
                                entry("records", r.records()),
                                entry("datapoints", r.datapoints()),
                                entry("partials", r.partials()),
                                entry("poison", r.poisonRecords()),
                                entry("alreadyStored", r.alreadyStored()));
                        return answer(200, request.requestId(), null);
                    } catch (FirehoseRequest.BadRequest | IllegalArgumentException e) {
                        LOG.warn("delivery refused", entry("reason", e.getMessage()), entry("requestId", requestId));
                        return answer(400, requestId, e.getMessage());
                    } catch (RuntimeException e) {
                        LOG.error("delivery failed", entry("requestId", requestId), e);
                        return answer(500, requestId, "the delivery could not be stored; it is safe to send again");
                    }
                }));
    }

    private static String header(Map<String, String> headers, String name) {
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
    }

    /** Firehose's response body: the request id it sent, a timestamp, and the reason with any status but 200. */
    private APIGatewayV2HTTPResponse answer(int status, String requestId, String error) {
        ObjectNode body = JSON.createObjectNode();
        body.put("requestId", requestId == null ? "" : requestId);
        body.put("timestamp", clock.millis());
        if (error != null) {
            body.put("errorMessage", error);
        }
        return APIGatewayV2HTTPResponse.builder()
                .withStatusCode(status)
                .withHeaders(Map.of("Content-Type", "application/json"))
                .withBody(body.toString())
                .build();
    }
}
