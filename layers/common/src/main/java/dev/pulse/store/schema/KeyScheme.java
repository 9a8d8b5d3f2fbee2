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
package dev.pulse.store.schema;

import dev.pulse.store.read.LatestPartials;
import java.math.BigInteger;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Base64;

/**
 * The single-table key layout. Keys are readable in the console and sort chronologically:
 * <ul>
 *   <li>minute partial: PK {@code P#<seriesKey>#<yyyy-MM-ddTHH>}, SK {@code m<mm>#<shard>#<seq>#<generation>}, shard
 *       and first sequence number in compact form (partials written before checkpoints have no generation: read as
 *       0; partials written before compact keys have SK {@code <yyyy-MM-ddTHH:mm>#<shardId>#<seq>[#<generation>]}
 *       and are still read)</li>
 *   <li>hourly rollup: PK {@code H#<seriesKey>#<yyyy-MM-dd>}, SK {@code <yyyy-MM-ddTHH>}</li>
 *   <li>daily rollup: PK {@code D#<seriesKey>#<yyyy-MM>}, SK {@code <yyyy-MM-dd>}</li>
 *   <li>catalog: PK {@code C#<name>}, SK {@code <seriesKey>}; name index: PK {@code N#}, SK {@code <name>};
 *       the catalog's version: PK and SK {@code V#catalog}</li>
 * </ul>
 * The time suffix of a partition key has a fixed width, so a series key containing {@code #} stays unambiguous.
 * In a partial's sort key {@code #} sorts below every character of the compact forms, so the partials of one slot
 * are adjacent in a partition.
 */
public final class KeyScheme {

    public static final String PK = "pk";
    public static final String SK = "sk";
    /** Partition of the metric-name index (SK = name), for listing names by prefix. */
    public static final String NAMES_PK = "N#";
    /**
     * Partition (and sort key) of the catalog's version: a token ingest puts anew after every write of catalog entries,
     * so a reader that cached listings under the token it read knows they are still whole while it is unchanged.
     */
    public static final String CATALOG_VERSION_PK = "V#catalog";

    private KeyScheme() {}

    public static String partialPk(String seriesKey, long minuteStart) {
        return "P#" + seriesKey + "#" + hour(minuteStart);
    }

    /**
     * A partial's sort key: {@code m} and its minute within the partition's hour ({@code mm}), its shard and first
     * contributing record in compact form ({@link #compactShard}, {@link #compactSequence}; what every attempt that
     * stores that record as the minute's first contributor shares), then the generation of the attempt that wrote
     * it. The hour is the partition's, and the full shard id and 56-digit sequence number took 60 of a partial's 250
     * bytes. The {@code m} sorts after every digit, so a partition's partials of the earlier layout (which start with
     * their year) come before all of the current layout: {@link LatestPartials} needs to hold back only those.
     */
    public static String partialSk(long minuteStart, String shardId, String firstSequence, long generation) {
        int mm = (int) Math.floorMod(Math.floorDiv(minuteStart, 60_000L), 60L);
        StringBuilder sb = new StringBuilder(45);
        pad2(sb.append(PARTIAL_MINUTE), mm)
                .append('#')
                .append(compactShard(shardId))
                .append('#')
                .append(compactSequence(firstSequence));
        return sb.append('#').append(generation).toString();
    }

    /**
     * The part of a partial's sort key that attempts share: minute, shard and first contributing record. A key in
     * the earlier layout ({@code yyyy-MM-ddTHH:mm#<shardId>#<seq>[#<generation>]}, written before compact keys) gives
     * the slot its record has in the current layout, so a reader can tell it is the same record.
     */
    public static String partialSlot(String sk) {
        if (legacyPartial(sk)) {
            int[] at = legacyHashes(sk);
            return PARTIAL_MINUTE + sk.substring(14, 16) + "#" + compactShard(sk.substring(17, at[0])) + "#"
                    + compactSequence(sk.substring(at[0] + 1, at[1]));
        }
        return hashes(sk) >= 3 ? sk.substring(0, sk.lastIndexOf('#')) : sk;
    }

    /** The generation of the attempt that wrote a partial; 0 for a partial written before generations. */
    public static long partialGeneration(String sk) {
        if (legacyPartial(sk)) {
            int end = legacyHashes(sk)[1];
            return end == sk.length() ? 0 : Long.parseLong(sk.substring(end + 1));
        }
        return hashes(sk) >= 3 ? Long.parseLong(sk.substring(sk.lastIndexOf('#') + 1)) : 0;
    }

    /**
     * Where an earlier-layout key's sequence number starts and ends: {@code [#before it, end of it]}. As that
     * layout's readers split it: with three or more {@code #} the last part is the generation, the part before it
     * the sequence number, and the shard id (which may hold {@code #}) what lies between it and the minute.
     */
    private static int[] legacyHashes(String sk) {
        int hashes = hashes(sk);
        if (sk.length() < 17 || sk.charAt(16) != '#' || hashes < 2) {
            throw new IllegalArgumentException("not a partial sort key: " + sk);
        }
        int end = hashes >= 3 ? sk.lastIndexOf('#') : sk.length();
        int start = sk.lastIndexOf('#', end - 1);
        if (start <= 16) {
            throw new IllegalArgumentException("not a partial sort key: " + sk);
        }
        return new int[] {start, end};
    }

    /** The start (epoch ms) of a partial's minute, from its sort key and the start of its partition's hour. */
    public static long partialMinute(long hourStart, String sk) {
        if (legacyPartial(sk)) {
            return LocalDateTime.parse(sk.substring(0, 16)).toEpochSecond(ZoneOffset.UTC) * 1000;
        }
        return hourStart + ((sk.charAt(1) - '0') * 10 + (sk.charAt(2) - '0')) * 60_000L;
    }

    /** The start (epoch ms) of a partial's minute, from its partition and sort keys (for tools that scan). */
    public static long partialMinute(String pk, String sk) {
        return partialMinute(hourStart(pk.substring(pk.length() - "yyyy-MM-ddTHH".length())), sk);
    }

    /** Whether a partial's sort key is in the layout before compact keys: it starts with its year, not {@code m}. */
    public static boolean legacyPartial(String sk) {
        return !sk.isEmpty() && sk.charAt(0) != PARTIAL_MINUTE;
    }

    /**
     * A shard id as partial keys hold it: Kinesis' {@code shardId-000000000042} (twelve digits) as {@code 42}; any
     * other form whole behind {@code =} ({@link #verbatim}), which the short form never starts with.
     */
    public static String compactShard(String shardId) {
        int n = KINESIS_SHARD.length();
        if (shardId.length() == n + 12 && shardId.startsWith(KINESIS_SHARD) && digits(shardId, n, shardId.length())) {
            return Long.toString(Long.parseLong(shardId.substring(n)));
        }
        return verbatim(shardId);
    }

    /**
     * A sequence number as partial keys hold it: Kinesis' decimal number as the URL-safe base64 of its bytes (32
     * characters for 56 digits), a KPL user record's {@code <seq>.<sub>} as that and {@code .<sub>}; any other form
     * (a leading zero, say, which the number would lose) whole behind {@code =} ({@link #verbatim}), which base64
     * never starts with.
     */
    public static String compactSequence(String sequence) {
        int dot = sequence.indexOf('.');
        int end = dot < 0 ? sequence.length() : dot;
        boolean number = end > 0 && digits(sequence, 0, end) && (end == 1 || sequence.charAt(0) != '0');
        boolean sub = dot < 0 || (dot + 1 < sequence.length() && digits(sequence, dot + 1, sequence.length()));
        if (!number || !sub) {
            return verbatim(sequence);
        }
        String head = BASE64.encodeToString(new BigInteger(sequence.substring(0, end)).toByteArray());
        return dot < 0 ? head : head + sequence.substring(dot);
    }

    /**
     * {@code =} and the value with {@code %} and every character up to {@code #} as {@code %XX}, so a
     * key part never holds {@code #} nor anything sorting below it: a slot's keys stay adjacent and the parts of a
     * key unambiguous, whatever a hand-made event's shard id or sequence number holds.
     */
    private static String verbatim(String value) {
        StringBuilder sb = new StringBuilder(value.length() + 1).append('=');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= '#' || c == '%') {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 15]);
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** The first character of a current-layout partial sort key; sorts after the digits an earlier one starts with. */
    private static final char PARTIAL_MINUTE = 'm';

    private static final String KINESIS_SHARD = "shardId-";
    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

    private static boolean digits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return from < to;
    }

    private static int hashes(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '#') {
                n++;
            }
        }
        return n;
    }

    public static String hourlyPk(String seriesKey, long hourStart) {
        return "H#" + seriesKey + "#" + day(hourStart);
    }

    public static String dailyPk(String seriesKey, long dayStart) {
        return "D#" + seriesKey + "#" + month(dayStart);
    }

    public static String catalogPk(String name) {
        return "C#" + name;
    }

    /**
     * The series key of a partial, hourly or daily partition key: the inverse of {@link #partialPk},
     * {@link #hourlyPk} and {@link #dailyPk}, which end in a fixed-width time suffix.
     */
    public static String seriesKey(String pk) {
        int suffix = switch (pk.charAt(0)) {
            case 'P' -> "#yyyy-MM-ddTHH".length();
            case 'H' -> "#yyyy-MM-dd".length();
            case 'D' -> "#yyyy-MM".length();
            default -> throw new IllegalArgumentException("not a partial or rollup partition key: " + pk);
        };
        return pk.substring(2, pk.length() - suffix);
    }

    /** Epoch ms of an {@link #hour} string ({@code yyyy-MM-ddTHH}, UTC): an hourly rollup's sort key. */
    public static long hourStart(String hour) {
        return LocalDateTime.parse(hour + ":00").toEpochSecond(ZoneOffset.UTC) * 1000;
    }

    /** Epoch ms of a {@link #day} string ({@code yyyy-MM-dd}, UTC): a daily rollup's sort key. */
    public static long dayStart(String day) {
        return java.time.LocalDate.parse(day).atStartOfDay().toEpochSecond(ZoneOffset.UTC) * 1000;
    }

    /** {@code yyyy-MM} in UTC. */
    public static String month(long epochMillis) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(epochMillis, 1000L), 0, ZoneOffset.UTC);
        return yearMonth(new StringBuilder(7), t).toString();
    }

    /** {@code yyyy-MM-dd} in UTC. */
    public static String day(long epochMillis) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(epochMillis, 1000L), 0, ZoneOffset.UTC);
        return date(new StringBuilder(10), t).toString();
    }

    /** {@code yyyy-MM-ddTHH} in UTC. */
    public static String hour(long epochMillis) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(epochMillis, 1000L), 0, ZoneOffset.UTC);
        StringBuilder sb = new StringBuilder(16);
        date(sb, t).append('T');
        return pad2(sb, t.getHour()).toString();
    }

    /** {@code yyyy-MM-ddTHH:mm} in UTC. */
    public static String minute(long epochMillis) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(epochMillis, 1000L), 0, ZoneOffset.UTC);
        StringBuilder sb = new StringBuilder(16);
        date(sb, t).append('T');
        pad2(sb, t.getHour()).append(':');
        return pad2(sb, t.getMinute()).toString();
    }

    private static StringBuilder yearMonth(StringBuilder sb, LocalDateTime t) {
        int y = t.getYear();
        if (y < 1000) {
            sb.append(y < 10 ? "000" : y < 100 ? "00" : "0");
        }
        sb.append(y).append('-');
        return pad2(sb, t.getMonthValue());
    }

    private static StringBuilder date(StringBuilder sb, LocalDateTime t) {
        return pad2(yearMonth(sb, t).append('-'), t.getDayOfMonth());
    }

    private static StringBuilder pad2(StringBuilder sb, int v) {
        if (v < 10) {
            sb.append('0');
        }
        return sb.append(v);
    }
}
