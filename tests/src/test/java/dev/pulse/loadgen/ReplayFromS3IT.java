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
package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.testing.Emulators;
import dev.pulse.testing.ExpectedResults;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
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

    private static S3Client s3() {
        return S3Client.builder()
                .endpointOverride(Emulators.sqs().endpoint())
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    @Test
    void loadS3_whenGzipRecordingInBucket_readsTheSameRecordsAsTheBundledFile() {
        try (S3Client s3 = s3()) {
            s3.createBucket(b -> b.bucket("recordings"));
            s3.putObject(
                    b -> b.bucket("recordings").key("day/sample.ndjson.gz"),
                    RequestBody.fromFile(ExpectedResults.event("replay/sample.ndjson.gz")));

            List<ReplayRecord> fromS3 = ReplaySource.loadS3("s3://recordings/day/sample.ndjson.gz", s3);
            List<ReplayRecord> bundled =
                    ReplaySource.load("events/replay/sample.ndjson.gz", ExpectedResults.repoRoot());

            assertThat(fromS3).hasSameSizeAs(bundled).hasSizeGreaterThan(50_000);
            assertThat(fromS3.get(123).data()).isEqualTo(bundled.get(123).data());
            assertThatThrownBy(() -> ReplaySource.loadS3("s3://recordings/missing.gz", s3))
                    .isInstanceOf(LoadGenRequest.InvalidRequestException.class)
                    .hasMessageContaining("no object");
            assertThatThrownBy(() -> ReplaySource.loadS3("s3://recordings", s3))
                    .isInstanceOf(LoadGenRequest.InvalidRequestException.class)
                    .hasMessageContaining("s3://bucket/key");
        }
    }

    /** 1 KB native datapoints, one gzip member of 64 MiB repeated: 1 GiB inflated from about 1 MB. */
    private static byte[] gzipBomb() throws IOException {
        String line = "{\"name\":\"bomb\",\"ts\":1,\"value\":1,\"pad\":\"";
        byte[] pattern = (line + "x".repeat(1021 - line.length()) + "\"}\n").getBytes(StandardCharsets.UTF_8);
        byte[] block = new byte[pattern.length * 1024];
        for (int i = 0; i < 1024; i++) {
            System.arraycopy(pattern, 0, block, i * pattern.length, pattern.length);
        }
        ByteArrayOutputStream member = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(member, 1 << 16) {
            {
                def.setLevel(Deflater.BEST_COMPRESSION);
            }
        }) {
            for (int i = 0; i < 64; i++) {
                gz.write(block);
            }
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int i = 0; i < 16; i++) {
            member.writeTo(all);
        }
        return all.toByteArray();
    }

    @Test
    void loadS3_whenTheObjectIsAGzipBombOrHasABadLine_refusesItNamingTheObjectTheLineAndTheLimit() throws Exception {
        try (S3Client s3 = s3()) {
            s3.createBucket(b -> b.bucket("hostile"));
            s3.putObject(b -> b.bucket("hostile").key("bomb.ndjson.gz"), RequestBody.fromBytes(gzipBomb()));
            s3.putObject(
                    b -> b.bucket("hostile").key("bad.ndjson"),
                    RequestBody.fromString(
                            "{\"name\":\"a\",\"ts\":1,\"value\":1}\n{\"data\":\"not base64\",\"partitionKey\":\"k\"}\n"));

            assertThatThrownBy(() -> ReplaySource.loadS3("s3://hostile/bomb.ndjson.gz", s3))
                    .isInstanceOfSatisfying(LoadGenRequest.InvalidRequestException.class, e -> {
                        assertThat(e.field()).isEqualTo("source");
                        assertThat(e.getMessage())
                                .startsWith("source: s3://hostile/bomb.ndjson.gz line 131073: the source "
                                        + "passes MAX_DECOMPRESSED_BYTES 134217728 bytes after decompression");
                    });
            assertThatThrownBy(() -> ReplaySource.loadS3("s3://hostile/bad.ndjson", s3))
                    .hasMessageStartingWith("source: s3://hostile/bad.ndjson line 2: field data is not base64");
        }
    }
}
