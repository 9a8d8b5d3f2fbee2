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
