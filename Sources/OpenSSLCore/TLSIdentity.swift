// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// What one end of a TLS connection presents: a certificate, its private key and the
/// intermediates sent with it (a client certificate on a client, the server certificate on a
/// server).
///
/// The transport's own type, so that it needs nothing of the layers above it: the APNs layer's
/// `APNsIdentity` (which checks that the key is the certificate's) and the mock's server
/// identities convert into it through `TLSIdentityConvertible`.
package struct TLSIdentity: Sendable {
    package let certificate: Certificate
    package let privateKey: PrivateKey
    package let chain: [Certificate]

    /// The caller vouches that `privateKey` is `certificate`'s (OpenSSL refuses the pair when
    /// the TLS context is made otherwise).
    package init(certificate: Certificate, privateKey: PrivateKey, chain: [Certificate] = []) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.chain = chain
    }
}

/// A value that can be presented as a TLS identity: the transport's configuration takes any
/// of them and keeps only the `TLSIdentity`.
package protocol TLSIdentityConvertible: Sendable {
    var tlsIdentity: TLSIdentity { get }
}

extension TLSIdentity: TLSIdentityConvertible {
    package var tlsIdentity: TLSIdentity { self }
}
