package dev.pulse.rules;

import dev.pulse.query.promql.RuleEvaluation;
import java.util.List;

/**
 * Evaluates a rule's expression at an instant: the query service's PromQL in production ({@link RulesFunction}),
 * where a bare selector averages the group's interval before {@code timeMillis}.
 */
@FunctionalInterface
public interface Querier {

    /** The samples of {@code expr} at {@code timeMillis}; a scalar is one sample without labels. */
    List<RuleEvaluation.Sample> query(String expr, long timeMillis, long intervalMillis) throws QueryFailedException;

    /** The expression could not be evaluated (a limit, a read failure, a timeout); the message says which. */
    final class QueryFailedException extends Exception {

        private static final long serialVersionUID = 1L;

        public QueryFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
