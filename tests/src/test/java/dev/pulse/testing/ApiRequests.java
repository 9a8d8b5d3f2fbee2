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
package dev.pulse.testing;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import java.util.Map;

/** HTTP API (payload 2.0) events as API Gateway hands them to the query handler. */
public final class ApiRequests {

    private ApiRequests() {}

    /** {@code POST /query} with {@code body}. */
    public static APIGatewayV2HTTPEvent post(String body) {
        return request("POST", "/query", null, body);
    }

    /** {@code method path} with query string {@code params} (or none) and no body. */
    public static APIGatewayV2HTTPEvent request(String method, String path, Map<String, String> params) {
        return request(method, path, params, null);
    }

    /**
     * A Prometheus API call, {@code method path}, with its parameters URL-encoded in the raw query string (GET) or
     * as a form body (POST), repeated names kept (match[]), as API Gateway passes both.
     */
    public static APIGatewayV2HTTPEvent prometheus(
            String method, String path, java.util.List<Map.Entry<String, String>> params) {
        StringBuilder encoded = new StringBuilder();
        for (Map.Entry<String, String> p : params) {
            if (!encoded.isEmpty()) {
                encoded.append('&');
            }
            encoded.append(java.net.URLEncoder.encode(p.getKey(), java.nio.charset.StandardCharsets.UTF_8))
                    .append('=')
                    .append(java.net.URLEncoder.encode(p.getValue(), java.nio.charset.StandardCharsets.UTF_8));
        }
        boolean post = method.equals("POST");
        APIGatewayV2HTTPEvent e = request(method, path, null, post ? encoded.toString() : null);
        e.setRawQueryString(post ? "" : encoded.toString());
        e.setHeaders(post ? Map.of("content-type", "application/x-www-form-urlencoded") : Map.of());
        return e;
    }

    private static APIGatewayV2HTTPEvent request(String method, String path, Map<String, String> params, String body) {
        return APIGatewayV2HTTPEvent.builder()
                .withRawPath(path)
                .withQueryStringParameters(params)
                .withBody(body)
                .withIsBase64Encoded(false)
                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder()
                                .withMethod(method)
                                .withPath(path)
                                .build())
                        .build())
                .build();
    }
}
