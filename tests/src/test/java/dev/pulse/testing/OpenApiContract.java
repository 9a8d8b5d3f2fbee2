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
package dev.pulse.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;

/**
 * api/openapi.yaml as a validator: a JSON document is checked against one of its component schemas (or
 * several, as oneOf), with the spec's components embedded so every {@code $ref} resolves.
 */
public final class OpenApiContract {

    private final JsonNode spec;
    private final JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);

    private OpenApiContract(JsonNode spec) {
        this.spec = spec;
    }

    public static OpenApiContract load() {
        try {
            return new OpenApiContract(new YAMLMapper()
                    .readTree(ExpectedResults.repoRoot()
                            .resolve("api/openapi.yaml")
                            .toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public JsonNode spec() {
        return spec;
    }

    /** Violations of {@code document} against the named component schema(s); empty when it conforms. */
    public Set<ValidationMessage> violations(JsonNode document, String... schemaNames) {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        if (schemaNames.length == 1) {
            root.put("$ref", "#/components/schemas/" + schemaNames[0]);
        } else {
            var oneOf = root.putArray("oneOf");
            for (String name : List.of(schemaNames)) {
                oneOf.addObject().put("$ref", "#/components/schemas/" + name);
            }
        }
        root.set("components", spec.get("components"));
        JsonSchema schema = factory.getSchema(root);
        return schema.validate(document);
    }
}
