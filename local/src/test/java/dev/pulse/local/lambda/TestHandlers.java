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
package dev.pulse.local.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import java.util.Map;

/** Handlers the local Lambda service runs in its own JVMs in {@link LocalLambdaTest}. */
public final class TestHandlers {

    private TestHandlers() {}

    /** Answers with its input, the context and what the JVM sees. */
    public static final class Echo implements RequestHandler<Map<String, Object>, Map<String, Object>> {
        @Override
        public Map<String, Object> handleRequest(Map<String, Object> input, Context context) {
            System.out.println("echo " + input);
            return Map.of(
                    "input",
                    input,
                    "functionName",
                    context.getFunctionName(),
                    "arn",
                    context.getInvokedFunctionArn(),
                    "memory",
                    context.getMemoryLimitInMB(),
                    "remainingMillis",
                    context.getRemainingTimeInMillis(),
                    "maxHeapMb",
                    Runtime.getRuntime().maxMemory() >> 20,
                    "greeting",
                    String.valueOf(System.getenv("GREETING")),
                    "pid",
                    ProcessHandle.current().pid());
        }
    }

    /** Answers as an API Gateway proxy function: status 201, a header, and the event it got as the body. */
    public static final class HttpEcho implements com.amazonaws.services.lambda.runtime.RequestStreamHandler {
        @Override
        public void handleRequest(java.io.InputStream input, java.io.OutputStream output, Context context)
                throws java.io.IOException {
            String event = new String(input.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
            var answer = mapper.createObjectNode().put("statusCode", 201).put("body", event);
            answer.putObject("headers").put("x-echo", "1");
            output.write(mapper.writeValueAsBytes(answer));
        }
    }

    /** Typed as the compactor is: answers with what the runtime client made of the EventBridge event. */
    public static final class Scheduled
            implements RequestHandler<
                    com.amazonaws.services.lambda.runtime.events.ScheduledEvent, Map<String, Object>> {
        @Override
        public Map<String, Object> handleRequest(
                com.amazonaws.services.lambda.runtime.events.ScheduledEvent event, Context context) {
            return Map.of(
                    "id",
                    String.valueOf(event.getId()),
                    "detailType",
                    String.valueOf(event.getDetailType()),
                    "source",
                    String.valueOf(event.getSource()),
                    "account",
                    String.valueOf(event.getAccount()),
                    "region",
                    String.valueOf(event.getRegion()),
                    "resources",
                    String.valueOf(event.getResources()),
                    "timeMillis",
                    event.getTime() == null ? -1 : event.getTime().getMillis(),
                    "detail",
                    String.valueOf(event.getDetail()));
        }
    }

    /** Throws. */
    public static final class Fail implements RequestHandler<Map<String, Object>, String> {
        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            throw new IllegalStateException("boom");
        }
    }

    /** Sleeps past any short timeout. */
    public static final class Sleep implements RequestHandler<Map<String, Object>, String> {
        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "late";
        }
    }

    /** Holds its environment for half a second, then answers with its JVM's PID. */
    public static final class Pause implements RequestHandler<Map<String, Object>, Long> {
        @Override
        public Long handleRequest(Map<String, Object> input, Context context) {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ProcessHandle.current().pid();
        }
    }

    /** Kills its own JVM, as an out-of-memory crash would. */
    public static final class Crash implements RequestHandler<Map<String, Object>, String> {
        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            Runtime.getRuntime().halt(3);
            return "unreachable";
        }
    }
}
