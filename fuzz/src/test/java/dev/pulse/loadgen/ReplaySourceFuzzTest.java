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

import static dev.pulse.testing.Gzip.gzip;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.pulse.fuzz.Seeds;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes {@link ReplaySource#read}, which parses a recording (a bundled file or an S3 object the caller names) line
 * by line before anything is sent. The contract for every recording: records, or
 * {@link LoadGenRequest.InvalidRequestException} (the load generator's field error, answered to the caller) with a
 * reason; no other exception (an {@link IllegalArgumentException} that is not the field error is a function error)
 * and no Error, in bounded time within the Lambda's heap. The same recording gzipped (a {@code .gz} source) must read
 * to the same records or the same error.
 */
class ReplaySourceFuzzTest {

    static {
        Seeds.warmUp(
                ReplaySourceFuzzTest.class,
                "read_whenAnyRecording_answersRecordsOrFieldError",
                new ReplaySourceFuzzTest()::read_whenAnyRecording_answersRecordsOrFieldError);
    }

    @FuzzTest
    void read_whenAnyRecording_answersRecordsOrFieldError(byte[] recording) {
        String plain = outcome(recording, false);
        String gzipped = outcome(gzip(recording), true);
        if (!plain.equals(gzipped)) {
            throw new AssertionError("the recording and its gzip read differently:\n" + plain + "\n" + gzipped);
        }
    }

    private static String outcome(byte[] file, boolean gzip) {
        List<ReplayRecord> records;
        try {
            records = ReplaySource.read(new ByteArrayInputStream(file), gzip);
        } catch (LoadGenRequest.InvalidRequestException e) {
            if (e.field() == null || e.field().isBlank()) {
                throw new AssertionError("a field error without its field", e);
            }
            return "error: " + e.getMessage();
        } catch (IOException e) {
            throw new UncheckedIOException("reading a recording from memory failed", e);
        }
        if (records.isEmpty()) {
            throw new AssertionError("no records and no error");
        }
        StringBuilder out = new StringBuilder();
        for (ReplayRecord r : records) {
            out.append(r.partitionKey())
                    .append(' ')
                    .append(r.recordedMillis())
                    .append(' ')
                    .append(Arrays.hashCode(r.data()))
                    .append('\n');
        }
        return out.toString();
    }
}
