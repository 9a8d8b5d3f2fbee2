package dev.pulse.store;

import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The single-table key layout. Keys are readable in the console and sort chronologically:
 * <ul>
 *   <li>minute partial: PK {@code P#<seriesKey>#<yyyy-MM-ddTHH>}, SK {@code <yyyy-MM-ddTHH:mm>#<shardId>#<seq>}</li>
 *   <li>catalog: PK {@code C#<name>}, SK {@code <seriesKey>}</li>
 * </ul>
 * The time suffix of a partition key has a fixed width, so a series key containing {@code #} stays unambiguous.
 */
public final class KeyScheme {

    public static final String PK = "pk";
    public static final String SK = "sk";

    private KeyScheme() {
    }

    public static String partialPk(String seriesKey, long minuteStart) {
        return "P#" + seriesKey + "#" + hour(minuteStart);
    }

    public static String partialSk(long minuteStart, String shardId, String firstSequence) {
        return minute(minuteStart) + "#" + shardId + "#" + firstSequence;
    }

    public static String catalogPk(String name) {
        return "C#" + name;
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

    private static StringBuilder date(StringBuilder sb, LocalDateTime t) {
        int y = t.getYear();
        if (y < 1000) {
            sb.append(y < 10 ? "000" : y < 100 ? "00" : "0");
        }
        sb.append(y).append('-');
        pad2(sb, t.getMonthValue()).append('-');
        return pad2(sb, t.getDayOfMonth());
    }

    private static StringBuilder pad2(StringBuilder sb, int v) {
        if (v < 10) {
            sb.append('0');
        }
        return sb.append(v);
    }
}
