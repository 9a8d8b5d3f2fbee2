package dev.pulse.rules.internal;

import java.util.Map;
import java.util.TreeMap;

/** Template values as Go prints them: float64, string, map[string]string (keys sorted), nil. */
final class Values {

    private Values() {
    }

    static String print(Object v) {
        if (v == null) {
            return "<no value>";
        }
        if (v instanceof Double d) {
            return GoFormat.shortest(d);
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("map[");
            boolean first = true;
            for (Map.Entry<?, ?> e : new TreeMap<>(m).entrySet()) {
                if (!first) {
                    b.append(' ');
                }
                first = false;
                b.append(e.getKey()).append(':').append(e.getValue());
            }
            return b.append(']').toString();
        }
        return v.toString();
    }
}
