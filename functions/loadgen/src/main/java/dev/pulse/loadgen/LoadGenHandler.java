package dev.pulse.loadgen;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.config.ConfigException;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.lambda.LambdaAsyncClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

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
        this(createService(System.getenv("STREAM_NAME"), System.getenv("AWS_LAMBDA_FUNCTION_NAME")),
                PulseMetrics.create("loadgen"));
    }

    LoadGenHandler(LoadGenService service, Metrics metrics) {
        this.service = service;
        this.metrics = metrics;
    }

    static LoadGenService createService(String stream, String functionName) {
        if (stream == null || stream.isBlank()) {
            throw new ConfigException("invalid configuration: STREAM_NAME is required");
        }
        Region region = Region.of(System.getenv().getOrDefault("AWS_REGION", "us-east-1"));
        // A built HTTP client: PutRecords needs no HTTP/2, the Kinesis default.
        KinesisAsyncClient kinesis = KinesisAsyncClient.builder().region(region)
                .httpClient(AwsCrtAsyncHttpClient.builder().maxConcurrency(256).build()).build();
        LambdaAsyncClient lambda = LambdaAsyncClient.builder().region(region)
                .httpClient(AwsCrtAsyncHttpClient.builder().maxConcurrency(LoadGenRequest.MAX_WORKERS)
                        .connectionMaxIdleTime(Duration.ofMinutes(16)).build())
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofMinutes(15)).apiCallAttemptTimeout(Duration.ofMinutes(15)))
                .build();
        Path root = Path.of(System.getenv().getOrDefault("LAMBDA_TASK_ROOT", "."));
        String apiUrl = System.getenv("API_URL");
        CanaryVerifier.Reader canary = apiUrl == null || apiUrl.isBlank() ? null
                : new ApiCanaryReader(java.net.URI.create(apiUrl), region.id(),
                        software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider.builder().build(),
                        software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create());
        // Built on first use: most runs replay a bundled file and never pay for an S3 client.
        java.util.function.Supplier<software.amazon.awssdk.services.s3.S3Client> s3 = new java.util.function.Supplier<>() {
            private software.amazon.awssdk.services.s3.S3Client client;

            @Override
            public synchronized software.amazon.awssdk.services.s3.S3Client get() {
                if (client == null) {
                    client = software.amazon.awssdk.services.s3.S3Client.builder().region(region)
                            .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build();
                }
                return client;
            }
        };
        // The template passes ReplayBucket (empty when not set): HTML reports go to reports/ there.
        String reportBucket = System.getenv("REPORT_BUCKET");
        LoadGenService.ReportStore reports = reportBucket == null || reportBucket.isBlank() ? null
                : new S3ReportStore(s3, reportBucket);
        return new LoadGenService(new KinesisSender(kinesis, stream, new Backoff(50, 2_000), 6),
                source -> source.startsWith("s3://") ? ReplaySource.loadS3(source, s3.get()) : ReplaySource.load(source, root),
                worker -> invokeSelf(lambda, functionName, worker), canary, reports);
    }

    /**
     * A worker is this same function, invoked synchronously (RequestResponse) with the whole request and its index
     * ({@link LoadGenRequest#toEvent}: every field); a worker that fails is the coordinator's failure, named.
     */
    static CompletableFuture<JsonNode> invokeSelf(LambdaAsyncClient lambda, String functionName, LoadGenRequest w) {
        return lambda.invoke(b -> b.functionName(functionName).invocationType(InvocationType.REQUEST_RESPONSE)
                .payload(SdkBytes.fromUtf8String(w.toEvent().toString())))
                .thenApply(resp -> {
                    String payload = resp.payload() == null ? "" : resp.payload().asUtf8String();
                    if (resp.functionError() != null) {
                        throw new IllegalStateException("worker " + w.worker() + " failed (" + resp.functionError()
                                + "): " + (payload.length() > 1_000 ? payload.substring(0, 1_000) + "..." : payload));
                    }
                    try {
                        return JSON.readTree(payload);
                    } catch (IOException e) {
                        throw new IllegalStateException("worker " + w.worker() + " answered no JSON", e);
                    }
                });
    }

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        JsonNode event = JSON.readTree(input);
        ObjectNode result = PowertoolsLogging.withLogging(context, () -> InvocationMetrics.measure(LoadGenMetric.class, metrics,
                counters -> {
                    counters.add(LoadGenMetric.COLD_START, coldStart.take() ? 1 : 0);
                    long maxDuration = Math.max(1, (context.getRemainingTimeInMillis() - STOP_MARGIN_MILLIS) / 1000);
                    try {
                        LoadGenRequest r = LoadGenRequest.parse(event, maxDuration, context.getAwsRequestId());
                        ObjectNode report = service.run(r, Deadline.inMillis(context.getRemainingTimeInMillis() - 5_000), counters);
                        LOG.info("load run finished", entry("runId", r.runId()), entry("worker", r.worker()),
                                entry("sent", report.path("sent").asLong()), entry("acked", report.path("acked").asLong()),
                                entry("aggregate", r.aggregate()),
                                entry("kinesisRecords", report.path("kinesisRecords").asLong()),
                                entry("putPayloadUnits", report.path("putPayloadUnits").asLong()),
                                entry("putPayloadUnitsUnaggregated", report.path("putPayloadUnitsUnaggregated").asLong()));
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
