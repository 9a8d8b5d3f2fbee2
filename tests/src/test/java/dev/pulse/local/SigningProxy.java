package dev.pulse.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/**
 * A SigV4-signing forward proxy on 127.0.0.1 for clients that cannot sign (promtool): each request is signed for
 * {@code execute-api} with the local stack's credentials and sent on to the HTTP API; the answer comes back as it
 * is. This is what a user puts in front of the deployed AWS_IAM API for such a client (for example
 * aws-sigv4-proxy), so the API under test stays exactly as deployed: no unsigned path is opened in it, not even for
 * loopback. Stopped by {@link #close()}.
 */
final class SigningProxy implements AutoCloseable {

    private final URI target;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final SdkHttpClient http = UrlConnectionHttpClient.create();
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    SigningProxy(URI target) throws IOException {
        this.target = target;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::forward);
        server.setExecutor(executor);
        server.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void forward(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            URI uri = target.resolve(ex.getRequestURI().getRawPath()
                    + (ex.getRequestURI().getRawQuery() == null ? "" : "?" + ex.getRequestURI().getRawQuery()));
            SdkHttpFullRequest.Builder request = SdkHttpFullRequest.builder().uri(uri)
                    .method(SdkHttpMethod.fromValue(ex.getRequestMethod()));
            String type = ex.getRequestHeaders().getFirst("Content-Type");
            if (type != null) {
                request.putHeader("Content-Type", type);
            }
            SignedRequest signed = signer.sign(r -> r.identity(LocalStack.CREDENTIALS.resolveIdentity().join())
                    .request(request.build())
                    .payload(body.length == 0 ? null : ContentStreamProvider.fromByteArray(body))
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "execute-api")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, LocalStack.REGION));
            HttpExecuteResponse resp = http.prepareRequest(HttpExecuteRequest.builder().request(signed.request())
                    .contentStreamProvider(signed.payload().orElse(null)).build()).call();
            byte[] out = new byte[0];
            if (resp.responseBody().isPresent()) {
                try (InputStream in = resp.responseBody().get()) {
                    out = in.readAllBytes();
                }
            }
            resp.httpResponse().firstMatchingHeader("Content-Type").ifPresent(t -> ex.getResponseHeaders().add("Content-Type", t));
            ex.sendResponseHeaders(resp.httpResponse().statusCode(), out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                ex.getResponseBody().write(out);
            }
        } catch (RuntimeException e) {
            ex.sendResponseHeaders(502, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        http.close();
    }
}
