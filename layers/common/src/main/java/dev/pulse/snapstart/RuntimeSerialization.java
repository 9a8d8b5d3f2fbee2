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
package dev.pulse.snapstart;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Type;

/**
 * The Lambda runtime's own (de)serialisation of events and responses (aws-lambda-java-serialization, on the
 * runtime's class path, not in the layer): priming writes and reads back an event and a response with the
 * serializer the runtime interface client picks for their types, so the first invocation after a restore does not
 * load and set it up. Reflective, as the library is the runtime's; absent (unit tests), nothing is primed.
 */
public final class RuntimeSerialization {

    private static final String EVENTS =
            "com.amazonaws.services.lambda.runtime.serialization.events.LambdaEventSerializers";
    private static final String JACKSON =
            "com.amazonaws.services.lambda.runtime.serialization.factories.JacksonFactory";

    private static final String POJO = "com.amazonaws.services.lambda.runtime.serialization.PojoSerializer";

    private RuntimeSerialization() {}

    /**
     * An event: serialised as the runtime would and read back as {@code type}, as the runtime reads the event.
     *
     * @return whether the runtime's serializer was there to prime
     */
    public static <T> boolean roundTrip(Class<T> type, T value) throws ReflectiveOperationException {
        return prime(type, value, true);
    }

    /**
     * A response: serialised as the runtime writes it (a response is never read back, and need not be readable).
     *
     * @return whether the runtime's serializer was there to prime
     */
    public static <T> boolean write(Class<T> type, T value) throws ReflectiveOperationException {
        return prime(type, value, false);
    }

    private static <T> boolean prime(Class<T> type, T value, boolean readBack) throws ReflectiveOperationException {
        ClassLoader loader = type.getClassLoader() == null ? ClassLoader.getSystemClassLoader() : type.getClassLoader();
        Object serializer;
        try {
            Class<?> events = Class.forName(EVENTS, true, loader);
            if ((Boolean)
                    events.getMethod("isLambdaSupportedEvent", String.class).invoke(null, type.getName())) {
                serializer = events.getMethod("serializerFor", Class.class, ClassLoader.class)
                        .invoke(null, type, loader);
            } else {
                Class<?> jackson = Class.forName(JACKSON, true, loader);
                Object factory = jackson.getMethod("getInstance").invoke(null);
                serializer = jackson.getMethod("getSerializer", Type.class).invoke(factory, type);
            }
        } catch (ClassNotFoundException e) {
            return false;
        }
        Class<?> pojo = Class.forName(POJO, true, loader);
        Method toJson = pojo.getMethod("toJson", Object.class, OutputStream.class);
        Method fromJson = pojo.getMethod("fromJson", InputStream.class);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        toJson.invoke(serializer, value, out);
        if (readBack) {
            fromJson.invoke(serializer, new ByteArrayInputStream(out.toByteArray()));
        }
        return true;
    }
}
