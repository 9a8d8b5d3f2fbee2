package dev.pulse.rules;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SKELETON, not wired into template.yaml: the scheduled evaluator's entry point. It translates only: the schedule's
 * time in, every group due at its aligned time evaluated by {@link GroupEvaluator}, a summary out. The rule files are
 * loaded and validated when the container starts, so a bad rule fails the first invocation with the file, group,
 * rule and reason. Missing before it may be deployed (the next slice): alert state in the table (this keeps it in
 * the container's memory, lost on a cold start), recording rules written through ingest's exactly-once path (this
 * refuses them with an error in the summary), catching up missed evaluations, notifications, EMF metrics.
 */
public final class RulesHandler implements RequestHandler<ScheduledEvent, Map<String, Object>> {

    private final RuleSet rules;
    private final GroupEvaluator evaluator;
    private final Clock clock;

    /** Used by the Lambda runtime. */
    public RulesHandler() throws RuleFileException {
        this(PulseConfig.fromEnvironment(System.getenv()), Clock.systemUTC());
    }

    private RulesHandler(PulseConfig config, Clock clock) throws RuleFileException {
        this(RulesFunction.bundledRules(), RulesFunction.evaluator(
                RulesFunction.querier(config, AwsClients.dynamoDbAsync(config.writeConcurrency()), clock),
                new InMemoryAlertStore(), (key, at, samples) -> {
                    throw new UnsupportedOperationException("recording rules are not stored yet");
                }, Map.of(), ""), clock);
    }

    RulesHandler(RuleSet rules, GroupEvaluator evaluator, Clock clock) {
        this.rules = rules;
        this.evaluator = evaluator;
        this.clock = clock;
    }

    @Override
    public Map<String, Object> handleRequest(ScheduledEvent event, Context context) {
        long now = event != null && event.getTime() != null ? event.getTime().getMillis() : clock.millis();
        List<Map<String, Object>> groups = new ArrayList<>();
        for (RuleGroup g : rules.groups()) {
            long at = GroupEvaluator.alignedTime(g, now);
            GroupEvaluation e = evaluator.evaluate(g, at);
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("group", g.key());
            summary.put("evaluatedAt", at);
            summary.put("errors", e.rules().stream().filter(o -> o.error() != null)
                    .map(o -> o.ruleKey() + ": " + o.error()).toList());
            summary.put("firing", e.rules().stream().mapToLong(o -> o.alerts().values().stream()
                    .filter(a -> a.state() == AlertState.FIRING).count()).sum());
            groups.add(summary);
        }
        return Map.of("groups", groups);
    }
}
