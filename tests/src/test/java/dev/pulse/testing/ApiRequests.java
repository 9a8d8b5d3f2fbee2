package dev.pulse.testing;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import java.util.Map;

/** HTTP API (payload 2.0) events as API Gateway hands them to the query handler. */
public final class ApiRequests {

    private ApiRequests() {
    }

    /** {@code POST /query} with {@code body}. */
    public static APIGatewayV2HTTPEvent post(String body) {
        return request("POST", "/query", null, body);
    }

    /** {@code method path} with query string {@code params} (or none) and no body. */
    public static APIGatewayV2HTTPEvent request(String method, String path, Map<String, String> params) {
        return request(method, path, params, null);
    }

    private static APIGatewayV2HTTPEvent request(String method, String path, Map<String, String> params, String body) {
        return APIGatewayV2HTTPEvent.builder().withRawPath(path).withQueryStringParameters(params).withBody(body)
                .withIsBase64Encoded(false)
                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder().withMethod(method).withPath(path).build())
                        .build())
                .build();
    }
}
