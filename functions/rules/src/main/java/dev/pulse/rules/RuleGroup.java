package dev.pulse.rules;

import java.util.List;

/**
 * A group of a rule file: its rules run in order, each seeing what the previous ones recorded, at every multiple of
 * {@code intervalMillis} since the epoch. {@code limit} (0: none) bounds the alerts of one alerting rule and the
 * series of one recording rule, as Prometheus' group {@code limit}.
 */
public record RuleGroup(String file, String name, long intervalMillis, int limit, List<Rule> rules) {

    /** The group's identity across files: Prometheus' group key, {@code file;name}. */
    public String key() {
        return file + ";" + name;
    }
}
