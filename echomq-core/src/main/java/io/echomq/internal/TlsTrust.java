package io.echomq.internal;

import io.lettuce.core.SslOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Locale;

/**
 * TLS trust for {@code rediss://} connections (and {@code rediss-cluster://}, {@code rediss-sentinel://}): a PEM file of CA certificates that replaces the
 * JVM's default trust store, for servers whose certificate a private CA signed. Peer verification
 * stays on (Lettuce's default for {@code rediss://}: the chain, and the host name against the
 * certificate).
 */
public final class TlsTrust {
    private TlsTrust() {
    }

    /**
     * Checks, before anything connects, that {@code pem} is a readable file holding at least one
     * X.509 certificate.
     *
     * @return {@code pem}
     * @throws IllegalArgumentException if it is null, missing, unreadable, or holds no certificate
     */
    public static Path check(Path pem) {
        if (pem == null) {
            throw new IllegalArgumentException("trustedCertificates must not be null");
        }
        if (!Files.isRegularFile(pem) || !Files.isReadable(pem)) {
            throw new IllegalArgumentException("trustedCertificates: " + pem + " is not a readable file");
        }
        try (InputStream in = Files.newInputStream(pem)) {
            if (CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
                throw new IllegalArgumentException("trustedCertificates: " + pem + " holds no certificate");
            }
        } catch (IOException | CertificateException e) {
            throw new IllegalArgumentException("trustedCertificates: " + pem + " is not a PEM file of X.509 "
                    + "certificates (" + e.getMessage() + ")", e);
        }
        return pem;
    }

    /**
     * @throws IllegalArgumentException if certificates are given for a URL that is not {@code rediss://},
     *     {@code rediss-cluster://} or {@code rediss-sentinel://}:
     *     they would be silently ignored and the connection would not be encrypted
     */
    public static void checkScheme(String url, Path trustedCertificates) {
        String lower = url.trim().toLowerCase(Locale.ROOT);
        if (trustedCertificates != null && !lower.startsWith("rediss://") && !lower.startsWith("rediss-cluster://")
                && !lower.startsWith("rediss-sentinel://")) {
            throw new IllegalArgumentException("trustedCertificates is set, but the Redis URL '" + RedisUrls.redact(url)
                    + "' is not rediss:// (or rediss-cluster://, rediss-sentinel://): the connection would not use TLS");
        }
    }

    /** @return Lettuce options that trust exactly the CA certificates in {@code pem} */
    static SslOptions sslOptions(Path pem) {
        return SslOptions.builder().jdkSslProvider().trustManager(pem.toFile()).build();
    }
}
