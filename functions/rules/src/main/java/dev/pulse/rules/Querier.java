/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
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
