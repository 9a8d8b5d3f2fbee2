package dev.pulse.ingest;

import dev.pulse.config.PulseConfig;
import java.time.Clock;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/** The production wiring of IngestService ({@code IngestHandler.create}, package-private) for tests in other packages. */
public final class IngestHandlerAccess {

    private IngestHandlerAccess() {
    }

    public static IngestService service(PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs, Clock clock) {
        return IngestHandler.create(config, dynamo, sqs, clock);
    }
}
