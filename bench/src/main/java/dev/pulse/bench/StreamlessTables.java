package dev.pulse.bench;

import dev.pulse.testing.emulator.LocalDynamoDb;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Tables with the template's keys and billing but no stream, for benchmarks that measure writes.
 *
 * <p>In DynamoDB a stream costs the writer nothing: it is filled asynchronously. In DynamoDB Local every write to a
 * stream-enabled table runs a SQLite query over the emulator's stream records, which grows with every item any
 * table has ever written (DescribeStream's shard query, on DynamoDB Local's single SQLite thread): a 1,208-item
 * batch that took 1.8 s on a fresh emulator took 20 s after 30,000 more writes. Write figures taken on streamed
 * tables would measure the emulator's history, not the code. Nothing measured here reads the stream.
 */
final class StreamlessTables {

    private static final AtomicInteger TABLES = new AtomicInteger();

    private StreamlessTables() {
    }

    /** A fresh table named after {@code prefix}: pk/sk strings, on demand, no stream. */
    static String create(DynamoDbClient client, String prefix) {
        String name = "bench-" + prefix + "-nostream-" + TABLES.incrementAndGet();
        LocalDynamoDb.createTable(client, name);
        return name;
    }

    /** Drops {@code table}, so that what later benchmarks measure does not carry its items. */
    static void delete(DynamoDbClient client, String table) {
        client.deleteTable(b -> b.tableName(table));
    }
}
