package dev.pulse.rules;

import dev.pulse.rules.internal.GoTemplate;
import java.util.Map;
import java.util.SortedMap;

/**
 * {@code alert: <name>}: every sample of the expression is an alert, pending from its first evaluation and firing
 * once it has lasted {@code forMillis}; a firing alert whose sample is gone keeps firing for
 * {@code keepFiringForMillis}. {@code labels} and {@code annotations} are templates (their parsed forms are kept so
 * a rule that loaded never fails to parse later).
 */
public record AlertingRule(String name, String expr, long forMillis, long keepFiringForMillis,
        SortedMap<String, String> labels, SortedMap<String, String> annotations,
        Map<String, GoTemplate> labelTemplates, Map<String, GoTemplate> annotationTemplates) implements Rule {
}
