package io.echomq.micrometer;

import io.echomq.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/**
 * The public API of echomq-micrometer is the committed listing api/echomq-micrometer.txt: a change to a public type or
 * signature fails here until the listing is regenerated (the message names the command), so that
 * it is a decision, made under docs/versioning.md, and seen in review.
 */
class PublicApiTest {

    @Test
    void publicApiMatchesTheCommittedListing() {
        ApiListing.check("echomq-micrometer", EchoMQMetrics.class);
    }
}
