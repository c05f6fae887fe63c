// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import CShims
internal import COpenSSL

/// A set of trusted CA certificates (`--ca-file`): owns one `X509_STORE` and frees it.
/// `@unchecked Sendable`: the store is filled in `init` and only read after (each check makes
/// its own `X509_STORE_CTX`), which OpenSSL allows from several threads.
///
/// Built once and reused for every file `check` walks, so a folder of a thousand
/// certificates costs a thousand signature checks, not a thousand bundle loads. Partial
/// chains are accepted (trusting only Apple's WWDR intermediate is enough), and time is not
/// checked here: expiry has its own, clearer check.
package final class TrustStore: @unchecked Sendable {
    private let store: OpaquePointer
    package let certificateCount: Int
    /// The certificates it trusts (issuers for revocation checks).
    package let certificates: [Certificate]

    /// Loads every certificate in `caFile` (PEM bundle, DER, or p12 without a passphrase).
    package convenience init(caFile: String) throws {
        let contents = try CredentialFile.load(caFile, passphrases: .none)
        guard !contents.certificates.isEmpty else {
            throw CredentialError(.wrongKind, "\(displayName(caFile)) holds \(contents.summary), not CA certificates; give the CA bundle (PEM).")
        }
        try self.init(certificates: contents.certificates)
    }

    package init(certificates: [Certificate]) throws {
        OpenSSLErrorQueue.clear()
        guard let store = X509_STORE_new() else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not allocate a certificate store.")
        }
        self.store = store
        certificateCount = certificates.count
        self.certificates = certificates
        X509_STORE_set_flags(store, UInt(X509_V_FLAG_PARTIAL_CHAIN | X509_V_FLAG_NO_CHECK_TIME))
        for certificate in certificates {
            // Adding a duplicate is not an error worth failing on.
            _ = certificate.withUnsafePointer { X509_STORE_add_cert(store, $0) }
        }
        OpenSSLErrorQueue.clear()
    }

    deinit { X509_STORE_free(store) }

    /// Lends the `X509_STORE` to an OpenSSL call that verifies against it (OCSP answers).
    package func withStore<T>(_ body: (OpaquePointer) -> T) -> T { lendOpenSSLObject(store, of: self, to: body) }

    /// Nil when `leaf` chains to a trusted certificate (using `intermediates` as untrusted
    /// helpers); otherwise OpenSSL's reason, e.g. "unable to get local issuer certificate".
    package func verificationFailure(_ leaf: Certificate, intermediates: [Certificate] = []) -> String? {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard let context = StoreContext(), let untrusted = CertificateStack(intermediates) else {
            return "OpenSSL could not allocate a verification context"
        }
        // The context points at the leaf and the stack until it is freed: all three are lent
        // for the whole verification.
        return context.withUnsafePointer { context in
            leaf.withUnsafePointer { leaf in
                untrusted.withUnsafePointer { untrusted -> String? in
                    guard X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 else { return "OpenSSL could not start verification" }
                    if X509_verify_cert(context) == 1 { return nil }
                    return Self.describe(X509_STORE_CTX_get_error(context))
                }
            }
        }
    }

    /// OpenSSL's sentence for verification error `code`.
    private static func describe(_ code: Int32) -> String {
        guard let text = X509_verify_cert_error_string(Int(code)) else { return "verification error \(code)" }
        return String(cString: text)
    }
}

/// Owns one `X509_STORE_CTX` (one verification) and frees it. Not `Sendable`: a
/// verification writes its results into it.
final class StoreContext: OpenSSLObjectOwner {
    private let pointer: OpaquePointer
    init?() {
        guard let pointer = X509_STORE_CTX_new() else { return nil }
        self.pointer = pointer
    }
    deinit { X509_STORE_CTX_free(pointer) }

    /// Lends the `X509_STORE_CTX` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }
}

/// Owns one `STACK_OF(X509)` holding its own references, and frees stack and references.
/// Filled in `init` and only read after; not `Sendable` all the same (it is made for one call).
package final class CertificateStack: OpenSSLObjectOwner {
    private let pointer: OpaquePointer
    package init?(_ certificates: [Certificate]) {
        guard let pointer = shim_sk_X509_new_null() else { return nil }
        self.pointer = pointer
        for certificate in certificates where certificate.withUnsafePointer({ shim_sk_X509_push_up_ref(pointer, $0) }) == 0 {
            return nil
        }
    }
    deinit { shim_sk_X509_pop_free(pointer) }

    /// Lends the `STACK_OF(X509)` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }
}
