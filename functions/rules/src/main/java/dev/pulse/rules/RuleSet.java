package dev.pulse.rules;

import java.util.List;

/** Every group of every rule file, in file then group order; {@link RuleFiles} builds it validated. */
public record RuleSet(List<RuleGroup> groups) {

    public int ruleCount() {
        return groups.stream().mapToInt(g -> g.rules().size()).sum();
    }
}
