// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// What a server program needs of a push certificate identity: load it once at start-up, hand
/// it to `APNsClient` (`.certificate(identity)`), and watch its expiry.
extension APNsIdentity {
    /// Loads the identity from the files Apple's portal and Keychain hand out: one combined PEM
    /// (certificate, chain and key), a certificate and its key as two files (PEM or DER), or a
    /// `.p12` (modern, or Keychain's legacy RC2-40/3DES). `passphrase` decrypts an encrypted key
    /// or `.p12`. Throws `APNsCredentialError`: its `kind` says what went wrong (unreadable,
    /// wrong passphrase, key mismatch, ...), its description which file and what to do.
    public static func load(contentsOf paths: [String], passphrase: String? = nil) throws -> APNsIdentity {
        let supplier = PassphraseSupplier(source: passphrase.map(PassphraseSource.literal))
        return try IdentityLoader.load(paths, passphrases: supplier)
    }

    /// The app's bundle id: the certificate's subject UID (the topic it sends to by default).
    public var bundleID: String? { certificate.subject.first("UID") }

    /// When the certificate stops being valid: renew it in the developer portal before then.
    public var expiresAt: Date { certificate.notAfter }
}
