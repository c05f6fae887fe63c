// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// OpenSSL 3 keeps RC2-40 and friends in the "legacy" provider, which is not loaded by
/// default: that is why `openssl pkcs12` needs `-legacy` for a Keychain export. Loading
/// "legacy" explicitly also stops the implicit "default" provider from loading, so both are
/// loaded together, once per process, before anything reads or writes a PKCS#12 file.
package enum OpenSSLProviders {
    /// Whether the legacy provider is available (a distribution may ship without it).
    package static var legacyAvailable: Bool { loaded.legacy != nil }

    /// Loads the providers the first time it is called; later calls are free.
    package static func ensureLoaded() { _ = loaded }

    /// The handles `OSSL_PROVIDER_load` returns, held for the life of the process (like
    /// OpenSSL's own CLI holds them). They must be kept, not dropped: each is a reference the
    /// provider store does not own, and when a provider was already activated implicitly
    /// (any earlier OpenSSL call does that for "default"), a dropped handle is a block that
    /// valgrind reports as definitely lost at exit (found by scripts/leakcheck.sh).
    /// `@unchecked Sendable`: written once under Swift's lazy-global lock, then only read.
    private struct Handles: @unchecked Sendable {
        let legacy: OpaquePointer?
        let standard: OpaquePointer?
    }

    /// "default" first: once any provider is loaded explicitly, OpenSSL no longer activates
    /// "default" implicitly, so loading "legacy" first left a moment in which another thread's
    /// fetch (`SSL_CTX_new` looking up its digests) found only the legacy provider and failed
    /// ("OpenSSL could not create a TLS context", seen once in a parallel test run).
    private static let loaded: Handles = {
        let standard = OSSL_PROVIDER_load(nil, "default")
        let legacy = OSSL_PROVIDER_load(nil, "legacy")
        ERR_clear_error()
        return Handles(legacy: legacy, standard: standard)
    }()
}
