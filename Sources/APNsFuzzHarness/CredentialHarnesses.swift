// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation

/// Harnesses over the OpenSSL-backed parsers. Inputs for the single-object parsers start with
/// a mode byte: odd means "wrap the rest in a PEM block with a label picked by the other
/// bits", so mutations of the DER inside also reach OpenSSL's PEM path (mutating base64 text
/// directly mostly just breaks the base64).
enum CredentialHarnesses {
    static let passphrase = "fuzz-pass"
    static let labels = ["CERTIFICATE", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY",
                         "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST", "X509 CERTIFICATE", "PKCS12", "PUBLIC KEY"]

    /// A supplier that answers the fixed fuzz passphrase (a new one per input: it caches).
    static func supplier() -> PassphraseSupplier {
        PassphraseSupplier(source: .literal(passphrase))
    }

    /// Undoes the mode-byte framing described above.
    static func unframe(_ input: [UInt8]) -> [UInt8] {
        guard let mode = input.first else { return [] }
        let body = Array(input.dropFirst())
        guard mode & 1 == 1 else { return body }
        return PEMText.wrap(body, label: labels[Int(mode >> 1) % labels.count])
    }

    static func certificate(_ input: [UInt8]) throws {
        let bytes = unframe(input)
        let decoded = PEMScanner.looksLikePEM(bytes)
            ? try Check.credential("Certificate(pem:)") { try Certificate(pem: bytes, label: "fuzz") }
            : try Check.credential("Certificate(der:)") { try Certificate(der: bytes, label: "fuzz") }
        guard let certificate = decoded else { return }
        // Everything inspect/check read from a certificate must cope with whatever decoded.
        let info = APNsCertificateInfo(certificate)
        _ = (info.subject, info.topics, info.keySummary, certificate.serialNumberHex, certificate.isSelfIssued)
        _ = try Check.credential("Certificate.pem()") { try certificate.pem() }
        try Check.require(!certificate.der.isEmpty, "a decoded certificate re-encodes to nothing")
    }

    static func privateKey(_ input: [UInt8]) throws {
        let bytes = unframe(input)
        for passphrases in [PassphraseSupplier.none, supplier()] {
            guard let key = try Check.credential("PrivateKey.decode", { try PrivateKey.decode(bytes, label: "fuzz", passphrases: passphrases) }) else { continue }
            _ = (key.summary, key.algorithm)
            _ = try Check.credential("PrivateKey.pkcs8DER") { try key.pkcs8DER() }
        }
    }

    static func csr(_ input: [UInt8]) throws {
        let bytes = unframe(input)
        guard let request = try Check.credential("CertificateSigningRequest(bytes:)", { try CertificateSigningRequest(bytes: bytes, label: "fuzz") }) else { return }
        _ = (request.subject.description, request.publicKeySummary, request.signatureIsValid, request.der)
    }

    static func pkcs12(_ input: [UInt8]) throws {
        guard let contents = try Check.credential("PKCS12.parse", { try PKCS12.parse(input, label: "fuzz", passphrases: supplier()) }) else { return }
        for pair in contents.identities { _ = contents.describe(pair) }
        if let selection = try Check.credential("CredentialContents.select", { try contents.select(nil, label: "fuzz") }) {
            if let key = selection.privateKey, let certificate = selection.certificate { _ = key.matches(certificate) }
            _ = selection.chain.map(\.subject.description)
        }
    }

    static func credentialFile(_ input: [UInt8]) throws {
        guard let contents = try Check.credential("CredentialFile.load", { try CredentialFile.load(bytes: input, label: "fuzz", passphrases: supplier()) }) else { return }
        try Check.require(contents.summary != "", "an accepted file has an empty summary")
    }

    static func topics(_ input: [UInt8]) throws {
        let parsed: [APNsTopic]
        do {
            parsed = try APNsTopics.parse(input)
        } catch let error as DERReader.DERError {
            try Check.require(!error.description.isEmpty, "DERError with an empty description")
            return
        } catch {
            throw HarnessViolation("APNsTopics.parse: untyped error \(type(of: error))")
        }
        // Re-encoding may normalise lengths, but must read back as the same topics.
        let again = try? APNsTopics.parse(APNsTopics.encode(parsed))
        try Check.require(again == parsed, "topics do not survive encode/parse: \(parsed)")
    }

    static func providerToken(_ input: [UInt8]) throws {
        let fixture = try TokenFixture.shared.get()
        let text = String(decoding: input, as: UTF8.self)
        switch ProviderTokenVerifier.verify(text, keys: [TokenFixture.keyID: fixture.publicKey], now: TokenFixture.now) {
        case .success(let claims):
            try Check.require(claims.keyID == TokenFixture.keyID, "a token for unregistered key \(claims.keyID) verified")
        case .failure:
            break
        }
    }
}

/// PEM armour for arbitrary bytes (64-column base64, as OpenSSL writes it).
enum PEMText {
    static func wrap(_ der: [UInt8], label: String, headers: [String] = []) -> [UInt8] {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        var text = "-----BEGIN \(label)-----\n"
        for header in headers { text += header + "\n" }
        if !headers.isEmpty { text += "\n" }
        if !base64.isEmpty { text += base64 + "\n" }
        text += "-----END \(label)-----\n"
        return Array(text.utf8)
    }

    /// The DER inside the first PEM block of `pem` (headers skipped).
    static func unwrap(_ pem: [UInt8]) -> [UInt8] {
        let lines = String(decoding: pem, as: UTF8.self).split(separator: "\n")
        let body = lines.filter { !$0.hasPrefix("-----") && !$0.contains(":") }.joined()
        return Data(base64Encoded: body).map(Array.init) ?? []
    }
}
