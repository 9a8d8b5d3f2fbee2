package dev.pulse.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.testing.MutableClock;
import dev.pulse.testing.TestContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.joda.time.DateTime;
import org.junit.jupiter.api.Test;

/** The handler translates only: the schedule's time in, every group at its aligned time, a summary out. */
class RulesHandlerTest {

    @Test
    void handleRequest_whenTheScheduleFires_evaluatesEachGroupAtTheLastMultipleOfItsInterval() throws Exception {
        RuleSet rules = RuleFiles.load(Map.of("r.yml", "groups:\n"
                + "- name: every-minute\n  rules: [{alert: A, expr: x > 0}]\n"
                + "- name: every-five\n  interval: 5m\n  rules: [{record: 'r:x', expr: x}]\n"));
        List<String> asked = new ArrayList<>();
        Querier querier = (expr, t, interval) -> {
            asked.add(expr + "@" + Instant.ofEpochMilli(t) + "/" + interval);
            return List.of(new RuleEvaluation.Sample(new TreeMap<>(Map.of("__name__", "x")), 1));
        };
        List<Long> written = new ArrayList<>();
        GroupEvaluator evaluator = new GroupEvaluator(querier, new InMemoryAlertStore(),
                (key, at, samples) -> written.add(at), Map.of(), "");
        Instant scheduled = Instant.parse("2026-11-20T12:07:03Z");
        ScheduledEvent event = new ScheduledEvent();
        event.setTime(new DateTime(scheduled.toEpochMilli()));

        Map<String, Object> out = new RulesHandler(rules, evaluator, new MutableClock(Instant.EPOCH))
                .handleRequest(event, new TestContext("req-1", 60_000, 512));

        assertThat(asked).containsExactly("x > 0@2026-11-20T12:07:00Z/60000", "x@2026-11-20T12:05:00Z/300000");
        assertThat(written).containsExactly(Instant.parse("2026-11-20T12:05:00Z").toEpochMilli());
        assertThat(out.get("groups").toString()).contains("firing=1", "errors=[]");
    }
}
