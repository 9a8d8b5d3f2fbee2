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
package dev.pulse.push;

import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequest;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/**
 * Puts records on the stream with PutRecords (at most 500 records and 5 MiB a call), sending the entries a call failed
 * again after a full-jitter backoff until every entry is in or the deadline passes. A call that fails whole (a timeout,
 * a connection error, a throttled or failed request) sends all of its entries again. Returns only when every record is
 * in; otherwise throws 503 so the client sends the request again.
 */
final class KinesisWriter {

    static final int MAX_RECORDS_PER_CALL = 500;
    static final int MAX_BYTES_PER_CALL = 5 * 1024 * 1024;

    private final KinesisAsyncClient kinesis;
    private final String stream;
    private final Backoff backoff;

    KinesisWriter(KinesisAsyncClient kinesis, String stream, Backoff backoff) {
        this.kinesis = kinesis;
        this.stream = stream;
        this.backoff = backoff;
    }

    void put(List<RecordPacker.StreamRecord> records, Deadline deadline, InvocationMetrics<PushMetric> metrics)
            throws PushException {
        List<PutRecordsRequestEntry> pending = new ArrayList<>(records.size());
        for (RecordPacker.StreamRecord r : records) {
            pending.add(PutRecordsRequestEntry.builder()
                    .partitionKey(r.partitionKey())
                    .data(SdkBytes.fromByteArrayUnsafe(r.data()))
                    .build());
        }
        int attempt = 0;
        String lastError = null;
        while (!pending.isEmpty()) {
            if (attempt > 0) {
                long delay = backoff.delayMillis(attempt - 1);
                if (deadline.remainingMillis() <= delay) {
                    break;
                }
                sleep(delay);
            }
            List<PutRecordsRequestEntry> failed = new ArrayList<>();
            int from = 0;
            while (from < pending.size()) {
                int to = from;
                long bytes = 0;
                while (to < pending.size() && to - from < MAX_RECORDS_PER_CALL) {
                    PutRecordsRequestEntry e = pending.get(to);
                    long size = (long) e.data().asByteArrayUnsafe().length
                            + e.partitionKey().length();
                    if (to > from && bytes + size > MAX_BYTES_PER_CALL) {
                        break;
                    }
                    bytes += size;
                    to++;
                }
                List<PutRecordsRequestEntry> call = pending.subList(from, to);
                lastError = putOnce(call, deadline, failed, metrics, lastError);
                from = to;
            }
            if (attempt > 0 || !failed.isEmpty()) {
                metrics.add(PushMetric.PUT_RETRIES, failed.size());
            }
            metrics.add(PushMetric.RECORDS_PUT, pending.size() - failed.size());
            pending = failed;
            attempt++;
        }
        if (!pending.isEmpty()) {
            throw PushException.unavailable(pending.size() + " of " + records.size()
                    + " records could not be put on the stream in time (" + lastError + "); send the request again");
        }
    }

    /** One PutRecords call; adds the entries that did not get in to {@code failed}; returns the last error seen. */
    private String putOnce(
            List<PutRecordsRequestEntry> call,
            Deadline deadline,
            List<PutRecordsRequestEntry> failed,
            InvocationMetrics<PushMetric> metrics,
            String lastError) {
        PutRecordsResponse response;
        try {
            response = kinesis.putRecords(PutRecordsRequest.builder()
                            .streamName(stream)
                            .records(call)
                            .build())
                    .get(Math.max(1, deadline.remainingMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed.addAll(call);
            return "interrupted";
        } catch (TimeoutException e) {
            failed.addAll(call);
            return "PutRecords timed out";
        } catch (ExecutionException | CompletionException | SdkException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (String.valueOf(cause.getMessage()).contains("ProvisionedThroughputExceeded")
                    || cause.getClass().getSimpleName().contains("ProvisionedThroughputExceeded")) {
                metrics.add(PushMetric.THROTTLES, call.size());
            }
            failed.addAll(call);
            return "PutRecords failed: " + cause;
        }
        List<PutRecordsResultEntry> results = response.records();
        if (response.failedRecordCount() == null || response.failedRecordCount() == 0) {
            return lastError;
        }
        String error = lastError;
        for (int i = 0; i < call.size(); i++) {
            PutRecordsResultEntry r = i < results.size() ? results.get(i) : null;
            if (r == null || r.errorCode() != null) {
                failed.add(call.get(i));
                if (r != null) {
                    error = r.errorCode() + ": " + r.errorMessage();
                    if ("ProvisionedThroughputExceededException".equals(r.errorCode())) {
                        metrics.increment(PushMetric.THROTTLES);
                    }
                }
            }
        }
        return error;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
