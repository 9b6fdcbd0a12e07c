package io.echomq.spring.actuate;

import io.echomq.queue.QueueClient;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds {@code echomq} to {@code /actuator/info}: {@code server}, the server's product, version and
 * features as the client sees them (for example {@code Redis 7.0.15 (SPUBLISH: yes)}), and
 * {@code mode}, {@code cluster} or {@code single}. When Redis cannot be reached it reports the
 * error under {@code error} instead of failing the whole endpoint.
 */
public class EchoMQInfoContributor implements InfoContributor {
    private final QueueClient client;

    /** @param client the queue client whose server is described */
    public EchoMQInfoContributor(QueueClient client) {
        this.client = client;
    }

    @Override
    public void contribute(Info.Builder builder) {
        Map<String, Object> echomq = new LinkedHashMap<>();
        try {
            String server = client.serverDescription();
            echomq.put("server", server);
            echomq.put("mode", server.contains(" Cluster ") ? "cluster" : "single");
        } catch (RuntimeException e) {
            echomq.put("error", String.valueOf(e.getMessage()));
        }
        builder.withDetail("echomq", echomq);
    }
}
