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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.regex.Pattern;

/**
 * A validated load-test request (the function's input event). Every rejection names the field, and nothing
 * is sent before the whole request is valid.
 *
 * @param source          bundled file (events/replay/...) or {@code s3://bucket/key}
 * @param mode            {@code rate} (fixed records/s) or {@code recorded} (recorded gaps / speed)
 * @param rate            records/s after the ramp (rate mode), for the whole run across workers
 * @param speed           replay speed factor (recorded mode)
 * @param rampUpSeconds   linear ramp from 0 (rate mode)
 * @param durationSeconds how long to send
 * @param maxRecords      stop after this many records (0: no limit)
 * @param workers         parallel invocations sharing the rate
 * @param runId           names the run and its canary series
 * @param worker          this invocation's worker index, or -1 for the coordinator; a worker of {@code workers} > 1
 *                        runs its share ({@link #forWorker}) of the request
 * @param aggregate       pack the records into KPL aggregates before PutRecords (docs/design.md, "Load generator")
 * @param maxAggregateBytes an aggregate's size limit, magic and MD5 included (with {@code aggregate})
 * @param htmlReport      the coordinator also writes the run's HTML report to {@code reports/<runId>.html} in the
 *                        report bucket (the template's ReplayBucket) and answers its key
 */
public record LoadGenRequest(
        String source,
        String mode,
        double rate,
        double speed,
        double rampUpSeconds,
        long durationSeconds,
        long maxRecords,
        int workers,
        String runId,
        int worker,
        boolean aggregate,
        int maxAggregateBytes,
        boolean htmlReport) {

    public static final int MAX_WORKERS = 100;
    /** The KPL's own default AggregationMaxSize: two PUT payload units. */
    public static final int DEFAULT_AGGREGATE_BYTES = 51_200;
    /**
     * Kinesis's 1 MiB record limit counts data and partition key; a replayed key is at most 256 bytes, so an
     * aggregate this size always fits.
     */
    public static final int MAX_AGGREGATE_BYTES = 1_048_576 - 256;

    /** A request without aggregation. */
    public LoadGenRequest(
            String source,
            String mode,
            double rate,
            double speed,
            double rampUpSeconds,
            long durationSeconds,
            long maxRecords,
            int workers,
            String runId,
            int worker) {
        this(
                source,
                mode,
                rate,
                speed,
                rampUpSeconds,
                durationSeconds,
                maxRecords,
                workers,
                runId,
                worker,
                false,
                DEFAULT_AGGREGATE_BYTES,
                false);
    }

    /** A request without an HTML report. */
    public LoadGenRequest(
            String source,
            String mode,
            double rate,
            double speed,
            double rampUpSeconds,
            long durationSeconds,
            long maxRecords,
            int workers,
            String runId,
            int worker,
            boolean aggregate,
            int maxAggregateBytes) {
        this(
                source,
                mode,
                rate,
                speed,
                rampUpSeconds,
                durationSeconds,
                maxRecords,
                workers,
                runId,
                worker,
                aggregate,
                maxAggregateBytes,
                false);
    }

    public static final double MAX_RATE_PER_WORKER = 50_000;
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** Thrown for an invalid request, naming the field. */
    public static final class InvalidRequestException extends IllegalArgumentException {
        private final String field;

        public InvalidRequestException(String field, String message) {
            super(field + ": " + message);
            this.field = field;
        }

        public String field() {
            return field;
        }
    }

    /**
     * Validates {@code event}; {@code maxDurationSeconds} is what fits in the function's timeout with a margin,
     * {@code defaultRunId} names the run when the event does not.
     */
    public static LoadGenRequest parse(JsonNode event, long maxDurationSeconds, String defaultRunId) {
        if (event == null || !event.isObject()) {
            throw new InvalidRequestException("event", "must be a JSON object");
        }
        String source = text(event, "source", null);
        if (source == null || source.isBlank()) {
            throw new InvalidRequestException(
                    "source", "is required (a bundled file such as events/replay/sample.ndjson.gz or s3://bucket/key)");
        }
        String mode = text(event, "mode", "rate");
        if (!mode.equals("rate") && !mode.equals("recorded")) {
            throw new InvalidRequestException("mode", "must be rate or recorded");
        }
        int workers = (int) number(event, "workers", 1, 1, MAX_WORKERS);
        double rate = 0;
        double ramp = 0;
        double speed = 1;
        if (mode.equals("rate")) {
            if (!event.has("rate")) {
                throw new InvalidRequestException("rate", "is required in rate mode (records per second)");
            }
            rate = number(event, "rate", 0, 1e-3, MAX_RATE_PER_WORKER * workers);
            ramp = number(event, "rampUpSeconds", 0, 0, maxDurationSeconds);
        } else {
            speed = number(event, "speed", 1, 1e-3, 1000);
        }
        long duration = (long) number(event, "durationSeconds", 0, 1, maxDurationSeconds);
        long maxRecords = (long) number(event, "maxRecords", 0, 0, 1e12);
        if (duration == 0 && maxRecords == 0) {
            throw new InvalidRequestException("durationSeconds", "give durationSeconds, maxRecords or both");
        }
        if (duration == 0) {
            duration = maxDurationSeconds;
        }
        if (ramp > duration) {
            throw new InvalidRequestException("rampUpSeconds", "must not exceed durationSeconds");
        }
        String runId = text(event, "runId", defaultRunId);
        if (runId == null || !RUN_ID.matcher(runId).matches()) {
            throw new InvalidRequestException("runId", "must be 1-64 letters, digits, '-' or '_'");
        }
        int worker = (int) number(event, "worker", -1, -1, MAX_WORKERS - 1);
        if (worker >= workers) {
            throw new InvalidRequestException(
                    "worker", "must be -1 (the coordinator) or below workers (" + workers + "), got " + worker);
        }
        JsonNode agg = event.get("aggregate");
        if (agg != null && !agg.isNull() && !agg.isBoolean()) {
            throw new InvalidRequestException("aggregate", "must be true or false");
        }
        boolean aggregate = agg != null && agg.asBoolean();
        int maxAggregateBytes =
                (int) number(event, "maxAggregateBytes", DEFAULT_AGGREGATE_BYTES, 1024, MAX_AGGREGATE_BYTES);
        JsonNode html = event.get("htmlReport");
        if (html != null && !html.isNull() && !html.isBoolean()) {
            throw new InvalidRequestException("htmlReport", "must be true or false");
        }
        return new LoadGenRequest(
                source,
                mode,
                rate,
                speed,
                ramp,
                duration,
                maxRecords,
                workers,
                runId,
                worker,
                aggregate,
                maxAggregateBytes,
                html != null && html.asBoolean());
    }

    /**
     * The event that starts worker {@code index} of this request: every field of the request as it is (so the worker
     * validates what the coordinator validated) with {@code worker} set; the worker runs its {@link #forWorker share}.
     */
    public ObjectNode workerEvent(int index) {
        return withWorker(index).toEvent();
    }

    /** This request with {@code worker} set to {@code index}. */
    public LoadGenRequest withWorker(int index) {
        return new LoadGenRequest(
                source,
                mode,
                rate,
                speed,
                rampUpSeconds,
                durationSeconds,
                maxRecords,
                workers,
                runId,
                index,
                aggregate,
                maxAggregateBytes,
                htmlReport);
    }

    /**
     * This request as an event {@link #parse} reads back to an equal request: one field per record component, written
     * by reflection so that a component added later is forwarded without being listed here.
     */
    public ObjectNode toEvent() {
        ObjectNode e = JsonNodeFactory.instance.objectNode();
        for (RecordComponent c : LoadGenRequest.class.getRecordComponents()) {
            Object v;
            try {
                v = c.getAccessor().invoke(this);
            } catch (IllegalAccessException | InvocationTargetException ex) {
                throw new IllegalStateException("cannot read " + c.getName(), ex);
            }
            switch (v) {
                case String t -> e.put(c.getName(), t);
                case Double d -> e.put(c.getName(), d);
                case Long l -> e.put(c.getName(), l);
                case Integer i -> e.put(c.getName(), i);
                case Boolean b -> e.put(c.getName(), b);
                default -> throw new IllegalStateException("no JSON form for " + c.getName() + " of " + c.getType());
            }
        }
        return e;
    }

    /** This worker's share of the request: its part of the rate and record budget. */
    public LoadGenRequest forWorker(int index) {
        long share = maxRecords == 0 ? 0 : Math.max(1, maxRecords / workers + (index < maxRecords % workers ? 1 : 0));
        return new LoadGenRequest(
                source,
                mode,
                rate / workers,
                speed / workers,
                rampUpSeconds,
                durationSeconds,
                share,
                1,
                runId,
                index,
                aggregate,
                maxAggregateBytes,
                false);
    }

    private static String text(JsonNode e, String field, String dflt) {
        JsonNode n = e.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isTextual()) {
            throw new InvalidRequestException(field, "must be a string");
        }
        return n.asText();
    }

    private static double number(JsonNode e, String field, double dflt, double min, double max) {
        JsonNode n = e.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isNumber() || !Double.isFinite(n.asDouble())) {
            throw new InvalidRequestException(field, "must be a number");
        }
        double v = n.asDouble();
        if (v < min || v > max) {
            throw new InvalidRequestException(field, "must be between " + min + " and " + max + ", got " + v);
        }
        return v;
    }
}
