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
package dev.pulse.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequest;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/**
 * A Kinesis client whose {@code PutRecords} stores every entry it is given and accepts all of them. Calls named in
 * {@link #failingAfterStoring} store their entries and then fail with an attempt timeout, as a call does whose
 * response is lost after Kinesis took the records: the sender cannot tell them from records never stored.
 */
public final class RecordingKinesis implements KinesisAsyncClient {

    private final List<PutRecordsRequestEntry> stored = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger calls = new AtomicInteger();
    private final Set<Integer> failAfterStoring;

    private RecordingKinesis(Set<Integer> failAfterStoring) {
        this.failAfterStoring = failAfterStoring;
    }

    /** Every call succeeds. */
    public static RecordingKinesis accepting() {
        return new RecordingKinesis(Set.of());
    }

    /** The calls with these zero-based numbers store their records, then fail as if the response were lost. */
    public static RecordingKinesis failingAfterStoring(Integer... calls) {
        return new RecordingKinesis(Set.of(calls));
    }

    /** Every entry stored, in the order the calls arrived (a failed call's entries included). */
    public List<PutRecordsRequestEntry> stored() {
        synchronized (stored) {
            return List.copyOf(stored);
        }
    }

    /** PutRecords calls made. */
    public int calls() {
        return calls.get();
    }

    @Override
    public CompletableFuture<PutRecordsResponse> putRecords(PutRecordsRequest request) {
        stored.addAll(request.records());
        if (failAfterStoring.contains(calls.getAndIncrement())) {
            return CompletableFuture.failedFuture(ApiCallAttemptTimeoutException.create(1_000));
        }
        List<PutRecordsResultEntry> ok = request.records().stream()
                .map(e -> PutRecordsResultEntry.builder()
                        .sequenceNumber("1")
                        .shardId("shardId-000000000000")
                        .build())
                .toList();
        return CompletableFuture.completedFuture(
                PutRecordsResponse.builder().records(ok).build());
    }

    @Override
    public String serviceName() {
        return "kinesis";
    }

    @Override
    public void close() {}
}
