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
package dev.pulse.query.promql.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link CatalogCache}: listing pages served within the TTL, then read again; bounded by the entries held. */
class CatalogCacheTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final CatalogCache cache = new CatalogCache(nanos::get, 60_000);

    private static Map<String, String> params(String name) {
        Map<String, String> p = new HashMap<>();
        p.put("name", name);
        p.put("limit", "1000");
        return p;
    }

    private static ObjectNode page(int series) {
        ObjectNode page = JsonNodeFactory.instance.objectNode();
        for (int i = 0; i < series; i++) {
            page.withArray("series").addObject().put("name", "m").put("key", "k" + i);
        }
        page.putNull("nextToken");
        return page;
    }

    @Test
    void get_whenWithinTheTtl_servesThePageListed() {
        ObjectNode page = page(3);
        cache.put(params("a"), page);
        nanos.addAndGet(59_999_000_000L);
        assertThat(cache.get(params("a"))).isSameAs(page);
        assertThat(cache.get(params("b"))).isNull();
    }

    @Test
    void get_whenTheTtlHasPassed_isNullAndReleasesTheEntries() {
        cache.put(params("a"), page(3));
        nanos.addAndGet(60_000_000_000L);
        assertThat(cache.get(params("a"))).isNull();
        assertThat(cache.weight()).isZero();
    }

    @Test
    void put_whenOverTheEntryBound_dropsTheLeastRecentlyUsedPages() {
        int perPage = CatalogCache.MAX_ENTRIES / 4;
        for (int i = 0; i < 4; i++) {
            cache.put(params("n" + i), page(perPage - 1)); // weighs perPage: exactly the bound with four
        }
        assertThat(cache.weight()).isEqualTo(CatalogCache.MAX_ENTRIES);
        cache.get(params("n0")); // used: n1 is now the eldest
        cache.put(params("n4"), page(10));
        assertThat(cache.get(params("n1"))).isNull();
        assertThat(cache.get(params("n0"))).isNotNull();
        assertThat(cache.get(params("n4"))).isNotNull();
        assertThat(cache.weight()).isLessThanOrEqualTo(CatalogCache.MAX_ENTRIES);
    }

    @Test
    void put_whenOnePageExceedsTheBound_keepsNothing() {
        cache.put(params("huge"), page(CatalogCache.MAX_ENTRIES));
        assertThat(cache.get(params("huge"))).isNull();
        assertThat(cache.weight()).isZero();
    }
}
