package dev.pulse.rules;

/**
 * A rule file Pulse refuses; the message names the file and, where it applies, the group, the rule and the reason:
 * {@code pulse.rules.yml: group "api", rule 2 ("HighErrors"): could not parse expression: 1:9: parse error: ...}.
 */
public final class RuleFileException extends Exception {

    private static final long serialVersionUID = 1L;

    public RuleFileException(String message) {
        super(message);
    }
}
