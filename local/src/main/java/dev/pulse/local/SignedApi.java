package dev.pulse.local;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/** Calls the local HTTP API the way an IAM-authorized client calls the deployed one: SigV4 for execute-api. */
final class SignedApi implements AutoCloseable {

    /** Status and body of one call. */
    record Response(int status, String body) {
    }

    private final URI base;
    private final SdkHttpClient http = UrlConnectionHttpClient.create();
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    SignedApi(URI base) {
        this.base = base;
    }

    Response post(String path, String json) throws IOException {
        return call(SdkHttpFullRequest.builder().uri(base.resolve(path)).method(SdkHttpMethod.POST)
                .putHeader("Content-Type", "application/json").build(), json);
    }

    /** {@code GET path} ({@code path} with its query string, encoded). */
    Response get(String path) throws IOException {
        return call(SdkHttpFullRequest.builder().uri(base.resolve(path)).method(SdkHttpMethod.GET).build(), null);
    }

    private Response call(SdkHttpFullRequest request, String json) throws IOException {
        SignedRequest signed = signer.sign(r -> r.identity(LocalStack.CREDENTIALS.resolveIdentity().join())
                .request(request)
                .payload(json == null ? null : ContentStreamProvider.fromUtf8String(json))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "execute-api")
                .putProperty(AwsV4HttpSigner.REGION_NAME, LocalStack.REGION));
        HttpExecuteResponse resp = http.prepareRequest(HttpExecuteRequest.builder().request(signed.request())
                .contentStreamProvider(signed.payload().orElse(null)).build()).call();
        String body = "";
        if (resp.responseBody().isPresent()) {
            try (InputStream in = resp.responseBody().get()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        return new Response(resp.httpResponse().statusCode(), body);
    }

    @Override
    public void close() {
        http.close();
    }
}
