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
package dev.pulse.local.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.pulse.local.esm.InvokeResult;
import dev.pulse.local.internal.LoopbackHttp;
import dev.pulse.local.lambda.LocalLambda;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.HdrHistogram.Recorder;

/**
 * An API Gateway HTTP API on 127.0.0.1: each request becomes the payload format 2.0 event the deployed
 * function receives (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html),
 * and the function's answer is mapped back the way API Gateway maps it. With {@code AWS_IAM} on the routes a
 * request without a SigV4 {@code Authorization} header gets API Gateway's 403; signatures are not verified
 * (there is no IAM locally).
 */
public final class LocalHttpApi implements AutoCloseable {

    /**
     * One route of the template: {@code Method} and {@code Path} of an HttpApi event, its function, and whether it
     * takes the API's IAM authorizer ({@code unsigned}: the event's {@code Auth.Authorizer} is {@code NONE}).
     */
    public record Route(String method, String path, String functionName, boolean unsigned) {
        public Route(String method, String path, String functionName) {
            this(method, path, functionName, false);
        }

        String key() {
            return path.equals("$default") ? "$default" : method.toUpperCase(Locale.ROOT) + " " + path;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter REQUEST_TIME = DateTimeFormatter.ofPattern(
                    "dd/MMM/yyyy:HH:mm:ss Z", Locale.ENGLISH)
            .withZone(ZoneOffset.UTC);

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Route> routes;
    private final LocalLambda lambda;
    private final boolean iamAuth;
    private final Recorder latencyMicros = new Recorder(3);

    public LocalHttpApi(List<Route> routes, LocalLambda lambda, boolean iamAuth, int port) throws IOException {
        this.routes = List.copyOf(routes);
        this.lambda = lambda;
        this.iamAuth = iamAuth;
        server = LoopbackHttp.start(port, 128, this::handle, executor);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Latencies (microseconds) of the requests served since the last call. */
    public org.HdrHistogram.Histogram latencies() {
        return latencyMicros.getIntervalHistogram();
    }

    private void handle(HttpExchange ex) throws IOException {
        long started = System.nanoTime();
        try (ex) {
            String method = ex.getRequestMethod().toUpperCase(Locale.ROOT);
            String path = ex.getRequestURI().getRawPath();
            Route route = route(method, path);
            if (route == null) {
                message(ex, 404, "Not Found");
                return;
            }
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            if (iamAuth && !route.unsigned() && (auth == null || !auth.startsWith("AWS4-HMAC-SHA256 "))) {
                message(ex, 403, "Forbidden");
                return;
            }
            byte[] body = LoopbackHttp.body(ex);
            InvokeResult r;
            try {
                r = lambda.invoke(
                        route.functionName(), event(ex, route, body).toString().getBytes(StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                message(ex, 503, "Service Unavailable");
                return;
            } catch (RuntimeException e) {
                // The function could not be invoked at all (its environment did not start, the stack is stopping).
                message(ex, 500, "Internal Server Error");
                return;
            }
            if (r.failed()) {
                message(ex, 500, "Internal Server Error");
                return;
            }
            respond(ex, r.payload());
        } finally {
            latencyMicros.recordValue(Math.max(1, (System.nanoTime() - started) / 1_000));
        }
    }

    /**
     * The route API Gateway would pick: an exact method and path, else {@code ANY} on the path, else the same with
     * path parameters ({@code /label/{name}/values}: one segment each), else the {@code $default} route. (Greedy
     * paths, {@code {proxy+}}, are not matched; the template has none.)
     */
    private Route route(String method, String path) {
        for (boolean templated : new boolean[] {false, true}) {
            for (String m : new String[] {method, "ANY"}) {
                for (Route r : routes) {
                    if (r.method().equalsIgnoreCase(m)
                            && (templated
                                    ? pathParameters(r, path) != null
                                    : r.path().equals(path))) {
                        return r;
                    }
                }
            }
        }
        return routes.stream()
                .filter(r -> r.path().equals("$default"))
                .findFirst()
                .orElse(null);
    }

    /** The values of a route's {@code {name}} segments in a raw path (decoded), or null when the path does not match. */
    static Map<String, String> pathParameters(Route route, String rawPath) {
        String[] want = route.path().split("/", -1);
        String[] got = rawPath.split("/", -1);
        if (want.length != got.length) {
            return null;
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < want.length; i++) {
            if (want[i].length() > 2 && want[i].startsWith("{") && want[i].endsWith("}") && !want[i].endsWith("+}")) {
                if (got[i].isEmpty()) {
                    return null;
                }
                try {
                    params.put(want[i].substring(1, want[i].length() - 1), decode(got[i].replace("+", "%2B")));
                } catch (IllegalArgumentException e) {
                    return null;
                }
            } else if (!want[i].equals(got[i])) {
                return null;
            }
        }
        return params;
    }

    /** The payload format 2.0 event. */
    ObjectNode event(HttpExchange ex, Route route, byte[] body) {
        ObjectNode e = JSON.createObjectNode();
        e.put("version", "2.0");
        e.put("routeKey", route.key());
        e.put("rawPath", ex.getRequestURI().getRawPath());
        String query = ex.getRequestURI().getRawQuery();
        e.put("rawQueryString", query == null ? "" : query);
        ObjectNode headers = e.putObject("headers");
        ex.getRequestHeaders().forEach((k, v) -> {
            if (!k.equalsIgnoreCase("Cookie")) {
                headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v));
            }
        });
        List<String> cookies = ex.getRequestHeaders().get("Cookie");
        if (cookies != null) {
            var arr = e.putArray("cookies");
            cookies.forEach(c -> java.util.Arrays.stream(c.split(";\\s*")).forEach(arr::add));
        }
        if (query != null && !query.isEmpty()) {
            Map<String, String> params = new LinkedHashMap<>();
            for (String pair : query.split("&", -1)) {
                if (pair.isEmpty()) {
                    continue; // "a=1&&b=2" or a trailing "&": no parameter, as API Gateway reads it
                }
                int eq = pair.indexOf('=');
                String k = decode(eq < 0 ? pair : pair.substring(0, eq));
                String v = eq < 0 ? "" : decode(pair.substring(eq + 1));
                params.merge(k, v, (a, b) -> a + "," + b);
            }
            ObjectNode qs = e.putObject("queryStringParameters");
            params.forEach(qs::put);
        }
        Map<String, String> pathParams =
                pathParameters(route, ex.getRequestURI().getRawPath());
        if (pathParams != null && !pathParams.isEmpty()) {
            ObjectNode pp = e.putObject("pathParameters");
            pathParams.forEach(pp::put);
        }
        Instant now = Instant.now();
        ObjectNode ctx = e.putObject("requestContext");
        ctx.put("accountId", "000000000000");
        ctx.put("apiId", "local");
        ctx.put(
                "domainName",
                ex.getRequestHeaders().getFirst("Host") == null
                        ? "127.0.0.1"
                        : ex.getRequestHeaders().getFirst("Host"));
        ctx.put("domainPrefix", "local");
        ObjectNode http = ctx.putObject("http");
        http.put("method", ex.getRequestMethod().toUpperCase(Locale.ROOT));
        http.put("path", ex.getRequestURI().getRawPath());
        http.put("protocol", ex.getProtocol());
        http.put("sourceIp", ex.getRemoteAddress().getAddress().getHostAddress());
        http.put("userAgent", String.valueOf(ex.getRequestHeaders().getFirst("User-Agent")));
        ctx.put(
                "requestId",
                new UUID(
                                ThreadLocalRandom.current().nextLong(),
                                ThreadLocalRandom.current().nextLong())
                        .toString());
        ctx.put("routeKey", route.key());
        ctx.put("stage", "$default");
        ctx.put("time", REQUEST_TIME.format(now));
        ctx.put("timeEpoch", now.toEpochMilli());
        if (iamAuth && !route.unsigned()) {
            ctx.putObject("authorizer")
                    .putObject("iam")
                    .put("accountId", "000000000000")
                    .put("callerId", "LOCAL")
                    .put("userArn", "arn:aws:iam::000000000000:user/local");
        }
        if (body.length > 0) {
            String type = String.valueOf(ex.getRequestHeaders().getFirst("Content-Type"))
                    .toLowerCase(Locale.ROOT);
            String encoding = String.valueOf(ex.getRequestHeaders().getFirst("Content-Encoding"))
                    .toLowerCase(Locale.ROOT);
            // API Gateway passes a body as text only for a text media type without a content encoding: gzip JSON is
            // binary, base64-encoded.
            boolean text = (encoding.equals("null") || encoding.equals("identity"))
                    && (type.startsWith("text/")
                            || type.contains("json")
                            || type.contains("xml")
                            || type.contains("x-www-form-urlencoded")
                            || type.equals("null"));
            e.put(
                    "body",
                    text
                            ? new String(body, StandardCharsets.UTF_8)
                            : Base64.getEncoder().encodeToString(body));
            e.put("isBase64Encoded", !text);
        } else {
            e.put("isBase64Encoded", false);
        }
        return e;
    }

    private static String decode(String s) {
        return java.net.URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** Maps the function's answer as API Gateway does for payload format 2.0. */
    private static void respond(HttpExchange ex, byte[] payload) throws IOException {
        JsonNode out;
        try {
            out = JSON.readTree(payload);
        } catch (IOException e) {
            out = null;
        }
        if (out == null || !out.isObject() || !out.has("statusCode")) {
            // A response without statusCode is the body of a 200 (API Gateway's format 2.0 inference).
            ex.getResponseHeaders().add("Content-Type", "application/json");
            LoopbackHttp.write(ex, 200, payload);
            return;
        }
        out.path("headers")
                .properties()
                .forEach(h ->
                        ex.getResponseHeaders().add(h.getKey(), h.getValue().asText()));
        out.path("multiValueHeaders")
                .properties()
                .forEach(h -> h.getValue().forEach(v -> ex.getResponseHeaders().add(h.getKey(), v.asText())));
        out.path("cookies").forEach(c -> ex.getResponseHeaders().add("Set-Cookie", c.asText()));
        String body = out.path("body").isNull() || out.path("body").isMissingNode()
                ? ""
                : out.path("body").asText();
        byte[] bytes = out.path("isBase64Encoded").asBoolean()
                ? Base64.getDecoder().decode(body)
                : body.getBytes(StandardCharsets.UTF_8);
        LoopbackHttp.write(ex, out.path("statusCode").asInt(200), bytes);
    }

    private static void message(HttpExchange ex, int status, String message) throws IOException {
        ex.getResponseHeaders().add("Content-Type", "application/json");
        LoopbackHttp.write(ex, status, ("{\"message\":\"" + message + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
