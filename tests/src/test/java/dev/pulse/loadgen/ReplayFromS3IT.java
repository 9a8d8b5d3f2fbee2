package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.testing.Emulators;
import dev.pulse.testing.ExpectedResults;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Recordings read from S3 (moto on 127.0.0.1 serves S3 as well as SQS). */
@ExtendWith(Emulators.class)
class ReplayFromS3IT {

    @Test
    void loadS3_whenGzipRecordingInBucket_readsTheSameRecordsAsTheBundledFile() {
        try (S3Client s3 = S3Client.builder().endpointOverride(Emulators.sqs().endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create()).build()) {
            s3.createBucket(b -> b.bucket("recordings"));
            s3.putObject(b -> b.bucket("recordings").key("day/sample.ndjson.gz"),
                    RequestBody.fromFile(ExpectedResults.event("replay/sample.ndjson.gz")));

            List<ReplayRecord> fromS3 = ReplaySource.loadS3("s3://recordings/day/sample.ndjson.gz", s3);
            List<ReplayRecord> bundled = ReplaySource.load("events/replay/sample.ndjson.gz", ExpectedResults.repoRoot());

            assertThat(fromS3).hasSameSizeAs(bundled).hasSizeGreaterThan(50_000);
            assertThat(fromS3.get(123).data()).isEqualTo(bundled.get(123).data());
            assertThatThrownBy(() -> ReplaySource.loadS3("s3://recordings/missing.gz", s3))
                    .isInstanceOf(LoadGenRequest.InvalidRequestException.class).hasMessageContaining("no object");
            assertThatThrownBy(() -> ReplaySource.loadS3("s3://recordings", s3))
                    .isInstanceOf(LoadGenRequest.InvalidRequestException.class).hasMessageContaining("s3://bucket/key");
        }
    }
}
