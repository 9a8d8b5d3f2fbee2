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
package dev.pulse.local.esm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.local.template.MappingSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * Delivers one shard of a Kinesis stream to a function the way a Lambda event source mapping does:
 * in order, one batch in flight, with batching window, partial batch responses, bisection, retries, maximum record
 * age and an on-failure destination. Filter criteria are not applied: the local stack refuses a mapping that has
 * them (see {@code Stack#mappings()}).
 *
 * <p>The documented behaviour it follows:
 * <ul>
 *   <li><b>Batching</b>: Lambda reads "until it has gathered a full batch, the batching window expires, or the
 *       batch reaches the payload limit of 6 MB"; with no window it invokes "as soon as records are available"
 *       (https://docs.aws.amazon.com/lambda/latest/dg/with-kinesis.html,
 *       https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventsourcemapping.html).</li>
 * *   <li><b>Partial batch response</b> (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-batchfailurereporting.html):
 *       complete success for an
 *       empty or null {@code batchItemFailures} list or an empty or null response; complete failure for an empty or
 *       null {@code itemIdentifier} or one under a wrong key name; with several failures "Lambda uses the record with
 *       the lowest sequence number as the checkpoint" and "retries all records starting from that checkpoint". With
 *       bisection also on, "the batch is bisected at the returned sequence number and Lambda retries only the
 *       remaining records": the same thing. Here an identifier that is not in the batch, and a response that is not a
 *       JSON object, also fail the whole batch.</li>
 *   <li><b>Bisection</b>: on a function error "the batch is bisected regardless of your ReportBatchItemFailures
 *       setting" (same pages); "Splitting a batch does not count towards the retry quota"
 *       (https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html). So a split costs no retry: both halves keep the retry count of the batch they came from and
 *       are invoked at once, first half first. A batch of one cannot be split and is retried.</li>
 *   <li><b>Retries and age</b>: a failing batch is retried "until the records expire, exceed the maximum age
 *       (MaximumRecordAgeInSeconds), or reach the configured retry quota (MaximumRetryAttempts)"; then "Lambda
 *       discards the records and continues processing batches from the stream" and sends one invocation record to the
 *       destination (same pages). {@code MaximumRetryAttempts} does not count the first invocation, -1 is infinite
 *       (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-parameters.html). Records already older than
 *       the maximum age when a batch is formed are not sent: "The maximum age of a record that Lambda sends to your
 *       function" (with-kinesis.html).</li>
 *   <li><b>The failure record</b> has the shape of the documented example (kinesis-on-failure-destination.html):
 *       {@code requestContext {requestId, functionArn, condition, approximateInvokeCount}},
 *       {@code responseContext {statusCode, executedVersion, functionError}}, {@code version}, {@code timestamp},
 *       and {@code KinesisBatchInfo} {@code {shardId, startSequenceNumber,
 *       endSequenceNumber, approximateArrivalOfFirstRecord, approximateArrivalOfLastRecord, batchSize, streamArn}}.
 *       {@code condition} is {@code RetryAttemptsExhausted} (the documented example) or {@code RecordAgeExceeded}
 *       (the user guide shows no example for expired records; this is the value LocalStack's stream poller emits).
 *       {@code approximateInvokeCount} is the number of invocations that contained every discarded record (a record
 *       isolated by bisection counts its larger batches too); records never sent have 0 and no
 *       {@code responseContext}, since there was no response.</li>
 *   <li><b>Throttles and service errors</b> (here: the invoker throwing) "retry until the records expire" without
 *       using the retry quota (kinesis-on-failure-destination.html).</li>
 * </ul>
 * ParallelizationFactor above 1 is processed as 1 (see {@link #parallelizationReduced()}): order per shard is all
 * the pipeline relies on, and one batch in flight gives it trivially.
 *
 * <p>Not thread-safe: one thread drives {@link #step()} or {@link #runUntil(BooleanSupplier)}; the
 * {@link ShardStats} are readable from any thread.
 */
public final class ShardProcessor {

    /** Lambda's synchronous invocation payload limit (6 MB), applied to the sum of {@link StreamRecord#sizeBytes()}. */
    public static final int MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

    static final String RETRY_ATTEMPTS_EXHAUSTED = "RetryAttemptsExhausted";
    static final String RECORD_AGE_EXCEEDED = "RecordAgeExceeded";

    private static final System.Logger LOG = System.getLogger(ShardProcessor.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * How long to wait locally.
     *
     * @param pollInterval   idle wait when a shard has nothing to read (Lambda polls Kinesis once a second; a local
     *                       stack wants less)
     * @param initialBackoff delay before the first retry of a failed batch; doubled for each further retry
     * @param maxBackoff     cap of the retry delay
     */
    public record Timing(Duration pollInterval, Duration initialBackoff, Duration maxBackoff) {

        /** 200 ms polls; retries after 100 ms, doubling up to 1 s. */
        public static final Timing DEFAULT =
                new Timing(Duration.ofMillis(200), Duration.ofMillis(100), Duration.ofSeconds(1));

        /** No waiting at all, for tests that drive {@link #step()}. */
        public static final Timing NONE = new Timing(Duration.ZERO, Duration.ZERO, Duration.ZERO);

        public Timing {
            Objects.requireNonNull(pollInterval);
            Objects.requireNonNull(initialBackoff);
            Objects.requireNonNull(maxBackoff);
        }

        Duration backoff(int failures) {
            if (failures <= 0 || initialBackoff.isZero()) {
                return Duration.ZERO;
            }
            Duration d = initialBackoff;
            for (int i = 1; i < failures && d.compareTo(maxBackoff) < 0; i++) {
                d = d.multipliedBy(2);
            }
            return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
        }
    }

    /** Records that go to the function together, with what the attempts so far have cost them. */
    private static final class Work {
        List<StreamRecord> records;
        int retries; // retries used, against MaximumRetryAttempts
        int invocations; // invocations that contained every one of these records
        int failuresInARow; // for the retry delay
        boolean retryDue; // the next invocation is a retry
        InvokeResult last; // the latest invocation's result, for the failure record

        Work(List<StreamRecord> records, int retries, int invocations, InvokeResult last) {
            this.records = records;
            this.retries = retries;
            this.invocations = invocations;
            this.last = last;
        }
    }

    private enum Kind {
        SUCCESS,
        PARTIAL,
        FUNCTION_ERROR,
        INVALID
    }

    /** How an invocation went; {@code failedFrom} is the checkpoint index of a partial failure. */
    private record Outcome(Kind kind, int failedFrom, String reason) {
        static final Outcome SUCCESS = new Outcome(Kind.SUCCESS, -1, null);
        static final Outcome FUNCTION_ERROR = new Outcome(Kind.FUNCTION_ERROR, -1, null);

        static Outcome invalid(String reason) {
            return new Outcome(Kind.INVALID, -1, reason);
        }
    }

    private final MappingSpec spec;
    private final ShardSource source;
    private final FunctionInvoker invoker;
    private final FailureDestination destination;
    private final Clock clock;
    private final String functionArn;
    private final ShardStats stats;
    private final Timing timing;
    private final Duration window;
    private final Duration maxRecordAge;
    private final String name;

    /** Batches being delivered, earliest first; the next batch is only read once this is empty. */
    private final Deque<Work> pending = new ArrayDeque<>();
    /** The batch being gathered. */
    private final List<StreamRecord> gathering = new ArrayList<>();
    /** Records read but cut off the gathered batch by the payload limit: they start the next one. */
    private final Deque<StreamRecord> carry = new ArrayDeque<>();

    private long gatheringBytes;
    private String lastReadFailure;
    private long lastReadFailureLogged;
    private Instant windowEnd;

    /** Like {@link #ShardProcessor(MappingSpec, ShardSource, FunctionInvoker, FailureDestination, Clock, String,
     * ShardStats, Timing)} with {@link Timing#DEFAULT}. */
    public ShardProcessor(
            MappingSpec spec,
            ShardSource source,
            FunctionInvoker invoker,
            FailureDestination destination,
            Clock clock,
            String functionArn,
            ShardStats stats) {
        this(spec, source, invoker, destination, clock, functionArn, stats, Timing.DEFAULT);
    }

    /**
     * @param destination the on-failure destination, or null when the mapping has none (discarded batches are then
     *                    only logged)
     * @param clock       the time used for record age, the batching window and failure-record timestamps
     * @param functionArn the ARN reported in failure records
     * @param stats       counters this processor updates
     */
    public ShardProcessor(
            MappingSpec spec,
            ShardSource source,
            FunctionInvoker invoker,
            FailureDestination destination,
            Clock clock,
            String functionArn,
            ShardStats stats,
            Timing timing) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.source = Objects.requireNonNull(source, "source");
        this.invoker = Objects.requireNonNull(invoker, "invoker");
        this.destination = destination;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.functionArn = Objects.requireNonNull(functionArn, "functionArn");
        this.stats = Objects.requireNonNull(stats, "stats");
        this.timing = Objects.requireNonNull(timing, "timing");
        if (spec.batchSize() < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1, got " + spec.batchSize());
        }
        this.window =
                spec.maxBatchingWindow() == null || spec.maxBatchingWindow().isNegative()
                        ? Duration.ZERO
                        : spec.maxBatchingWindow();
        // -1 (infinite) may arrive as null or as a negative duration.
        this.maxRecordAge =
                spec.maxRecordAge() == null || spec.maxRecordAge().isNegative() ? null : spec.maxRecordAge();
        this.name = spec.functionId() + "/" + spec.eventId() + " " + source.shardId();
    }

    /** True when the mapping asks for a ParallelizationFactor above 1, which this processor handles as 1. */
    public boolean parallelizationReduced() {
        return spec.parallelizationFactor() > 1;
    }

    /** This processor's counters. */
    public ShardStats stats() {
        return stats;
    }

    /** True once the shard is exhausted and every record read is done. */
    public boolean finished() {
        return idle() && source.exhausted();
    }

    /** Steps until {@code stop} says so or the shard is {@link #finished()}, waiting a little when there is no work. */
    public void runUntil(BooleanSupplier stop) throws InterruptedException {
        while (!stop.getAsBoolean() && !finished()) {
            if (!step()) {
                sleep(idleWait());
            }
        }
    }

    /**
     * One cycle: when a batch is in flight, one attempt at it (an invocation, or giving it up); otherwise one read
     * from the shard, then the first attempt if that completes a batch (full, at the payload limit, window over,
     * shard exhausted, or no window).
     *
     * @return false when there was nothing to do (nothing to read, or a batching window still open)
     */
    public boolean step() throws InterruptedException {
        if (pending.isEmpty()) {
            boolean read = poll();
            if (!batchReady()) {
                return read;
            }
            pending.addLast(new Work(List.copyOf(gathering), 0, 0, null));
            gathering.clear();
            gatheringBytes = 0;
            windowEnd = null;
        }
        attempt();
        return true;
    }

    // ---- gathering ----

    private boolean poll() throws InterruptedException {
        while (!carry.isEmpty() && gathering.size() < spec.batchSize() && fits(carry.peekFirst())) {
            gather(carry.removeFirst());
        }
        if (!carry.isEmpty() || gathering.size() >= spec.batchSize()) {
            return true;
        }
        List<StreamRecord> read;
        try {
            read = source.read(spec.batchSize() - gathering.size());
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            // Once per distinct failure and minute: a failing emulator would otherwise log five lines a second.
            String message = String.valueOf(e);
            long now = System.nanoTime();
            if (!message.equals(lastReadFailure) || now - lastReadFailureLogged > 60_000_000_000L) {
                LOG.log(Level.WARNING, () -> name + ": reading the shard failed: " + message);
                lastReadFailure = message;
                lastReadFailureLogged = now;
            }
            return false;
        }
        stats.read(read.size());
        for (StreamRecord r : read) {
            if (carry.isEmpty() && gathering.size() < spec.batchSize() && fits(r)) {
                gather(r);
            } else {
                carry.addLast(r);
            }
        }
        return !read.isEmpty();
    }

    private boolean fits(StreamRecord r) {
        // A record alone over the limit still goes, alone: there is nothing smaller to send.
        return gathering.isEmpty() || gatheringBytes + r.sizeBytes() <= MAX_PAYLOAD_BYTES;
    }

    private void gather(StreamRecord r) {
        if (gathering.isEmpty()) {
            windowEnd = clock.instant().plus(window);
        }
        gathering.add(r);
        gatheringBytes += r.sizeBytes();
    }

    private boolean batchReady() {
        if (gathering.isEmpty()) {
            return false;
        }
        return gathering.size() >= spec.batchSize()
                || !carry.isEmpty()
                || window.isZero()
                || source.exhausted()
                || !clock.instant().isBefore(windowEnd);
    }

    // ---- delivering ----

    private void attempt() throws InterruptedException {
        Work work = pending.peekFirst();
        sleep(timing.backoff(work.failuresInARow));
        if (maxRecordAge != null && expire(work)) {
            return;
        }
        if (work.retryDue) {
            work.retryDue = false;
            stats.retried();
        }
        InvokeResult result;
        try {
            result = invoker.invoke(payload(work.records));
        } catch (RuntimeException e) {
            // The batch never reached the function (throttle, service error): no retry is used up.
            work.failuresInARow++;
            LOG.log(Level.WARNING, () -> name + ": invoking " + functionArn + " failed, will try again: " + e);
            return;
        }
        stats.invoked();
        work.invocations++;
        work.last = result;
        Outcome outcome = outcome(result, work.records);
        switch (outcome.kind()) {
            case SUCCESS -> {
                pending.removeFirst();
                complete(work.records);
            }
            case PARTIAL -> {
                // Checkpoint at the lowest failed record: what precedes it is done, the rest is retried.
                stats.partialFailure();
                complete(work.records.subList(0, outcome.failedFrom()));
                work.records = List.copyOf(work.records.subList(outcome.failedFrom(), work.records.size()));
                failed(work);
            }
            case FUNCTION_ERROR -> {
                stats.functionError();
                if (spec.bisectOnError() && work.records.size() > 1) {
                    // Splitting does not consume the retry quota: the halves keep the batch's retry count.
                    stats.bisected();
                    pending.removeFirst();
                    int half = work.records.size() / 2;
                    pending.addFirst(new Work(
                            List.copyOf(work.records.subList(half, work.records.size())),
                            work.retries,
                            work.invocations,
                            result));
                    pending.addFirst(new Work(
                            List.copyOf(work.records.subList(0, half)), work.retries, work.invocations, result));
                } else {
                    failed(work);
                }
            }
            case INVALID -> {
                // Not a function error, so no bisection: the whole batch is retried.
                stats.invalidResponse();
                LOG.log(Level.DEBUG, () -> name + ": response fails the whole batch: " + outcome.reason());
                failed(work);
            }
        }
    }

    /** Gives up records past the maximum age; true when nothing of {@code work} is left to invoke. */
    private boolean expire(Work work) throws InterruptedException {
        Instant now = clock.instant();
        if (work.invocations == 0) {
            // Never sent: the expired records at the front are not sent at all; the rest goes on.
            int expired = 0;
            while (expired < work.records.size() && tooOld(work.records.get(expired), now)) {
                expired++;
            }
            if (expired == 0) {
                return false;
            }
            giveUp(work.records.subList(0, expired), RECORD_AGE_EXCEEDED, null, 0);
            if (expired == work.records.size()) {
                pending.removeFirst();
                return true;
            }
            work.records = List.copyOf(work.records.subList(expired, work.records.size()));
            return false;
        }
        // A retry (or a half of a failed batch): stop once its oldest record is too old.
        boolean anyTooOld = work.records.stream().anyMatch(r -> tooOld(r, now));
        if (anyTooOld) {
            pending.removeFirst();
            giveUp(work.records, RECORD_AGE_EXCEEDED, work.last, work.invocations);
        }
        return anyTooOld;
    }

    private boolean tooOld(StreamRecord r, Instant now) {
        return r.arrival() != null && Duration.between(r.arrival(), now).compareTo(maxRecordAge) > 0;
    }

    /** A failed attempt that is not split: retry it, or give it up when the retries are used up. */
    private void failed(Work work) throws InterruptedException {
        int max = spec.maxRetryAttempts();
        if (max >= 0 && work.retries >= max) {
            pending.removeFirst();
            giveUp(work.records, RETRY_ATTEMPTS_EXHAUSTED, work.last, work.invocations);
        } else {
            work.retries++;
            work.failuresInARow++;
            work.retryDue = true;
        }
    }

    private Outcome outcome(InvokeResult result, List<StreamRecord> records) {
        if (result.failed()) {
            return Outcome.FUNCTION_ERROR;
        }
        if (!spec.reportBatchItemFailures() || result.payload() == null || result.payload().length == 0) {
            return Outcome.SUCCESS; // an empty or null response is a complete success
        }
        JsonNode response;
        try {
            response = JSON.readTree(result.payload());
        } catch (IOException e) {
            return Outcome.invalid("the response is not JSON");
        }
        if (response == null || response.isMissingNode() || response.isNull()) {
            return Outcome.SUCCESS;
        }
        if (!response.isObject()) {
            return Outcome.invalid("the response is not a JSON object");
        }
        JsonNode failures = response.get("batchItemFailures");
        if (failures == null || failures.isNull() || (failures.isArray() && failures.isEmpty())) {
            return Outcome.SUCCESS;
        }
        if (!failures.isArray()) {
            return Outcome.invalid("batchItemFailures is not a list");
        }
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            index.put(records.get(i).sequenceNumber(), i);
        }
        // Records are in sequence order, so the lowest failed sequence number is the lowest index.
        int lowest = Integer.MAX_VALUE;
        for (JsonNode failure : failures) {
            JsonNode id = failure.isObject() ? failure.get("itemIdentifier") : null;
            String seq = id == null ? null : id.isTextual() ? id.textValue() : id.isNumber() ? id.asText() : null;
            if (seq == null || seq.isEmpty()) {
                return Outcome.invalid(
                        "a batchItemFailures entry has a null, empty or missing itemIdentifier: " + failure);
            }
            Integer at = index.get(seq);
            if (at == null) {
                return Outcome.invalid("itemIdentifier " + seq + " is not a sequence number of the batch");
            }
            lowest = Math.min(lowest, at);
        }
        return new Outcome(Kind.PARTIAL, lowest, null);
    }

    // ---- settling records ----

    /** Sends one failure record for {@code records} (or logs them without a destination) and marks them done. */
    private void giveUp(List<StreamRecord> records, String condition, InvokeResult last, int invocations)
            throws InterruptedException {
        stats.discarded(records.size());
        String context = failureContext(records, condition, last, invocations).toString();
        String what = records.size() + " records " + records.getFirst().sequenceNumber() + ".."
                + records.getLast().sequenceNumber() + " (" + condition + ")";
        if (destination == null) {
            LOG.log(Level.WARNING, () -> name + ": discarding " + what + "; the mapping has no on-failure destination");
        } else {
            try {
                destination.send(context);
                stats.toDestination(records.size());
                LOG.log(Level.INFO, () -> name + ": sent " + what + " to the on-failure destination");
            } catch (InterruptedException e) {
                LOG.log(Level.WARNING, () -> name + ": interrupted sending failure record, discarded: " + context);
                throw e;
            } catch (Exception e) {
                // The shard must not block on the destination: the failure record goes to the log instead.
                LOG.log(
                        Level.WARNING,
                        () -> name + ": on-failure destination refused " + what + ": " + e + "; failure record: "
                                + context);
            }
        }
        complete(records);
    }

    /** The invocation record Lambda sends to an on-failure destination, for {@code records}. */
    ObjectNode failureContext(List<StreamRecord> records, String condition, InvokeResult last, int invocations) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode request = root.putObject("requestContext");
        request.put(
                "requestId",
                last != null && last.requestId() != null
                        ? last.requestId()
                        : new UUID(
                                        java.util.concurrent.ThreadLocalRandom.current()
                                                .nextLong(),
                                        java.util.concurrent.ThreadLocalRandom.current()
                                                .nextLong())
                                .toString());
        request.put("functionArn", functionArn);
        request.put("condition", condition);
        request.put("approximateInvokeCount", invocations);
        if (last != null) {
            ObjectNode response = root.putObject("responseContext");
            response.put("statusCode", 200); // a synchronous invoke answers 200 even for a function error
            response.put("executedVersion", "$LATEST");
            if (last.functionError() != null) {
                response.put("functionError", last.functionError());
            }
        }
        root.put("version", "1.0");
        root.put("timestamp", iso(clock.instant()));
        StreamRecord first = records.getFirst();
        StreamRecord lastRecord = records.getLast();
        ObjectNode info = root.putObject("KinesisBatchInfo");
        info.put("shardId", source.shardId());
        info.put("startSequenceNumber", first.sequenceNumber());
        info.put("endSequenceNumber", lastRecord.sequenceNumber());
        info.put("approximateArrivalOfFirstRecord", iso(first.arrival()));
        info.put("approximateArrivalOfLastRecord", iso(lastRecord.arrival()));
        info.put("batchSize", records.size());
        info.put("streamArn", source.streamArn());
        return root;
    }

    private void complete(List<StreamRecord> records) {
        stats.done(records.size());
        records.stream()
                .map(StreamRecord::arrival)
                .filter(Objects::nonNull)
                .max(Instant::compareTo)
                .ifPresent(stats::arrivalDone);
    }

    private boolean idle() {
        return pending.isEmpty() && gathering.isEmpty() && carry.isEmpty();
    }

    // ---- helpers ----

    private static byte[] payload(List<StreamRecord> records) {
        ObjectNode event = JSON.createObjectNode();
        ArrayNode array = event.putArray("Records");
        records.forEach(r -> array.add(r.lambdaRecord()));
        try {
            return JSON.writeValueAsBytes(event);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Duration idleWait() {
        Duration wait = timing.pollInterval();
        if (windowEnd != null) {
            Duration toWindowEnd = Duration.between(clock.instant(), windowEnd);
            if (toWindowEnd.compareTo(wait) < 0) {
                wait = toWindowEnd.isNegative() ? Duration.ZERO : toWindowEnd;
            }
        }
        return wait.isZero() ? Duration.ofMillis(1) : wait; // never spin
    }

    private static void sleep(Duration d) throws InterruptedException {
        if (d.isPositive()) {
            Thread.sleep(d);
        }
    }

    private static String iso(Instant instant) {
        // As in the documented example: ISO-8601 UTC with milliseconds ("2019-11-14T00:38:04.835Z").
        return instant == null ? null : DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.MILLIS));
    }
}
