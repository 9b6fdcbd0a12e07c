package io.echomq.server;

import java.nio.file.Path;
import javax.net.ssl.SSLContext;

/**
 * The TLS material a {@link TlsRedisServer} serves: a CA, a server certificate it signed and that
 * certificate's key, as PEM files, plus a client context that trusts the CA (used for the readiness
 * {@code PING}).
 *
 * <p>This module only reads the material, so it needs no certificate library: the test kit's
 * {@code TestCertificates} generates it with BouncyCastle, and anything else holding the three PEM
 * files can implement this interface with the JDK alone.
 */
public interface ServerCertificates {

    /** @return the CA certificate, PEM; never {@code null} */
    Path ca();

    /** @return the server certificate, PEM, signed by {@link #ca()}; never {@code null} */
    Path serverCert();

    /** @return the server certificate's private key, PEM; never {@code null} */
    Path serverKey();

    /**
     * @return a client context that trusts {@link #ca()}; never {@code null}
     * @throws IllegalStateException if the context cannot be built
     */
    SSLContext clientContext();
}
