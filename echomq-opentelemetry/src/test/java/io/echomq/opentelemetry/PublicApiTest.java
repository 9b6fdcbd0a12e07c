package io.echomq.opentelemetry;

import io.echomq.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/**
 * The public API of echomq-opentelemetry is the committed listing api/echomq-opentelemetry.txt: a change to a public type or
 * signature fails here until the listing is regenerated (the message names the command), so that
 * it is a decision, made under docs/versioning.md, and seen in review.
 */
class PublicApiTest {

    @Test
    void publicApiMatchesTheCommittedListing() {
        ApiListing.check("echomq-opentelemetry", EchoMQTracing.class);
    }
}
