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

import dev.pulse.config.ConfigException;
import dev.pulse.config.PulseConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * PushFunction's settings, from environment variables template.yaml declares once, checked together at start-up with
 * the settings every function shares: a misconfigured endpoint fails its first invocation with one message naming every
 * bad variable.
 *
 * @param shared                  the settings every function reads (accepted time window, retry delays, safety margin)
 * @param region                  {@code AWS_REGION} (the Lambda runtime sets it)
 * @param streamName              {@code STREAM_NAME}: the Kinesis stream IngestFunction reads
 * @param maxBodyBytes            {@code MAX_BODY_BYTES} (default 4 MiB, at most 4 MiB): a request body as sent
 *                                (compressed); Lambda takes at most 6 MB per synchronous invocation and API Gateway
 *                                passes a binary body base64-encoded (4/3 larger)
 * @param maxDecompressedBytes    {@code MAX_DECOMPRESSED_BYTES} (default 16 MiB): a body after gzip or snappy; a body
 *                                inflating past it is refused with 413 while it inflates
 * @param maxSeriesPerRequest     {@code MAX_SERIES_PER_REQUEST} (default 20,000): distinct series in one request
 * @param maxDatapointsPerRequest {@code MAX_DATAPOINTS_PER_REQUEST} (default 200,000): data points (samples) in one
 *                                request
 * @param partitionKeys           {@code PARTITION_KEYS} (default 16): how many partition keys series are hashed onto; a
 *                                request puts at least one record per key its series fall on
 */
public record PushConfig(
        PulseConfig shared,
        String region,
        String streamName,
        int maxBodyBytes,
        int maxDecompressedBytes,
        int maxSeriesPerRequest,
        int maxDatapointsPerRequest,
        int partitionKeys) {

    /** Lambda's 6 MB synchronous payload holds a base64-encoded body of at most 4.5 MiB with its headers: 4 MiB. */
    public static final int MAX_BODY_BYTES_LIMIT = 4 * 1024 * 1024;

    /**
     * How much narrower than ingest's time window ({@code ACCEPT_PAST_SECONDS}, {@code ACCEPT_FUTURE_SECONDS}) push
     * checks points. Ingest checks a point against its record's arrival in Kinesis, which comes after push's check by
     * at most the function's timeout (29 s; the request's budget is 25 s), and Kinesis' clock may differ from the
     * function's by a little: a point push takes within this margin of the oldest accepted time would be outside
     * ingest's window on arrival, and poison. 60 s covers the 29 s and 31 s of clock difference.
     */
    public static final Duration WINDOW_EDGE_MARGIN = Duration.ofSeconds(60);

    /** The oldest point push takes: {@code ACCEPT_PAST_SECONDS} less {@link #WINDOW_EDGE_MARGIN} (not below 0). */
    public Duration pushAcceptPast() {
        return narrowed(shared.acceptPast());
    }

    /**
     * The newest point push takes: {@code ACCEPT_FUTURE_SECONDS} less {@link #WINDOW_EDGE_MARGIN} (not below 0). A
     * record arrives after push's check, which only widens ingest's future edge; the margin covers a Kinesis clock
     * behind the function's.
     */
    public Duration pushAcceptFuture() {
        return narrowed(shared.acceptFuture());
    }

    private static Duration narrowed(Duration window) {
        Duration d = window.minus(WINDOW_EDGE_MARGIN);
        return d.isNegative() ? Duration.ZERO : d;
    }

    public static PushConfig fromEnvironment(Map<String, String> env) {
        List<String> problems = new ArrayList<>();
        PulseConfig shared = PulseConfig.fromEnvironment(env, problems);
        String region = PulseConfig.region(env, problems);
        String stream = env.getOrDefault("STREAM_NAME", "");
        if (!stream.matches("[a-zA-Z0-9_.-]{1,128}")) {
            problems.add(
                    "STREAM_NAME must be a Kinesis stream name (1-128 of a-z A-Z 0-9 _ . -), got \"" + stream + "\"");
        }
        int body = number(env, "MAX_BODY_BYTES", 4 * 1024 * 1024, 1024, MAX_BODY_BYTES_LIMIT, problems);
        int inflated = number(env, "MAX_DECOMPRESSED_BYTES", 16 * 1024 * 1024, 1024, 64 * 1024 * 1024, problems);
        int series = number(env, "MAX_SERIES_PER_REQUEST", 20_000, 1, 100_000, problems);
        int points = number(env, "MAX_DATAPOINTS_PER_REQUEST", 200_000, 1, 1_000_000, problems);
        int keys = number(env, "PARTITION_KEYS", 16, 1, 1024, problems);
        if (problems.isEmpty() && inflated < body) {
            problems.add("MAX_DECOMPRESSED_BYTES (" + inflated + ") must be at least MAX_BODY_BYTES (" + body + ")");
        }
        if (!problems.isEmpty()) {
            throw new ConfigException("invalid configuration: " + String.join("; ", problems));
        }
        return new PushConfig(shared, region, stream, body, inflated, series, points, keys);
    }

    private static int number(Map<String, String> env, String name, int dflt, int min, int max, List<String> problems) {
        String raw = env.get(name);
        if (raw == null || raw.isBlank()) {
            return dflt;
        }
        try {
            int v = Integer.parseInt(raw.strip());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below with the range
        }
        problems.add(name + " must be an integer in " + min + ".." + max + ", got \"" + raw + "\"");
        return dflt;
    }
}
