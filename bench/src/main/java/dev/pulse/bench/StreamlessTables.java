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

    private StreamlessTables() {}

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
