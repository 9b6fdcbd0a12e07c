package io.echomq.test;

import io.echomq.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/**
 * The public API of echomq-test is the committed listing api/echomq-test.txt: a change to a public type or
 * signature fails here until the listing is regenerated (the message names the command).
 */
class PublicApiTest {

    @Test
    void publicApiMatchesTheCommittedListing() {
        ApiListing.check("echomq-test", QueueDrain.class);
    }
}
