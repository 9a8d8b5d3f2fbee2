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
        s3.get()
                .putObject(
                        b -> b.bucket(bucket).key(key).contentType("text/html; charset=utf-8"),
                        RequestBody.fromString(html));
        return "s3://" + bucket + "/" + key;
    }
}
