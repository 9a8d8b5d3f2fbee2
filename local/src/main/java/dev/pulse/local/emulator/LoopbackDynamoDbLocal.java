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
package dev.pulse.local.emulator;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.lang.instrument.Instrumentation;

/**
 * The main class of the {@code DynamoDBLocal.jar} the localstack backend lays out for LocalStack, which starts
 * DynamoDB Local itself ({@code java -javaagent:... -jar DynamoDBLocal.jar -port N -inMemory}): DynamoDB Local
 * from the Maven artifact already on the local stack's class path, with the same arguments as its own main, but
 * bound to 127.0.0.1 (it has no host option and would listen on every interface).
 */
public final class LoopbackDynamoDbLocal {

    private LoopbackDynamoDbLocal() {}

    public static void main(String[] args) throws Exception {
        DynamoDBProxyServer server = ServerRunner.createServerFromCommandLineArgs(args);
        if (server == null) {
            return; // -help printed its usage
        }
        LocalDynamoDb.bindLoopback(server);
        server.start();
        server.join();
    }

    /**
     * A do-nothing Java agent: LocalStack always passes {@code -javaagent:ddb-local-loader-0.1.jar} (its own agent
     * only lifts DynamoDB Local's limit of 20 global secondary indexes, and is downloaded from a host not reachable
     * here), so a jar naming this as its Premain-Class stands at that path.
     */
    public static void premain(String args, Instrumentation instrumentation) {
        // Nothing to change: the template's table has one index.
    }
}
