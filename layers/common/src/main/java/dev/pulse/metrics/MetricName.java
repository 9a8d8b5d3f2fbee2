package dev.pulse.metrics;

import java.util.Locale;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * A metric a function emits, implemented by each function's enum of metric names: the CloudWatch name is the
 * constant's name in PascalCase ({@code RECORDS_IN} -> {@code RecordsIn}), the unit {@code Count} unless a
 * constant overrides {@link #unit()}.
 */
public interface MetricName {

    /** The CloudWatch metric name, e.g. {@code RecordsIn}. */
    default String metricName() {
        StringBuilder sb = new StringBuilder();
        for (String word : ((Enum<?>) this).name().split("_", -1)) {
            if (word.isEmpty()) {
                continue; // a doubled, leading or trailing underscore adds no word
            }
            sb.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
        }
        return sb.toString();
    }

    default MetricUnit unit() {
        return MetricUnit.COUNT;
    }
}
