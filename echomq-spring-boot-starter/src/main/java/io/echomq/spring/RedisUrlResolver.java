package io.echomq.spring;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Chooses the Redis URL of the EchoMQ clients, and names the property it came from so that a bad
 * value is reported against the property the user wrote. {@link #url} gives that URL to whatever
 * else must reach the same server, such as the dashboard's lock acts.
 *
 * <ol>
 *   <li>{@code echomq.redis.url} when set;</li>
 *   <li>else, when {@code spring.data.redis.sentinel.master} or {@code .nodes} is set, a
 *       {@code redis-sentinel://} URL ({@code rediss-sentinel://} with {@code spring.data.redis.ssl.enabled}), as
 *       Spring Data Redis, which prefers Sentinel to the other forms: the sentinels of {@code .nodes}, their
 *       {@code .password} and {@code .username} (an ACL user of theirs), the master's name of {@code .master}, {@code spring.data.redis.database}, and the data
 *       nodes' credentials, those of {@code spring.data.redis.url} when it is set, else {@code username} and
 *       {@code password};</li>
 *   <li>else {@code spring.data.redis.url} when set, as Spring Data Redis would use it;</li>
 *   <li>else {@code spring.data.redis.cluster.nodes}: a {@code redis-cluster://} URL over those
 *       nodes ({@code rediss-cluster://} with {@code spring.data.redis.ssl.enabled}), with the
 *       username and password;</li>
 *   <li>else {@code spring.data.redis.host} (default {@code localhost}), {@code port} (6379),
 *       {@code username}, {@code password}, {@code database} (0) and {@code ssl.enabled}
 *       ({@code rediss://}).</li>
 * </ol>
 * A Sentinel setup without its master's name, or without its sentinels, is refused with an
 * {@link InvalidEchoMQPropertyException} naming the missing property.
 */
public final class RedisUrlResolver {
    static final String URL = "echomq.redis.url";
    private static final String SPRING = "spring.data.redis.";

    private RedisUrlResolver() {
    }

    /** A chosen URL and the property that gave it. */
    record Resolved(String url, String property) {
    }

    /**
     * The URL the starter's own clients connect to, chosen from the {@code echomq.*} and
     * {@code spring.data.redis.*} settings in the order above.
     *
     * @param properties  the {@code echomq.*} settings
     * @param environment where the {@code spring.data.redis.*} settings are read
     * @return the URL, with any password in it
     * @throws InvalidEchoMQPropertyException if a Sentinel setup lacks its master's name or its sentinels, or
     *     sets {@code spring.data.redis.sentinel.username} without {@code .password}, or the port or database is not
     *     a number
     */
    public static String url(EchoMQProperties properties, Environment environment) {
        return resolve(properties, environment).url();
    }

    /**
     * @throws InvalidEchoMQPropertyException if a Sentinel setup lacks its master's name or its sentinels, or
     *     sets {@code spring.data.redis.sentinel.username} without {@code .password}, or the port or database is not
     *     a number
     */
    static Resolved resolve(EchoMQProperties properties, Environment environment) {
        String own = properties.getRedis().getUrl();
        if (own != null) {
            return new Resolved(own, URL);
        }
        Binder binder = Binder.get(environment);
        boolean ssl = binder.bind(SPRING + "ssl.enabled", Boolean.class).orElse(false);
        String springUrl = text(binder, "url");
        String userInfo = userInfo(text(binder, "username"), text(binder, "password"));
        String master = text(binder, "sentinel.master");
        List<String> sentinels = binder.bind(SPRING + "sentinel.nodes", Bindable.listOf(String.class))
                .orElse(List.of());
        if (master != null || !sentinels.isEmpty()) {
            return sentinel(binder, master, sentinels, ssl, springUrl == null ? userInfo : userInfoOf(springUrl));
        }
        if (springUrl != null) {
            return new Resolved(springUrl, SPRING + "url");
        }
        List<String> nodes = binder.bind(SPRING + "cluster.nodes", Bindable.listOf(String.class)).orElse(List.of());
        if (!nodes.isEmpty()) {
            return new Resolved((ssl ? "rediss-cluster://" : "redis-cluster://") + userInfo + String.join(",", nodes),
                    SPRING + "cluster.nodes");
        }
        String host = text(binder, "host");
        String port = text(binder, "port");
        String database = text(binder, "database");
        checkNumber(SPRING + "port", port);
        checkNumber(SPRING + "database", database);
        String url = (ssl ? "rediss://" : "redis://") + userInfo + (host == null ? "localhost" : host)
                + ":" + (port == null ? "6379" : port.trim()) + (database == null ? "" : "/" + database.trim());
        return new Resolved(url, SPRING + "host");
    }

    /** The {@code redis-sentinel://} URL of {@code spring.data.redis.sentinel.*}; see the class comment. */
    private static Resolved sentinel(Binder binder, String master, List<String> sentinels, boolean ssl,
                                     String dataUserInfo) {
        if (master == null) {
            throw new InvalidEchoMQPropertyException(SPRING + "sentinel.master",
                    "must name the master the sentinels monitor (their 'sentinel monitor <name> …'), as "
                            + SPRING + "sentinel.nodes is set");
        }
        if (sentinels.isEmpty()) {
            throw new InvalidEchoMQPropertyException(SPRING + "sentinel.nodes",
                    "must list the sentinels as host:port[,host:port…], as " + SPRING + "sentinel.master is set");
        }
        String sentinelUsername = text(binder, "sentinel.username");
        String sentinelPassword = text(binder, "sentinel.password");
        if (sentinelUsername != null && sentinelPassword == null) {
            throw new InvalidEchoMQPropertyException(SPRING + "sentinel.password",
                    "must be set with " + SPRING + "sentinel.username: the password of that user on the sentinels");
        }
        String database = text(binder, "database");
        checkNumber(SPRING + "database", database);
        String url = (ssl ? "rediss-sentinel://" : "redis-sentinel://") + dataUserInfo
                + String.join(",", sentinels.stream().map(String::trim).toList())
                + (database == null ? "" : "/" + database.trim())
                + (sentinelUsername == null ? "" : "?sentinelUsername=" + encode(sentinelUsername.trim()))
                + (sentinelPassword == null ? "" : (sentinelUsername == null ? "?" : "&") + "sentinelPassword="
                        + encode(sentinelPassword))
                + "#" + encode(master.trim());
        return new Resolved(url, SPRING + "sentinel.nodes");
    }

    /** @return the user-info of a URL with its '@', still encoded, or "" when it has none */
    private static String userInfoOf(String url) {
        int start = url.indexOf("://");
        int at = url.lastIndexOf('@');
        return start < 0 || at < start ? "" : url.substring(start + 3, at + 1);
    }

    private static String text(Binder binder, String name) {
        String value = binder.bind(SPRING + name, String.class).orElse(null);
        return value == null || value.isBlank() ? null : value;
    }

    private static void checkNumber(String property, String value) {
        if (value != null && !value.trim().matches("\\d{1,9}")) {
            throw new InvalidEchoMQPropertyException(property, "must be a whole number, was '" + value + "'");
        }
    }

    private static String userInfo(String username, String password) {
        if (password == null) {
            return "";   // as Spring Data Redis: a username alone authenticates nothing
        }
        return (username == null ? "" : encode(username)) + ":" + encode(password) + "@";
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
