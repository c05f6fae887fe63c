import COpenSSL

/// OpenSSL 3 keeps RC2-40 and friends in the "legacy" provider, which is not loaded by
/// default: that is why `openssl pkcs12` needs `-legacy` for a Keychain export. Loading
/// "legacy" explicitly also stops the implicit "default" provider from loading, so both are
/// loaded together, once per process, before anything reads or writes a PKCS#12 file.
package enum OpenSSLProviders {
    /// Whether the legacy provider is available (a distribution may ship without it).
    package static var legacyAvailable: Bool { loaded.legacy }

    /// Loads the providers the first time it is called; later calls are free.
    package static func ensureLoaded() { _ = loaded }

    private static let loaded: (legacy: Bool, default: Bool) = {
        let legacy = OSSL_PROVIDER_load(nil, "legacy")
        let standard = OSSL_PROVIDER_load(nil, "default")
        ERR_clear_error()
        // The providers stay loaded for the life of the process, like OpenSSL's own CLI does.
        return (legacy != nil, standard != nil)
    }()
}
