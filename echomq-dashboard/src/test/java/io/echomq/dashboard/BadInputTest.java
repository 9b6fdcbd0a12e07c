package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad input gets a 4xx and one line that says what is wrong, never a stack trace. */
class BadInputTest extends DashboardTestBase {

    @Test
    void badRequestsGetAClearStatusAndMessage() {
        client.queue("emails").enqueue("a");
        expect(get("/queue?name=nosuch"), 404, "no queue named 'nosuch' on this server");
        expect(get("/queue?name=bad%7Bname"), 400, "not a queue name");
        expect(get("/queue"), 400, "missing parameter 'name'");
        expect(get("/queue?name=emails&limit=100000"), 400, "limit must be a whole number in 1..500");
        expect(get("/queue?name=emails&limit=ten"), 400, "limit must be a whole number in 1..500");
        expect(get("/queue?name=emails&state=lost"), 400, "unknown job state 'lost'");
        expect(get("/queue?name=emails&after=%21%21"), 400, "cannot list");
        expect(get("/queue?name=emails&name=other"), 400, "given twice");
        expect(get("/job?queue=emails&id=7:lock"), 400, "not a job id");
        expect(get("/job?queue=emails&id=999"), 404, "no job '999' in queue 'emails'");
        expect(get("/confirm?queue=emails&action=explode"), 400, "unknown action 'explode'");
        expect(get("/confirm?queue=emails&action=remove"), 400, "missing parameter 'id'");
        expect(get("/nowhere"), 404, "no page at /nowhere");
        expect(get("/locks?limit=0"), 400, "limit must be a whole number in 1..1000");
        expect(get("/locks?prefix=a%7Bb"), 400, "prefix must not");
        expect(get("/locks?cursor=12x"), 400, "cursor");
        expect(post(dashboard, Map.of("x", "y".repeat(Request.MAX_BODY))), 413, "over");
        expect(send(dashboard, HttpRequest.newBuilder(at(dashboard, "/")).header("Cookie", cookie(dashboard))
                .DELETE()), 405, "GET only");
        expect(act("emails", "remove", "a:b"), 400, "");
    }

    private static void expect(HttpResponse<String> r, int status, String message) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(message(r)).contains(message);
        assertThat(r.body()).doesNotContain("Exception", "\tat ", "at io.echomq");
    }
}
