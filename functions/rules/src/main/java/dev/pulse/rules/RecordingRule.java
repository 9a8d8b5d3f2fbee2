package dev.pulse.rules;

import java.util.SortedMap;

/** {@code record: <name>}: the expression's samples stored as series named {@code name}, with {@code labels} over theirs. */
public record RecordingRule(String name, String expr, SortedMap<String, String> labels) implements Rule {
}
