package io.echomq.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Locates the server executable used by {@link RedisServer}: a {@code redis-server}, or a {@code valkey-server}
 * named by the override (no Valkey binary is embedded). The file's name is not checked; what the server is, and its
 * version, are read from the running server ({@link RedisServer#product()}).
 *
 * <p>Resolution order:
 * <ol>
 *   <li>the system property {@value #PROPERTY}, if set and not blank;</li>
 *   <li>the environment variable {@value #ENV}, if set and not blank;</li>
 *   <li>otherwise the binary embedded in the {@code com.github.codemonstur:embedded-redis} jar on the
 *       class path, extracted once to {@code ${java.io.tmpdir}/echomq-redis/redis-server-embedded-<os>-<arch>}.</li>
 * </ol>
 * A value starting with <code>${</code> (an unexpanded Maven placeholder) counts as unset.
 */
public final class RedisBinary {

    /** Environment variable naming a {@code redis-server} or {@code valkey-server} to use instead of the embedded one. */
    public static final String ENV = "EMQ_REDIS_SERVER";
    /** System property naming a {@code redis-server} or {@code valkey-server}; takes precedence over {@value #ENV}. */
    public static final String PROPERTY = "emq.redis.server";

    private static Path extracted;

    private RedisBinary() {
    }

    /**
     * Returns the {@code redis-server} executable to run, extracting the embedded one if no override is set.
     *
     * @return an existing, executable file
     * @throws IllegalStateException if an override names something that is not an executable file (the message
     *         names the path and the variable), if this OS/architecture has no embedded binary, or if the
     *         embedded binary cannot be found on the class path or extracted
     */
    public static Path resolve() {
        String property = System.getProperty(PROPERTY);
        if (isSet(property)) {
            return resolve(property, "system property " + PROPERTY);
        }
        return resolve(System.getenv(ENV), "environment variable " + ENV);
    }

    /**
     * Resolves with an explicit override value (for tests, so the environment need not be mutated).
     *
     * @param override the override value; blank, {@code null} or <code>${...}</code> means "use the embedded binary"
     * @param source   human-readable name of where the value came from, used in error messages
     */
    static Path resolve(String override, String source) {
        if (!isSet(override)) {
            return extractEmbedded();
        }
        Path path = Path.of(override.trim());
        if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
            throw new IllegalStateException(source + " is set to '" + path.toAbsolutePath()
                    + "', which is not an executable file; point it at a redis-server or valkey-server binary or unset it");
        }
        return path;
    }

    /**
     * Returns the class path resource name of the embedded {@code redis-server} for the running OS and architecture,
     * for example {@code redis-server-6.2.6-v5-linux-amd64}.
     *
     * @return the resource name (at the class path root)
     * @throws IllegalStateException if no binary is embedded for this OS/architecture
     */
    public static String embeddedResourceName() {
        return embeddedResourceName(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
    }

    static String embeddedResourceName(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        String name = null;
        if (os.contains("linux")) {
            name = x64 ? "redis-server-6.2.6-v5-linux-amd64"
                    : arm64 ? "redis-server-6.2.7-linux-arm64"
                    : arch.matches("x86|i[3-6]86") ? "redis-server-6.2.7-linux-386" : null;
        } else if (os.contains("mac") || os.contains("darwin")) {
            name = x64 ? "redis-server-6.2.6-v5-darwin-amd64" : arm64 ? "redis-server-6.2.6-v5-darwin-arm64" : null;
        }
        if (name == null) {
            throw new IllegalStateException("No embedded redis-server for os.name='" + osName + "', os.arch='"
                    + osArch + "'; set the environment variable " + ENV + " (or system property " + PROPERTY
                    + ") to a redis-server or valkey-server executable");
        }
        return name;
    }

    /**
     * @return the file name the embedded binary is extracted to: the resource's name without its
     *     version, because the artifact names its binary after the release it packaged first
     *     ({@code redis-server-6.2.6-v5-linux-amd64}) while the binary inside reports its own
     *     version (6.2.11); a name that claims a version the server does not report misleads
     *     whoever reads {@code ps}
     */
    static String extractedName(String resourceName) {
        return resourceName.replaceFirst("^redis-server-[0-9][0-9.]*(-v[0-9]+)?-", "redis-server-embedded-");
    }

    private static synchronized Path extractEmbedded() {
        if (extracted != null && Files.isExecutable(extracted)) {
            return extracted;
        }
        String name = embeddedResourceName();
        ClassLoader loader = RedisBinary.class.getClassLoader();
        URL url = loader == null ? ClassLoader.getSystemResource(name) : loader.getResource(name);
        if (url == null && Thread.currentThread().getContextClassLoader() != null) {
            url = Thread.currentThread().getContextClassLoader().getResource(name);
        }
        if (url == null) {
            throw new IllegalStateException("Resource '" + name + "' not found on the class path; add "
                    + "com.github.codemonstur:embedded-redis or set " + ENV + " to a redis-server or valkey-server executable");
        }
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "echomq-redis");
        Path target = dir.resolve(extractedName(name));
        try {
            URLConnection connection = url.openConnection();
            long size = connection.getContentLengthLong();
            if (size > 0 && Files.isExecutable(target) && Files.size(target) == size) {
                connection.getInputStream().close();
                return extracted = target;
            }
            Files.createDirectories(dir);
            Path temp = Files.createTempFile(dir, target.getFileName().toString(), ".tmp");
            try {
                try (InputStream in = connection.getInputStream()) {
                    Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
                }
                if (!temp.toFile().setExecutable(true, false)) {
                    throw new IOException("cannot make " + temp + " executable");
                }
                try {
                    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temp);
            }
            return extracted = target;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot extract " + url + " to " + target, e);
        }
    }

    private static boolean isSet(String value) {
        return value != null && !value.isBlank() && !value.trim().startsWith("${");
    }
}
