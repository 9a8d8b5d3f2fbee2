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
package dev.pulse.local.template;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code Schedule} event of a function (an EventBridge rule with a schedule expression), resolved.
 *
 * @param functionId       logical id of the function the rule invokes
 * @param eventId          logical id of the event inside the function ({@code Build})
 * @param expression       the schedule expression as resolved ({@code rate(5 minutes)})
 * @param period           the time between two runs the expression describes
 * @param ruleName         the rule's {@code Name}, or {@code <stackName>-<FunctionId><EventId>-LOCAL} when the
 *                         template leaves it to CloudFormation (SAM names the rule's logical id
 *                         {@code <FunctionId><EventId>})
 * @param input            the event's {@code Input}: the JSON text EventBridge sends instead of the scheduled event,
 *                         or null to send the "Scheduled Event" itself
 * @param asyncRetryAttempts how often Lambda retries a run that ends in a function error: EventBridge invokes the
 *                         function asynchronously, so this is the function's
 *                         {@code EventInvokeConfig.MaximumRetryAttempts} (Lambda's default: 2); the event's own
 *                         {@code RetryPolicy} only covers failures to deliver the event, which do not happen locally
 */
public record ScheduleSpec(
        String functionId,
        String eventId,
        String expression,
        Duration period,
        String ruleName,
        String input,
        int asyncRetryAttempts) {

    /** Lambda's retries of a failed asynchronous invocation when the function has no EventInvokeConfig. */
    public static final int DEFAULT_ASYNC_RETRY_ATTEMPTS = 2;

    private static final Pattern RATE = Pattern.compile("rate\\(\\s*(\\d+)\\s+([A-Za-z]+)\\s*\\)");

    /**
     * The period of an EventBridge rate expression: {@code rate(1 minute)}, {@code rate(5 minutes)}, {@code rate(1 hour)},
     * {@code rate(2 hours)}, {@code rate(1 day)}, {@code rate(7 days)}. As in EventBridge, the value is a positive
     * integer and the unit is singular for 1 and plural above (a rule with {@code rate(5 minute)} fails to deploy).
     *
     * @param what names the setting in error messages
     * @throws IllegalArgumentException for a {@code cron(...)} expression (only rate expressions run locally) or
     *                                  anything that is not a valid rate expression, naming {@code what}
     */
    public static Duration ratePeriod(String expression, String what) {
        String text = expression == null ? "" : expression.strip();
        if (text.startsWith("cron(")) {
            throw new IllegalArgumentException(
                    what + " is " + text + ": the local stack runs rate(...) schedules only, not"
                            + " cron(...); give it a rate expression for local runs, for example --param <parameter>=\"rate(5 minutes)\"");
        }
        Matcher m = RATE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException(what + " is '" + text + "': not a schedule expression; expected"
                    + " rate(N minute|minutes|hour|hours|day|days), for example rate(5 minutes)");
        }
        long value;
        try {
            value = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " is " + text + ": the value is too large", e);
        }
        String unit = m.group(2);
        if (value < 1) {
            throw new IllegalArgumentException(what + " is " + text + ": the value must be a positive integer");
        }
        String singular = unit.endsWith("s") ? unit.substring(0, unit.length() - 1) : unit;
        Duration one = switch (singular) {
            case "minute" -> Duration.ofMinutes(1);
            case "hour" -> Duration.ofHours(1);
            case "day" -> Duration.ofDays(1);
            default ->
                throw new IllegalArgumentException(what + " is " + text + ": unknown unit '" + unit
                        + "'; expected minute, minutes, hour, hours, day or days");
        };
        boolean plural = !singular.equals(unit);
        if (plural != (value > 1)) {
            throw new IllegalArgumentException(what + " is " + text + ": EventBridge wants the unit "
                    + (value == 1
                            ? "singular for 1 (rate(1 " + singular + "))"
                            : "plural above 1 (rate(" + value + " " + singular + "s))"));
        }
        try {
            return one.multipliedBy(value);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " is " + text + ": the value is too large", e);
        }
    }

    /** The rule's ARN in the given region and account. */
    public String ruleArn(String region, String accountId) {
        return "arn:aws:events:" + region + ":" + accountId + ":rule/" + ruleName;
    }

    /** {@code <FunctionId>.<EventId>}, the name the local stack's reports use. */
    public String id() {
        return functionId + "." + eventId;
    }
}
