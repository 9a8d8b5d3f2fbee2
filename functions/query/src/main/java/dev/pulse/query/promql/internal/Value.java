package dev.pulse.query.promql.internal;

import java.util.List;

/** The value of an expression over all evaluation steps: a scalar or an instant vector. */
public sealed interface Value {

    /** One number per step. */
    record Scalar(double[] values) implements Value {
    }

    /**
     * Series with a value at some of the steps; {@code ordered} when the order is the answer's (sort, sort_desc, topk,
     * bottomk in an instant query), else the answer is sorted by labels.
     */
    record Vector(List<Series> series, boolean ordered) implements Value {
        public Vector(List<Series> series) {
            this(series, false);
        }
    }
}
