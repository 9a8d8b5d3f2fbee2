package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.loadgen.LoadGenRequest;
import org.junit.jupiter.api.Test;

class ColdStartBenchTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String s) throws Exception {
        return JSON.readTree(s);
    }

    @Test
    void batchProblem_whenNoFailedItems_isNone() throws Exception {
        assertThat(ColdStartBench.batchProblem(json("{\"batchItemFailures\":[]}"))).isNull();
    }

    @Test
    void batchProblem_whenAnItemFailed_namesIt() throws Exception {
        assertThat(ColdStartBench.batchProblem(json("{\"batchItemFailures\":[{\"itemIdentifier\":\"1\"}]}")))
                .isEqualTo("1 failed batch items");
    }

    @Test
    void batchProblem_whenNotABatchResponse_isAProblem() throws Exception {
        assertThat(ColdStartBench.batchProblem(json("{\"errorMessage\":\"x\"}"))).isEqualTo("no batchItemFailures");
    }

    @Test
    void httpProblem_whenStatus200WithBody_isNone() throws Exception {
        assertThat(ColdStartBench.httpProblem(json("{\"statusCode\":200,\"body\":\"{}\"}"))).isNull();
    }

    @Test
    void httpProblem_whenStatus400_namesTheStatus() throws Exception {
        assertThat(ColdStartBench.httpProblem(json("{\"statusCode\":400,\"body\":\"{}\"}"))).isEqualTo("status 400");
    }

    @Test
    void loadGenProblem_whenEveryRecordAcked_isNone() throws Exception {
        assertThat(ColdStartBench.loadGenProblem(json("{\"sent\":100,\"acked\":100,\"failed\":0}"))).isNull();
    }

    @Test
    void loadGenProblem_whenTheRequestWasRefused_isAProblem() throws Exception {
        assertThat(ColdStartBench.loadGenProblem(json("{\"error\":{\"field\":\"rate\",\"message\":\"m\"}}")))
                .startsWith("refused");
    }

    @Test
    void loadGenProblem_whenRecordsWereLost_isAProblem() throws Exception {
        assertThat(ColdStartBench.loadGenProblem(json("{\"sent\":100,\"acked\":90,\"failed\":10}")))
                .isEqualTo("acked 90 of 100, failed 10");
        assertThat(ColdStartBench.loadGenProblem(json("{\"sent\":0,\"acked\":0,\"failed\":0}"))).isEqualTo("nothing sent");
    }

    @Test
    void loadGenEvent_whenParsedAsTheFunctionDoes_isAOneSecondSingleWorkerRun() throws Exception {
        LoadGenRequest r = LoadGenRequest.parse(json(ColdStartBench.LOADGEN_EVENT), 60, "id");

        assertThat(r.durationSeconds()).isEqualTo(1);
        assertThat(r.worker()).isZero();
        assertThat(r.workers()).isEqualTo(1);
    }
}
