package dev.pulse.local.esm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A mapping's {@code FilterCriteria}: a record is delivered when it matches any of the patterns; with no patterns
 * every record is delivered. "If an event satisfies any one of these filters, Lambda sends the event to your
 * function. Otherwise, Lambda discards the event"
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html).
 */
public final class Filters {

    /** No filter criteria: every record matches. */
    public static final Filters ALL = new Filters(List.of());

    private final List<FilterPattern> patterns;

    private Filters(List<FilterPattern> patterns) {
        this.patterns = patterns;
    }

    /**
     * Compiles a mapping's {@code FilterCriteria.Filters[].Pattern} strings (null or empty: {@link #ALL}).
     *
     * @throws IllegalArgumentException naming the malformed pattern and its problem
     */
    public static Filters of(List<String> patterns) {
        if (patterns == null || patterns.isEmpty()) {
            return ALL;
        }
        return new Filters(patterns.stream().map(p -> {
            try {
                return FilterPattern.parse(p);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + " (pattern " + p + ")", e);
            }
        }).toList());
    }

    /** True when {@code record} (a record's filter view) matches one of the patterns, or there are none. */
    public boolean matches(JsonNode record) {
        return patterns.isEmpty() || patterns.stream().anyMatch(p -> p.matches(record));
    }

    /** True when there are no patterns. */
    public boolean matchesAll() {
        return patterns.isEmpty();
    }
}
