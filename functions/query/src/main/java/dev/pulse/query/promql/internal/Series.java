package dev.pulse.query.promql.internal;

import java.util.SortedMap;

/**
 * One series of an instant-vector result: its labels and a value per evaluation step; {@code present[i]} says
 * whether step {@code i} has a value (a NaN from arithmetic is a value, as in Prometheus; an empty window is not).
 */
public record Series(SortedMap<String, String> labels, double[] values, boolean[] present) {

    boolean isEmpty() {
        for (boolean p : present) {
            if (p) {
                return false;
            }
        }
        return true;
    }
}
