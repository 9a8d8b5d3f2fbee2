package dev.pulse.store;

import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The single-table key layout. Keys are readable in the console and sort chronologically:
 * <ul>
 *   <li>minute partial: PK {@code P#<seriesKey>#<yyyy-MM-ddTHH>}, SK {@code <yyyy-MM-ddTHH:mm>#<shardId>#<seq>#<generation>}
 *       (partials written before checkpoints have no generation: read as 0)</li>
 *   <li>hourly rollup: PK {@code H#<seriesKey>#<yyyy-MM-dd>}, SK {@code <yyyy-MM-ddTHH>}</li>
 *   <li>daily rollup: PK {@code D#<seriesKey>#<yyyy-MM>}, SK {@code <yyyy-MM-dd>}</li>
 *   <li>catalog: PK {@code C#<name>}, SK {@code <seriesKey>}; name index: PK {@code N#}, SK {@code <name>}</li>
 * </ul>
 * The time suffix of a partition key has a fixed width, so a series key containing {@code #} stays unambiguous.
 */
public final class KeyScheme {

    public static final String PK = "pk";
    public static final String SK = "sk";
    /** Partition of the metric-name index (SK = name), for listing names by prefix. */
    public static final String NAMES_PK = "N#";

    private KeyScheme() {
    }

    public static String partialPk(String seriesKey, long minuteStart) {
        return "P#" + seriesKey + "#" + hour(minuteStart);
    }

    /**
     * A partial's sort key: its minute, shard and first contributing record (what every attempt that stores that
     * record as the minute's first contributor shares), then the generation of the attempt that wrote it.
     */
    public static String partialSk(long minuteStart, String shardId, String firstSequence, long generation) {
        return minute(minuteStart) + "#" + shardId + "#" + firstSequence + "#" + generation;
    }

    /** The part of a partial's sort key that attempts share: minute, shard and first contributing record. */
    public static String partialSlot(String sk) {
        int last = sk.lastIndexOf('#');
        return hashes(sk) >= 3 ? sk.substring(0, last) : sk;
    }

    /** The generation of the attempt that wrote a partial; 0 for a partial written before generations. */
    public static long partialGeneration(String sk) {
        return hashes(sk) >= 3 ? Long.parseLong(sk.substring(sk.lastIndexOf('#') + 1)) : 0;
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
