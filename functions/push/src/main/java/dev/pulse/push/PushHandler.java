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
package dev.pulse.push;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedOutputStream;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsPartialSuccess;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * Lambda entry point behind {@code POST /otlp/v1/metrics} and {@code POST /prometheus/api/v1/write}. Translates only:
 * the HTTP API's event to {@link PushService}, the outcome to what each protocol's clients expect.
 * <ul>
 *   <li>OTLP/HTTP: 200 with an {@code ExportMetricsServiceResponse} in the request's encoding ({@code partial_success}
 *       when points were rejected); errors carry a {@code google.rpc.Status} in the request's encoding: 400 (not
 *       retried), 413, 415, 503 with {@code Retry-After} (retried);</li>
 *   <li>remote write: 204; 400 with a plain-text reason for a payload that cannot be stored (Prometheus drops the
 *       batch and does not retry; when only some samples were rejected, the others are stored first), 413, 415, and
 *       503 (retried) when the stream did not take the records.</li>
 * </ul>
 */
public final class PushHandler implements RequestHandler<APIGatewayV2HTTPEvent, APIGatewayV2HTTPResponse> {

    private static final Logger LOG = LoggerFactory.getLogger(PushHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String OTLP_PATH = "/otlp/v1/metrics";
    static final String REMOTE_WRITE_PATH = "/prometheus/api/v1/write";
    /** API Gateway waits 30 s for an integration: the answer leaves well before. */
    static final long MAX_BUDGET_MILLIS = 25_000;

    private final PushService service;
    private final Metrics metrics;
    private final long safetyMarginMillis;
    private final ColdStart coldStart = new ColdStart();

    /** Used by the Lambda runtime: configuration from the environment, clients built once per container. */
    public PushHandler() {
        this(PushFunction.wire(PushConfig.fromEnvironment(System.getenv())));
    }

    private PushHandler(PushFunction.Wiring w) {
        this(w.service(), w.metrics(), w.safetyMarginMillis());
    }

    PushHandler(PushService service, Metrics metrics, long safetyMarginMillis) {
        this.service = service;
        this.metrics = metrics;
        this.safetyMarginMillis = safetyMarginMillis;
    }

    @Override
    public APIGatewayV2HTTPResponse handleRequest(APIGatewayV2HTTPEvent event, Context context) {
        return PowertoolsLogging.withLogging(
                context,
                () -> InvocationMetrics.measure(PushMetric.class, metrics, counters -> {
                    counters.add(PushMetric.COLD_START, coldStart.take() ? 1 : 0);
                    APIGatewayV2HTTPResponse r = handle(event, context, counters);
                    int status = r.getStatusCode();
                    counters.increment(
                            status < 300
                                    ? PushMetric.REQUESTS_ACCEPTED
                                    : status == 503 ? PushMetric.REQUESTS_UNAVAILABLE : PushMetric.REQUESTS_REFUSED);
                    return r;
                }));
    }

    private APIGatewayV2HTTPResponse handle(
            APIGatewayV2HTTPEvent event, Context context, InvocationMetrics<PushMetric> counters) {
        Map<String, String> headers = event.getHeaders() == null ? Map.of() : event.getHeaders();
        String path = event.getRawPath() == null ? "" : event.getRawPath();
        String method =
                event.getRequestContext() == null || event.getRequestContext().getHttp() == null
                        ? ""
                        : event.getRequestContext().getHttp().getMethod();
        boolean otlp = path.endsWith(OTLP_PATH);
        OtlpBody.Encoding encoding = OtlpBody.encoding(header(headers, "content-type"));
        OtlpBody.Encoding answerAs = encoding == null ? OtlpBody.Encoding.PROTOBUF : encoding;
        if (!otlp && !path.endsWith(REMOTE_WRITE_PATH)) {
            return text(404, "no push endpoint at " + path + ": use " + OTLP_PATH + " or " + REMOTE_WRITE_PATH);
        }
        if (!"POST".equals(method)) {
            String why =
                    "use POST: this is " + (otlp ? "an OTLP/HTTP metrics" : "a Prometheus remote write") + " endpoint";
            return otlp ? status(405, why, answerAs) : text(405, why);
        }
        try {
            byte[] body = body(event);
            counters.add(PushMetric.BYTES_IN, body.length);
            long budget = Math.min(MAX_BUDGET_MILLIS, context.getRemainingTimeInMillis() - safetyMarginMillis);
            Deadline deadline = Deadline.inMillis(budget);
            if (otlp) {
                if (encoding == null) {
                    throw PushException.unsupported("Content-Type must be application/x-protobuf or application/json"
                            + " (OTLP/HTTP), got \"" + header(headers, "content-type") + "\"");
                }
                PushService.Outcome o =
                        service.otlp(body, encoding, header(headers, "content-encoding"), deadline, counters);
                log(o, "otlp");
                return exported(o, encoding);
            }
            RemoteWriteDecoder.checkVersion(header(headers, "x-prometheus-remote-write-version"));
            PushService.Outcome o = service.remoteWrite(
                    body, header(headers, "content-type"), header(headers, "content-encoding"), deadline, counters);
            log(o, "remote-write");
            if (o.rejected() > 0) {
                return text(
                        400,
                        o.rejected() + " samples rejected and not stored (the request's other " + o.points()
                                + " samples are stored): " + o.firstRejection());
            }
            return APIGatewayV2HTTPResponse.builder()
                    .withStatusCode(204)
                    .withHeaders(Map.of())
                    .build();
        } catch (PushException e) {
            if (e.status() == 503) {
                LOG.error("push not stored", entry("reason", e.getMessage()), entry("path", path));
            } else {
                LOG.warn(
                        "push refused",
                        entry("reason", e.getMessage()),
                        entry("path", path),
                        entry("status", e.status()));
            }
            return otlp ? status(e.status(), e.getMessage(), answerAs) : text(e.status(), e.getMessage());
        } catch (IllegalArgumentException e) {
            // A body flagged base64 that is not.
            return otlp ? status(400, e.getMessage(), answerAs) : text(400, e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("push failed", entry("path", path), e);
            String why = "the request could not be stored; it is safe to send again";
            return otlp ? status(503, why, answerAs) : text(503, why);
        }
    }

    private static void log(PushService.Outcome o, String protocol) {
        if (o.rejected() > 0 || o.dropped() > 0) {
            LOG.warn(
                    "push stored in part",
                    entry("reason", o.firstRejection() != null ? o.firstRejection() : o.firstDrop()),
                    entry("protocol", protocol),
                    entry("points", o.points()),
                    entry("rejected", o.rejected()),
                    entry("dropped", o.dropped()),
                    entry("records", o.records()));
        } else {
            LOG.debug(
                    "push stored",
                    entry("protocol", protocol),
                    entry("points", o.points()),
                    entry("records", o.records()));
        }
    }

    private static byte[] body(APIGatewayV2HTTPEvent event) {
        if (event.getBody() == null) {
            return new byte[0];
        }
        return event.getIsBase64Encoded()
                ? Base64.getDecoder().decode(event.getBody())
                : event.getBody().getBytes(StandardCharsets.UTF_8);
    }

    private static String header(Map<String, String> headers, String name) {
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
    }

    /** 200 with an ExportMetricsServiceResponse; {@code partial_success} names the points rejected alone. */
    static APIGatewayV2HTTPResponse exported(PushService.Outcome o, OtlpBody.Encoding encoding) {
        ExportMetricsServiceResponse.Builder r = ExportMetricsServiceResponse.newBuilder();
        if (o.rejected() > 0) {
            r.setPartialSuccess(ExportMetricsPartialSuccess.newBuilder()
                    .setRejectedDataPoints(o.rejected())
                    .setErrorMessage(o.rejected() + " data points rejected and not stored (the request's other "
                            + o.points() + " are stored); first: " + o.firstRejection()));
        }
        if (encoding == OtlpBody.Encoding.JSON) {
            ObjectNode body = JSON.createObjectNode();
            if (r.hasPartialSuccess()) {
                ObjectNode p = body.putObject("partialSuccess");
                p.put("rejectedDataPoints", Long.toString(r.getPartialSuccess().getRejectedDataPoints()));
                p.put("errorMessage", r.getPartialSuccess().getErrorMessage());
            }
            return json(200, body);
        }
        return binary(200, r.build().toByteArray(), Map.of());
    }

    /** An OTLP error: a google.rpc.Status (code, message) in the request's encoding. */
    static APIGatewayV2HTTPResponse status(int http, String message, OtlpBody.Encoding encoding) {
        int code = switch (http) {
            case 503 -> 14; // UNAVAILABLE
            case 405, 404 -> 12; // UNIMPLEMENTED
            case 413 -> 8; // RESOURCE_EXHAUSTED
            default -> 3; // INVALID_ARGUMENT
        };
        Map<String, String> extra = http == 503 ? Map.of("Retry-After", "1") : Map.of();
        if (encoding == OtlpBody.Encoding.JSON) {
            ObjectNode body = JSON.createObjectNode();
            body.put("code", code);
            body.put("message", message);
            APIGatewayV2HTTPResponse r = json(http, body);
            if (!extra.isEmpty()) {
                r.setHeaders(Map.of("Content-Type", "application/json", "Retry-After", "1"));
            }
            return r;
        }
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            out.writeInt32(1, code);
            out.writeString(2, message);
            out.flush();
            return binary(http, bytes.toByteArray(), extra);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static APIGatewayV2HTTPResponse json(int status, ObjectNode body) {
        return APIGatewayV2HTTPResponse.builder()
                .withStatusCode(status)
                .withHeaders(Map.of("Content-Type", "application/json"))
                .withBody(body.toString())
                .build();
    }

    private static APIGatewayV2HTTPResponse binary(int status, byte[] body, Map<String, String> extra) {
        Map<String, String> headers = new java.util.HashMap<>(extra);
        headers.put("Content-Type", "application/x-protobuf");
        return APIGatewayV2HTTPResponse.builder()
                .withStatusCode(status)
                .withHeaders(headers)
                .withBody(Base64.getEncoder().encodeToString(body))
                .withIsBase64Encoded(true)
                .build();
    }

    private static APIGatewayV2HTTPResponse text(int status, String message) {
        return APIGatewayV2HTTPResponse.builder()
                .withStatusCode(status)
                .withHeaders(Map.of("Content-Type", "text/plain; charset=utf-8"))
                .withBody(message + "\n")
                .build();
    }
}
