package dev.pulse.loadgen;

import java.util.function.Supplier;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** Stores a run's HTML report as one S3 object in the report bucket (the template's ReplayBucket). */
public final class S3ReportStore implements LoadGenService.ReportStore {

    private final Supplier<S3Client> s3;
    private final String bucket;

    /** {@code s3} is asked for its client only when a report is written. */
    public S3ReportStore(Supplier<S3Client> s3, String bucket) {
        this.s3 = s3;
        this.bucket = bucket;
    }

    @Override
    public String put(String key, String html) {
        // text/html with a charset so the S3 console and a presigned URL open it in a browser as is.
        s3.get().putObject(b -> b.bucket(bucket).key(key).contentType("text/html; charset=utf-8"),
                RequestBody.fromString(html));
        return "s3://" + bucket + "/" + key;
    }
}
