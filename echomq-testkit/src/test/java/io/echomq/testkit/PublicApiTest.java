package io.echomq.testkit;

import org.junit.jupiter.api.Test;

/**
 * The public API of echomq-testkit is the committed listing api/echomq-testkit.txt: a change to a public type or
 * signature fails here until the listing is regenerated (the message names the command), so that
 * it is a decision, made under docs/versioning.md, and seen in review.
 */
class PublicApiTest {

    @Test
    void publicApiMatchesTheCommittedListing() {
        ApiListing.check("echomq-testkit", FaultProxy.class);
    }

    /** echomq-server has no test kit of its own to depend on (the kit depends on it), so it is listed here. */
    @Test
    void serverApiMatchesTheCommittedListing() {
        ApiListing.check("echomq-server", io.echomq.server.RedisServer.class);
    }
}
