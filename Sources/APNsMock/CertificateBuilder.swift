// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
internal import CShims
internal import COpenSSL
import Foundation

/// Builds and signs one X.509 v3 certificate: owns the `X509` under construction and frees it.
///
/// The mock CA needs full control over every field (Apple's subject order, private
/// extensions, validity in the past for expired fixtures, deliberately malformed extension
/// values), which `openssl x509 -req` cannot give without config files, so certificates are
/// built with OpenSSL's C API directly.
///
/// Not `Sendable`, and never shares the `X509` it fills in: `sign` hands out a copy
/// (`X509_dup`), a finished certificate that the `Certificate` it returns owns alone, so a
/// setter called after `sign` changes the builder's object, never a certificate already handed
/// out (which `Certificate`'s `Sendable` rests on).
package final class CertificateBuilder {
    private let pointer: OpaquePointer

    package init() throws {
        OpenSSLErrorQueue.clear()
        guard let certificate = X509_new() else {
            throw APNsCredentialError(.internalFailure, "OpenSSL could not allocate a certificate.", details: OpenSSLErrorQueue.drain())
        }
        pointer = certificate
        try check(X509_set_version(pointer, 2), "set the certificate version")
        try check(shim_x509_set_random_serial(pointer), "set a serial number")
    }

    deinit { X509_free(pointer) }

    /// Sets the subject to `attributes`, in order (Apple's push certificates: UID, CN, OU, O, C).
    package func setSubject(_ attributes: [DistinguishedName.Attribute]) throws {
        guard let name = X509_get_subject_name(pointer) else { throw failure("read the subject name") }
        for attribute in attributes {
            let bytes = Array(attribute.value.utf8)
            let ok = bytes.withUnsafeBufferPointer {
                X509_NAME_add_entry_by_txt(name, attribute.key, MBSTRING_UTF8, $0.baseAddress, Int32($0.count), -1, 0)
            }
            guard ok == 1 else {
                throw APNsCredentialError(.invalidArgument, "'\(attribute.value)' is not a valid value for the subject field \(attribute.key).", details: OpenSSLErrorQueue.drain())
            }
        }
    }

    /// Copies the issuer name from the issuing CA's subject; nil means self-issued.
    package func setIssuer(_ issuer: Certificate?) throws {
        // X509_set_issuer_name copies the name, so the issuer is lent only for this call.
        let set = withOptionalPointer(issuer) { X509_set_issuer_name(pointer, X509_get_subject_name($0 ?? pointer)) }
        try check(set, "set the issuer name")
    }

    package func setValidity(notBefore: Date, notAfter: Date) throws {
        try check(shim_x509_set_validity(pointer, Int64(notBefore.timeIntervalSince1970), Int64(notAfter.timeIntervalSince1970)),
                  "set the validity period")
    }

    /// Puts the public half of `key` (a private key or a CSR's public key) in the certificate.
    package func setPublicKey(_ key: PrivateKey) throws {
        try check(key.withUnsafePointer { X509_set_pubkey(pointer, $0) }, "set the public key")
    }

    /// Puts the public key of `request` in the certificate.
    package func setPublicKey(of request: CertificateSigningRequest) throws {
        let set = request.withUnsafePointer { request -> Int32? in X509_REQ_get0_pubkey(request).map { X509_set_pubkey(pointer, $0) } }
        guard let set else { throw failure("read the request's public key") }
        try check(set, "set the public key")
    }

    /// Adds a standard extension in openssl.cnf syntax, e.g. `(NID_key_usage, "critical,digitalSignature")`.
    /// `issuer` is needed for authorityKeyIdentifier; nil for self-signed certificates.
    package func addExtension(_ nid: Int32, _ value: String, issuer: Certificate? = nil) throws {
        try check(withOptionalPointer(issuer) { shim_x509_add_ext_conf(pointer, $0, nid, value) }, "add the extension \(value)")
    }

    /// Adds an extension with a raw DER value, taken as given (even if malformed, for fixtures).
    package func addExtension(oid: String, critical: Bool = false, der: [UInt8]) throws {
        let ok = der.withUnsafeBufferPointer {
            shim_x509_add_ext_der(pointer, oid, critical ? 1 : 0, $0.baseAddress, Int32($0.count))
        }
        try check(ok, "add the extension \(oid)")
    }

    /// Signs with SHA-256 and returns the finished certificate: a copy of its own, which
    /// nothing this builder does later can change.
    package func sign(with key: PrivateKey) throws -> Certificate {
        guard key.withUnsafePointer({ X509_sign(pointer, $0, EVP_sha256()) }) > 0 else { throw failure("sign the certificate") }
        guard let finished = X509_dup(pointer) else { throw failure("copy the signed certificate") }
        return Certificate(taking: finished)
    }

    private func check(_ result: Int32, _ what: String) throws {
        guard result == 1 else { throw failure(what) }
    }

    private func failure(_ what: String) -> APNsCredentialError {
        APNsCredentialError(.internalFailure, "OpenSSL could not \(what).", details: OpenSSLErrorQueue.drain())
    }
}
