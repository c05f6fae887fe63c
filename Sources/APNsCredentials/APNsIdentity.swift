// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
/// A client identity: a certificate, its private key and any intermediates.
///
/// This is the object the whole toolkit passes along: `prepare` writes it, `verify` proves it
/// against a gateway, and the sender presents it on every TLS connection. Construction checks
/// that the key belongs to the certificate, so an `APNsIdentity` that exists is consistent.
public struct APNsIdentity: Sendable {
    package let certificate: Certificate
    package let privateKey: PrivateKey
    package let chain: [Certificate]

    /// - Throws: `keyMismatch` naming `certificateLabel` and `keyLabel` when the key is not the
    ///   certificate's.
    package init(certificate: Certificate, privateKey: PrivateKey, chain: [Certificate] = [],
                certificateLabel: String = "the certificate", keyLabel: String = "the private key") throws {
        guard privateKey.matches(certificate) else {
            throw APNsCredentialError(.keyMismatch, "The private key in \(keyLabel) does not belong to the certificate in \(certificateLabel) (\(certificate.subject.commonName ?? "no CN")); use the key the CSR was made with.")
        }
        self.certificate = certificate
        self.privateKey = privateKey
        self.chain = chain
    }

    /// Certificate, chain, then the unencrypted PKCS#8 key: the combined PEM layout that APNs
    /// senders (and `openssl s_client -cert`) read.
    package func combinedPEM() throws -> [UInt8] {
        var bytes = try certificate.pem()
        for intermediate in chain { bytes += try intermediate.pem() }
        bytes += try privateKey.pkcs8PEM()
        return bytes
    }
}

/// The transport presents an identity as its own `TLSIdentity`: the sender and the mock hand
/// an `APNsIdentity` to a TLS configuration as it is.
extension APNsIdentity: TLSIdentityConvertible {
    package var tlsIdentity: TLSIdentity { TLSIdentity(certificate: certificate, privateKey: privateKey, chain: chain) }
}
