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
package dev.pulse.local.template;

import java.util.Map;

/**
 * Bindings backed by maps, as the local stack's would be once it created the resources. Looking up anything else
 * fails, which is how the tests check that resolution asks only for what it needs.
 */
record MapBindings(Map<String, String> refs, Map<String, String> attributes) implements Bindings {

    static MapBindings none() {
        return new MapBindings(Map.of(), Map.of());
    }

    @Override
    public String ref(String logicalId) {
        return lookup(refs, logicalId);
    }

    @Override
    public String getAtt(String logicalId, String attribute) {
        return lookup(attributes, logicalId + "." + attribute);
    }

    @Override
    public PseudoParameters pseudo() {
        return PseudoParameters.local("pulse");
    }

    private static String lookup(Map<String, String> values, String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalStateException("unexpected lookup of " + key);
        }
        return value;
    }
}
