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
package dev.pulse.codec;

import dev.pulse.model.DatapointValidator;
import java.util.Set;

/**
 * Every limit the decoders enforce while they read, in one place for the docs and the fuzzer. A unit (a Kinesis
 * record, or one user record of a KPL aggregate) that passes one is poison, and its reason names the limit by the
 * constant's name (e.g. {@code MAX_DATAPOINTS_PER_RECORD}). Each limit is checked while reading, before the memory
 * it guards is allocated, so a few kilobytes that expand to millions of elements are refused after reading the limit,
 * not after building them. A unit's fate depends only on its own bytes (never on the batch, the clock or the heap),
 * so every attempt at a batch refuses the same units.
 *
 * <p>The per-datapoint limits (name, dimension count and lengths, series key bytes, value range, unit length) are in
 * {@link DatapointValidator}; they are repeated here so this class is the one table.
 */
public final class DecodeLimits {

    private DecodeLimits() {}

    /**
     * Datapoints one unit may decode to. A 1 MB record of native JSON holds at most ~35,000 (about 30 bytes each);
     * compressed formats (CloudWatch Logs, OTLP) reach this only with value arrays or many tiny points. 100,000
     * datapoints are about 5 MB of heap.
     */
    public static final int MAX_DATAPOINTS_PER_RECORD = 100_000;

    /**
     * Datapoints all user records of one KPL aggregate may decode to together: the aggregate is one Kinesis record,
     * and its user records are held until it is split, so it gets the budget of one record.
     */
    public static final int MAX_DATAPOINTS_PER_AGGREGATE = MAX_DATAPOINTS_PER_RECORD;

    /**
     * Distinct series (name and dimensions) in one unit, and in one KPL aggregate together: each is a partial item
     * with its own sketch to build and write. Above the Collector's default batch of 8,192 datapoints (all distinct at
     * worst); counted only when a unit has more datapoints than this, so ordinary records pay nothing for it.
     */
    public static final int MAX_SERIES_PER_RECORD = 10_000;

    /** OTLP histogram (explicit or exponential, per sign) buckets per data point; the SDKs' default is 16 and 160. */
    public static final int MAX_HISTOGRAM_BUCKETS = 1_000;

    /**
     * Histogram data points (explicit and exponential) per unit and per KPL aggregate: each carries a sketch of up to
     * {@link dev.pulse.aggregate.Sketches#MAX_BINS} bins per sign (about 33 KB of heap at the worst), so 2,000 of them
     * are at most ~66 MB.
     */
    public static final int MAX_HISTOGRAM_POINTS_PER_RECORD = 2_000;

    /**
     * Bytes a compressed unit (CloudWatch Logs gzip, OTLP JSON gzip/zlib/deflate) may inflate to. CloudWatch Logs
     * delivers at most 1 MB of log events per PutLogEvents call; 16 times the Kinesis record limit leaves room for
     * JSON escaping and batching.
     */
    public static final int MAX_DECOMPRESSED_BYTES = 16 * 1024 * 1024;

    /**
     * Bytes an OTLP protobuf request may have, after decompression. Protobuf is parsed whole into objects, up to ~35
     * bytes of heap per byte (a data point can be two bytes): 4 MB is at most ~150 MB of heap. The same 4 MB as other
     * OTLP backends accept uncompressed; a Collector exporter keeps under it with {@code max_record_size}.
     */
    public static final int MAX_OTLP_PROTOBUF_BYTES = 4 * 1024 * 1024;

    /**
     * gzip members (RFC 1952) in one compressed unit. CloudWatch Logs and the OTLP exporter write one; concatenated
     * members are legal gzip, read in a loop ({@link Gunzip}), and this bounds the headers a record may make the
     * decoder read: a 1 MB record holds ~50,000 empty members of 20 bytes.
     */
    public static final int MAX_GZIP_MEMBERS = 1_000;

    /** Bytes all user records of one KPL aggregate may inflate to together. */
    public static final int MAX_DECOMPRESSED_BYTES_PER_AGGREGATE = MAX_DECOMPRESSED_BYTES;

    /**
     * JSON tokens in one document (a CloudWatch Logs payload, one EMF log event, an OTLP/JSON request). The tree
     * formats build a node per token (~50-100 bytes of heap), so this bounds them at ~100 MB; an ordinary payload has
     * a few tokens per log event or attribute, far below.
     */
    public static final long MAX_JSON_TOKENS = 1_000_000;

    /** JSON nesting depth (OTLP/JSON needs about 12, with nested attribute values a few more). */
    public static final int MAX_JSON_DEPTH = 64;

    /** Characters in one JSON string (a log event's message is at most 256 KB of UTF-8; an EMF document 1 MB). */
    public static final int MAX_JSON_STRING_CHARS = 1024 * 1024;

    /** Characters in one JSON number: a double needs at most 25; more is only work for the parser. */
    public static final int MAX_JSON_NUMBER_CHARS = 100;

    /** EMF specification: a directive's {@code Metrics} holds at most 100 metric definitions. */
    public static final int MAX_EMF_METRICS_PER_DIRECTIVE = 100;

    /** EMF specification: a dimension set holds at most 30 dimension keys (CloudWatch's dimensions per metric). */
    public static final int MAX_EMF_DIMENSION_KEYS = DatapointValidator.MAX_DIMENSIONS;

    /**
     * Dimension sets per EMF directive. The specification names no limit; every set multiplies the directive's
     * datapoints, so Pulse allows 30 (as many as a set may have keys).
     */
    public static final int MAX_EMF_DIMENSION_SETS = 30;

    /** EMF specification: a metric's value array holds at most 100 values. */
    public static final int MAX_EMF_VALUES_PER_METRIC = 100;

    /**
     * EMF metrics whose value array is empty, counted once per dimension set of their directive, in one unit. Such a
     * metric makes no datapoint, so the datapoint limit does not bound the decoder's pass over it: 46 KB of gzip can
     * name 21 million of them. The specification gives no minimum length; an empty array is read as no values, and
     * counted here as much as a datapoint would be, so the work of a record stays within that of its datapoints.
     */
    public static final int MAX_EMF_EMPTY_METRICS_PER_RECORD = MAX_DATAPOINTS_PER_RECORD;

    /** {@link #MAX_EMF_EMPTY_METRICS_PER_RECORD} for all user records of one KPL aggregate together. */
    public static final int MAX_EMF_EMPTY_METRICS_PER_AGGREGATE = MAX_EMF_EMPTY_METRICS_PER_RECORD;

    /** Characters in a unit: CloudWatch's longest unit name is 16 characters, UCUM units are short too. */
    public static final int MAX_UNIT_LENGTH = DatapointValidator.MAX_UNIT_LENGTH;

    /** Name, dimension key and value lengths, dimensions per datapoint, series key bytes: see {@link DatapointValidator}. */
    public static final int MAX_NAME_LENGTH = DatapointValidator.MAX_NAME_LENGTH;

    public static final int MAX_DIMENSIONS = DatapointValidator.MAX_DIMENSIONS;
    public static final int MAX_DIMENSION_LENGTH = DatapointValidator.MAX_DIMENSION_LENGTH;
    public static final int MAX_SERIES_KEY_BYTES = DatapointValidator.MAX_SERIES_KEY_BYTES;

    /** Counts (OTLP histogram, exponential histogram and summary) above 2^53 lose exactness as doubles. */
    public static final long MAX_POINT_COUNT = 1L << 53;

    /** Poison user records past which a KPL aggregate is poison whole ({@link RecordDecoder#MAX_POISON_USER_RECORDS}). */
    public static final int MAX_POISON_USER_RECORDS = 100;

    /** CloudWatch's unit names (the {@code StandardUnit} enumeration): the only units an EMF metric may carry. */
    public static final Set<String> CLOUDWATCH_UNITS = Set.of(
            "Seconds",
            "Microseconds",
            "Milliseconds",
            "Bytes",
            "Kilobytes",
            "Megabytes",
            "Gigabytes",
            "Terabytes",
            "Bits",
            "Kilobits",
            "Megabits",
            "Gigabits",
            "Terabits",
            "Percent",
            "Count",
            "Bytes/Second",
            "Kilobytes/Second",
            "Megabytes/Second",
            "Gigabytes/Second",
            "Terabytes/Second",
            "Bits/Second",
            "Kilobits/Second",
            "Megabits/Second",
            "Gigabits/Second",
            "Terabits/Second",
            "Count/Second",
            "None");
}
