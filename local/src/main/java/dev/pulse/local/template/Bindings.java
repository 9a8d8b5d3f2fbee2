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

/**
 * What the local stack knows about the template's resources once it has created them. {@link Stack} calls these
 * lazily, only for the references it is asked to resolve, so a resource's bindings are needed only from the
 * moment some resolved value actually refers to it.
 */
public interface Bindings {

    /** The physical id {@code Ref} returns for a resource: a table or stream name, a queue URL, a function name. */
    String ref(String logicalId);

    /** The value of {@code Fn::GetAtt} for a resource, for example {@code Table.StreamArn} or {@code Stream.Arn}. */
    String getAtt(String logicalId, String attribute);

    /** Region, account, stack name, partition and URL suffix the pseudo parameters resolve to. */
    PseudoParameters pseudo();

    /**
     * Bindings for reading a function's own settings before (or without) any resources: a reference resolves
     * to a placeholder {@code unbound-<LogicalId>}, so settings that name resources are visibly not real.
     */
    static Bindings unbound(String stackName) {
        PseudoParameters pseudo = PseudoParameters.local(stackName);
        return new Bindings() {
            @Override
            public String ref(String logicalId) {
                return "unbound-" + logicalId;
            }

            @Override
            public String getAtt(String logicalId, String attribute) {
                return "unbound-" + logicalId + "." + attribute;
            }

            @Override
            public PseudoParameters pseudo() {
                return pseudo;
            }
        };
    }
}
