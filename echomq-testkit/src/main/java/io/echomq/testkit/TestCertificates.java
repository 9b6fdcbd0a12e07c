package io.echomq.testkit;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import io.echomq.server.ServerCertificates;
import java.util.Date;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority and a server certificate it signed, generated at test time
 * and written as PEM files: {@code ca.pem}, {@code server.pem} and {@code server.key}. The server
 * certificate names {@code 127.0.0.1} and {@code localhost}, so full peer verification (chain and
 * host name) passes on loopback. Nothing is cached between runs.
 *
 * <p>Needs {@code org.bouncycastle:bcpkix-jdk18on} on the class path: the test kit declares it
 * optional, so add it in test scope where this class is used.
 */
public final class TestCertificates implements ServerCertificates {
    private final Path dir;
    private final Path ca;
    private final Path serverCert;
    private final Path serverKey;
    private final X509Certificate caCertificate;

    private TestCertificates(Path dir, X509Certificate caCertificate) {
        this.dir = dir;
        this.ca = dir.resolve("ca.pem");
        this.serverCert = dir.resolve("server.pem");
        this.serverKey = dir.resolve("server.key");
        this.caCertificate = caCertificate;
    }

    /**
     * Generates a CA (RSA 2048, valid one day) and a server certificate it signs, into a new temporary directory.
     *
     * @param caName the CA's common name, so two generated CAs are told apart
     * @return the certificates, written as PEM files
     * @throws UncheckedIOException if the files cannot be written
     * @throws IllegalStateException if the JDK or BouncyCastle cannot build them
     */
    public static TestCertificates generate(String caName) {
        try {
            Path dir = Files.createTempDirectory("echomq-tls-");
            KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
            rsa.initialize(2048, new SecureRandom());
            KeyPair caKeys = rsa.generateKeyPair();
            KeyPair serverKeys = rsa.generateKeyPair();
            X500Name caSubject = new X500Name("CN=" + caName);
            Instant now = Instant.now();
            Date from = Date.from(now.minus(Duration.ofHours(1)));
            Date to = Date.from(now.plus(Duration.ofDays(1)));

            X509v3CertificateBuilder caBuilder = new JcaX509v3CertificateBuilder(caSubject, serial(), from, to,
                    caSubject, caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            X509Certificate caCert = sign(caBuilder, caKeys);

            X509v3CertificateBuilder serverBuilder = new JcaX509v3CertificateBuilder(caSubject, serial(), from, to,
                    new X500Name("CN=localhost"), serverKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true,
                            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                        new GeneralName(GeneralName.dNSName, "localhost")}));
            X509Certificate serverCert = sign(serverBuilder, caKeys);

            TestCertificates c = new TestCertificates(dir, caCert);
            Files.writeString(c.ca, pem(caCert), StandardCharsets.US_ASCII);
            Files.writeString(c.serverCert, pem(serverCert), StandardCharsets.US_ASCII);
            Files.writeString(c.serverKey, pem(serverKeys.getPrivate()), StandardCharsets.US_ASCII);
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot generate test certificates", e);
        }
    }

    /** @return the CA certificate, PEM: what a client must trust */
    @Override
    public Path ca() {
        return ca;
    }

    /** @return the server certificate, PEM, signed by {@link #ca()}, for 127.0.0.1 and localhost */
    @Override
    public Path serverCert() {
        return serverCert;
    }

    /** @return the server's private key, PEM (PKCS#8) */
    @Override
    public Path serverKey() {
        return serverKey;
    }

    /**
     * @return a client TLS context that trusts exactly this CA
     * @throws IllegalStateException if the JDK cannot build it
     */
    @Override
    public SSLContext clientContext() {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            store.setCertificateEntry("ca", caCertificate);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), new SecureRandom());
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Deletes the files; best effort, never throws. */
    public void delete() {
        for (Path p : new Path[] {ca, serverCert, serverKey, dir}) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // a temporary directory
            }
        }
    }

    private static BigInteger serial() {
        return new BigInteger(64, new SecureRandom());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer)
            throws OperatorCreationException, GeneralSecurityException {
        ContentSigner signer = new JcaContentSignerBuilder("SHA256withRSA").build(issuer.getPrivate());
        return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    }

    private static String pem(Object o) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(o);
        }
        return out.toString();
    }
}
