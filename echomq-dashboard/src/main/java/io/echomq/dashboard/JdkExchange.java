package io.echomq.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * The dashboard on the JDK's own {@code com.sun.net.httpserver}, at the root of its own port.
 *
 * <p>Duties: hand {@link Routes} what the exchange holds (method, path, raw query, headers, body)
 * and send back the {@link Routes.Response} it returns. The one class that knows the JDK's server
 * types, so that the same routes can also be served by a servlet container
 * ({@link DashboardServlet}).
 */
final class JdkExchange implements HttpHandler {
    private final Routes routes;

    JdkExchange(Routes routes) {
        this.routes = routes;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            var in = ex.getRequestHeaders();
            Routes.Response r = routes.serve("http", "", ex.getRequestMethod(), ex.getRequestURI().getPath(),
                    ex.getRequestURI().getRawQuery(), name -> in.getOrDefault(name, List.of()), ex.getRequestBody(),
                    peer(ex));
            var out = ex.getResponseHeaders();
            for (Map.Entry<String, String> h : r.headers().entrySet()) {
                out.set(h.getKey(), h.getValue());
            }
            byte[] body = r.body();
            ex.sendResponseHeaders(r.status(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream o = ex.getResponseBody()) {
                    o.write(body);
                }
            }
        }
    }

    /** @return {@code from <address>}, after the authenticated user's name when an authenticator named one */
    static String peer(HttpExchange ex) {
        String address = ex.getRemoteAddress() == null ? "an unknown address"
                : ex.getRemoteAddress().getAddress() == null ? ex.getRemoteAddress().getHostString()
                : ex.getRemoteAddress().getAddress().getHostAddress();
        return (ex.getPrincipal() == null ? "" : ex.getPrincipal().getUsername() + " ") + "from " + address;
    }
}
