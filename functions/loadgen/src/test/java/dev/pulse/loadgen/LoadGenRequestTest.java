package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LoadGenRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static LoadGenRequest parse(String json) throws Exception {
        return LoadGenRequest.parse(JSON.readTree(json), 840, "req-1");
    }

    @Test
    void parse_whenDesignExample_readsEveryField() throws Exception {
        LoadGenRequest r = parse("{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"rate\":2000,"
                + "\"rampUpSeconds\":30,\"durationSeconds\":120,\"workers\":4,\"runId\":\"peak-1\"}");

        assertThat(r).isEqualTo(new LoadGenRequest("events/replay/sample.ndjson.gz", "rate", 2000, 1, 30, 120, 0, 4,
                "peak-1", -1));
        assertThat(r.forWorker(3)).isEqualTo(new LoadGenRequest("events/replay/sample.ndjson.gz", "rate", 500, 0.25, 30,
                120, 0, 1, "peak-1", 3));
    }

    @Test
    void parse_whenAggregateAsked_keepsItAndTheSizeForEveryWorker() throws Exception {
        LoadGenRequest r = parse("{\"source\":\"x\",\"rate\":100,\"durationSeconds\":5,\"workers\":2,"
                + "\"aggregate\":true,\"maxAggregateBytes\":25600}");

        assertThat(r.aggregate()).isTrue();
        assertThat(r.forWorker(1).aggregate()).isTrue();
        assertThat(r.forWorker(1).maxAggregateBytes()).isEqualTo(25_600);
        assertThat(parse("{\"source\":\"x\",\"rate\":100,\"durationSeconds\":5}").maxAggregateBytes())
                .isEqualTo(LoadGenRequest.DEFAULT_AGGREGATE_BYTES);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{}|source",
        "{\"source\":\"x\",\"mode\":\"burst\",\"durationSeconds\":5}|mode",
        "{\"source\":\"x\",\"durationSeconds\":5}|rate",
        "{\"source\":\"x\",\"rate\":0,\"durationSeconds\":5}|rate",
        "{\"source\":\"x\",\"rate\":\"fast\",\"durationSeconds\":5}|rate",
        "{\"source\":\"x\",\"rate\":10}|durationSeconds",
        "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":900}|durationSeconds",
        "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"rampUpSeconds\":6}|rampUpSeconds",
        "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"workers\":101}|workers",
        "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"aggregate\":\"yes\"}|aggregate",
        "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"aggregate\":true,\"maxAggregateBytes\":2000000}|maxAggregateBytes",
        "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"runId\":\"a b\"}|runId",
        "{\"source\":\"x\",\"mode\":\"recorded\",\"speed\":-1,\"durationSeconds\":5}|speed",
        "{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"htmlReport\":\"s3\"}|htmlReport",
    })
    void parse_whenInvalid_namesTheFieldBeforeAnythingIsSent(String json, String field) {
        assertThatThrownBy(() -> parse(json)).isInstanceOfSatisfying(LoadGenRequest.InvalidRequestException.class,
                e -> assertThat(e.field()).isEqualTo(field));
    }

    @Test
    void parse_whenHtmlReportAsked_keepsItForTheCoordinatorOnly() throws Exception {
        LoadGenRequest r = parse("{\"source\":\"x\",\"rate\":10,\"durationSeconds\":5,\"workers\":2,\"htmlReport\":true}");

        assertThat(r.htmlReport()).isTrue();
        assertThat(r.forWorker(0).htmlReport()).isFalse();
    }

    @Test
    void forWorker_whenRecordBudget_splitsItExactly() throws Exception {
        LoadGenRequest r = parse("{\"source\":\"x\",\"rate\":10,\"maxRecords\":10,\"workers\":4}");

        long total = 0;
        for (int i = 0; i < 4; i++) {
            total += r.forWorker(i).maxRecords();
        }
        assertThat(total).isEqualTo(10);
        assertThat(r.durationSeconds()).isEqualTo(840);
    }
}
