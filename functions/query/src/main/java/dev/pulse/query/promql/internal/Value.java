package dev.pulse.query.promql.internal;

import java.util.List;

/** The value of an expression over all evaluation steps: a scalar or an instant vector. */
public sealed interface Value {

    /** One number per step. */
    record Scalar(double[] values) implements Value {
    }

    /** Series with a value at some of the steps. */
    record Vector(List<Series> series) implements Value {
    }
}
