package dev.pulse.rules;

import java.util.SortedMap;

/** One rule of a group: its name ({@code alert} or {@code record}), its PromQL expression and its labels. */
public sealed interface Rule permits AlertingRule, RecordingRule {

    String name();

    String expr();

    SortedMap<String, String> labels();
}
