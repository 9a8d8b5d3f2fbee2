package dev.pulse.local.esm;

import static dev.pulse.local.esm.EsmFakes.T0;
import static dev.pulse.local.esm.EsmFakes.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FilterPatternTest {

    /** The compact function's FilterCriteria in template.yaml. */
    private static final String COMPACT =
            "{\"eventName\":[\"INSERT\",\"MODIFY\"],\"dynamodb\":{\"Keys\":{\"pk\":{\"S\":[{\"prefix\":\"P#\"},{\"prefix\":\"H#\"}]}}}}";

    @ParameterizedTest(name = "{0} on {1} -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            # exact values and OR over a field's list
            {"a":["x"]}                                  | {"a":"x"}                    | true
            {"a":["x"]}                                  | {"a":"X"}                    | false
            {"a":["x","y"]}                              | {"a":"y"}                    | true
            {"a":["x"]}                                  | {"b":"x"}                    | false
            {"a":[""]}                                   | {"a":""}                     | true
            {"a":[null]}                                 | {"a":null}                   | true
            {"a":[null]}                                 | {}                           | false
            {"a":[true]}                                 | {"a":true}                   | true
            {"a":[true]}                                 | {"a":"true"}                 | false
            {"a":[300]}                                  | {"a":300}                    | true
            {"a":[300]}                                  | {"a":300.0}                  | false
            {"a":[300]}                                  | {"a":"300"}                  | false
            # keys are AND-ed
            {"a":["x"],"b":["y"]}                        | {"a":"x","b":"y"}            | true
            {"a":["x"],"b":["y"]}                        | {"a":"x","b":"z"}            | false
            # nesting
            {"a":{"b":["x"]}}                            | {"a":{"b":"x"}}              | true
            {"a":{"b":["x"]}}                            | {"a":"x"}                    | false
            # array values in the record: any element
            {"a":["x"]}                                  | {"a":["w","x"]}              | true
            {"a":["x"]}                                  | {"a":["w"]}                  | false
            # prefix / suffix / equals-ignore-case
            {"a":[{"prefix":"P#"}]}                      | {"a":"P#s1"}                 | true
            {"a":[{"prefix":"P#"}]}                      | {"a":"p#s1"}                 | false
            {"a":[{"prefix":{"equals-ignore-case":"P#"}}]} | {"a":"p#s1"}               | true
            {"a":[{"suffix":".png"}]}                    | {"a":"x.png"}                | true
            {"a":[{"suffix":".png"}]}                    | {"a":"x.PNG"}                | false
            {"a":[{"suffix":{"equals-ignore-case":".png"}}]} | {"a":"x.PNG"}            | true
            {"a":[{"suffix":"png"}]}                     | {"a":"pn"}                   | false
            {"a":[{"equals-ignore-case":"Alice"}]}       | {"a":"aLiCe"}                | true
            {"a":[{"equals-ignore-case":"Alice"}]}       | {"a":"Alicia"}               | false
            # anything-but
            {"a":[{"anything-but":"x"}]}                 | {"a":"y"}                    | true
            {"a":[{"anything-but":"x"}]}                 | {"a":"x"}                    | false
            {"a":[{"anything-but":"x"}]}                 | {}                           | false
            {"a":[{"anything-but":["x","y"]}]}           | {"a":"y"}                    | false
            {"a":[{"anything-but":["x","y"]}]}           | {"a":"z"}                    | true
            {"a":[{"anything-but":123}]}                 | {"a":124}                    | true
            {"a":[{"anything-but":123}]}                 | {"a":123}                    | false
            {"a":[{"anything-but":{"prefix":"us-"}}]}    | {"a":"eu-west-1"}            | true
            {"a":[{"anything-but":{"prefix":"us-"}}]}    | {"a":"us-east-1"}            | false
            {"a":[{"anything-but":{"suffix":".tmp"}}]}   | {"a":"f.tmp"}                | false
            {"a":[{"anything-but":{"equals-ignore-case":"x"}}]} | {"a":"X"}             | false
            # numeric
            {"a":[{"numeric":["=",100]}]}                | {"a":100.0}                  | true
            {"a":[{"numeric":[">",10,"<=",20]}]}         | {"a":20}                     | true
            {"a":[{"numeric":[">",10,"<=",20]}]}         | {"a":10}                     | false
            {"a":[{"numeric":[">",10,"<=",20]}]}         | {"a":20.5}                   | false
            {"a":[{"numeric":[">=",0]}]}                 | {"a":"5"}                    | false
            {"a":[{"numeric":["<",0]}]}                  | {"a":-0.5}                   | true
            # exists (leaves only)
            {"a":[{"exists":true}]}                      | {"a":"x"}                    | true
            {"a":[{"exists":true}]}                      | {"b":"x"}                    | false
            {"a":[{"exists":true}]}                      | {"a":{"b":1}}                | false
            {"a":[{"exists":false}]}                     | {"b":"x"}                    | true
            {"a":[{"exists":false}]}                     | {"a":"x"}                    | false
            {"a":[{"exists":false}]}                     | {"a":null}                   | false
            # $or across fields
            {"$or":[{"a":["x"]},{"b":["y"]}]}            | {"b":"y"}                    | true
            {"$or":[{"a":["x"]},{"b":["y"]}]}            | {"a":"y","b":"x"}            | false
            """)
    void matches_whenOperatorApplied_followsEventBridgeSemantics(String pattern, String record, boolean expected) {
        assertThat(FilterPattern.parse(pattern).matches(parse(record))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} pk={1} -> {2}")
    @CsvSource({
            "INSERT, P#s1#202506051821, true",
            "MODIFY, H#s1#2025060518, true",
            "REMOVE, P#s1#202506051821, false",
            "INSERT, D#s1#20250605, false",
            "MODIFY, C#catalog, false",
    })
    void matches_whenCompactPatternOnDynamoDbRecord_selectsNewOrChangedPartialsAndHourlies(String eventName, String pk,
            boolean expected) {
        StreamRecord record = EsmFakes.ddb("1", T0, eventName, pk);

        assertThat(FilterPattern.parse(COMPACT).matches(record.filterView())).isEqualTo(expected);
    }

    @Test
    void matches_whenKinesisDataIsJson_matchesInsideData() {
        FilterPattern pattern = FilterPattern.parse("{\"kinesis\":{\"data\":{\"kind\":[\"metric\"]}}}");

        assertThat(pattern.matches(EsmFakes.kinesis("1", T0, "{\"kind\":\"metric\"}").filterView())).isTrue();
        assertThat(pattern.matches(EsmFakes.kinesis("2", T0, "{\"kind\":\"log\"}").filterView())).isFalse();
        assertThat(pattern.matches(EsmFakes.kinesis("3", T0, "kind=metric").filterView())).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {"a":                                 | not valid JSON
            ["a"]                                 | must be a JSON object
            {"a":"x"}                             | value of 'a' must be an array
            {"a":[]}                              | empty array at 'a'
            {"a":{"b":[[1]]}}                     | nested array at 'a.b'
            {"a":[{"wildcard":"*x"}]}             | unsupported filter operator 'wildcard' at 'a'
            {"a":[{"prefix":1}]}                  | 'prefix' at 'a' takes a string
            {"a":[{"numeric":["~",1]}]}           | unknown comparison
            {"a":[{"numeric":[">"]}]}             | 'numeric' at 'a' takes [op, number]
            {"a":[{"exists":"yes"}]}              | 'exists' at 'a' takes true or false
            {"a":[{"prefix":"x","suffix":"y"}]}   | exactly one key
            {"$or":[{"a":["x"]}]}                 | at least two patterns
            """)
    void parse_whenPatternMalformed_throwsNamingTheProblem(String pattern, String problem) {
        assertThatThrownBy(() -> FilterPattern.parse(pattern))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(problem);
    }

    @Test
    void matches_whenFiltersHaveSeveralPatterns_matchesAny() {
        Filters filters = Filters.of(List.of("{\"a\":[\"x\"]}", "{\"b\":[\"y\"]}"));

        assertThat(filters.matches(parse("{\"a\":\"x\"}"))).isTrue();
        assertThat(filters.matches(parse("{\"b\":\"y\"}"))).isTrue();
        assertThat(filters.matches(parse("{\"a\":\"y\"}"))).isFalse();
    }

    @Test
    void matches_whenNoPatterns_matchesEverything() {
        assertThat(Filters.of(List.of()).matches(parse("{\"anything\":1}"))).isTrue();
        assertThat(Filters.of(null).matchesAll()).isTrue();
    }

    @Test
    void of_whenOnePatternMalformed_throwsNamingThePattern() {
        assertThatThrownBy(() -> Filters.of(List.of("{\"a\":[\"x\"]}", "{\"b\":[]}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty array at 'b'")
                .hasMessageContaining("{\"b\":[]}");
    }
}
