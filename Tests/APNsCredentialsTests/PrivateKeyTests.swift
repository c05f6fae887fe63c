// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation
import Testing
import TestSupport

@Suite("Private keys: generation, encodings, interop with the openssl CLI")
struct PrivateKeyTests {
    @Test("Generated keys of every type are read back by openssl pkey", arguments: PrivateKey.Kind.allCases)
    func generatedKeysReadByOpenSSL(kind: PrivateKey.Kind) async throws {
        let dir = try TemporaryDirectory()
        let key = try PrivateKey.generate(kind)
        let path = try dir.write("key.pem", try key.pkcs8PEM())
        let text = try await Binaries.openssl(["pkey", "-in", path, "-noout", "-text"])
        #expect(text.status == 0, "\(text)")
        switch kind {
        case .rsa2048: #expect(key.summary == "RSA-2048"); #expect(text.stdout.contains("2048 bit"))
        case .rsa4096: #expect(key.summary == "RSA-4096"); #expect(text.stdout.contains("4096 bit"))
        case .ec256: #expect(key.summary == "EC P-256"); #expect(text.stdout.contains("prime256v1"))
        }
        #expect(String(decoding: try key.pkcs8PEM(), as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test("An encrypted PKCS#8 key opens in openssl with the passphrase and not without")
    func encryptedKeyInterop() async throws {
        let dir = try TemporaryDirectory()
        let key = try PrivateKey.generate(.ec256)
        let path = try dir.write("key.pem", try key.pkcs8PEM(encryptedWith: Passphrase("correct horse")))
        #expect(String(decoding: try dir.read("key.pem"), as: UTF8.self).hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        let good = try await Binaries.openssl(["pkey", "-in", path, "-passin", "pass:correct horse", "-noout"])
        #expect(good.status == 0, "\(good)")
        let bad = try await Binaries.openssl(["pkey", "-in", path, "-passin", "pass:wrong", "-noout"])
        #expect(bad.status != 0)
        let info = try await Binaries.openssl(["asn1parse", "-in", path])
        #expect(info.stdout.contains("aes-256-cbc"), "PBES2 with AES-256-CBC expected")
    }

    @Test("Traditional PEM is PKCS#1 for RSA and SEC1 for EC")
    func traditionalForms() async throws {
        let rsa = String(decoding: try PrivateKey.generate(.rsa2048).traditionalPEM(), as: UTF8.self)
        #expect(rsa.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        let ec = String(decoding: try PrivateKey.generate(.ec256).traditionalPEM(), as: UTF8.self)
        #expect(ec.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
    }

    /// Every key encoding the openssl CLI writes, with and without encryption.
    static let opensslVariants: [(name: String, make: [String], encrypted: Bool)] = [
        ("rsa-pkcs8", ["pkey", "-in", "{src}", "-out", "{out}"], false),
        ("rsa-pkcs1", ["pkey", "-in", "{src}", "-traditional", "-out", "{out}"], false),
        ("rsa-pkcs1-des3", ["rsa", "-in", "{src}", "-traditional", "-des3", "-passout", "pass:s3cret", "-out", "{out}"], true),
        ("rsa-pkcs1-aes256", ["rsa", "-in", "{src}", "-traditional", "-aes256", "-passout", "pass:s3cret", "-out", "{out}"], true),
        ("rsa-pkcs8-aes256", ["pkcs8", "-topk8", "-in", "{src}", "-v2", "aes256", "-passout", "pass:s3cret", "-out", "{out}"], true),
        ("rsa-pkcs8-3des", ["pkcs8", "-topk8", "-in", "{src}", "-v2", "des3", "-passout", "pass:s3cret", "-out", "{out}"], true),
        ("rsa-pkcs8-der", ["pkey", "-in", "{src}", "-outform", "DER", "-out", "{out}"], false),
        ("rsa-pkcs8-der-encrypted", ["pkcs8", "-topk8", "-in", "{src}", "-outform", "DER", "-v2", "aes256", "-passout", "pass:s3cret", "-out", "{out}"], true),
    ]

    @Test("Reads every RSA key encoding openssl writes", arguments: 0..<opensslVariants.count)
    func readsOpenSSLRSAVariants(index: Int) async throws {
        let variant = Self.opensslVariants[index]
        try await readVariant(variant, source: ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], expected: "RSA-2048")
    }

    @Test("Reads EC keys openssl writes: PKCS#8, SEC1, encrypted SEC1, encrypted PKCS#8", arguments: [0, 1, 3, 4])
    func readsOpenSSLECVariants(index: Int) async throws {
        var variant = Self.opensslVariants[index]
        variant.make = variant.make.map { $0 == "rsa" ? "ec" : $0 }
        try await readVariant(variant, source: ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], expected: "EC P-256")
    }

    private func readVariant(_ variant: (name: String, make: [String], encrypted: Bool), source: [String], expected: String) async throws {
        let dir = try TemporaryDirectory()
        let src = dir.file("src.pem"), out = dir.file("\(variant.name).key")
        #expect(try await Binaries.openssl(source + ["-out", src]).status == 0)
        let made = try await Binaries.openssl(variant.make.map { $0 == "{src}" ? src : ($0 == "{out}" ? out : $0) })
        #expect(made.status == 0, "\(made)")
        let original = try CredentialFile.load(src, passphrases: .none).privateKeys[0]

        let supplier = PassphraseSupplier(source: .literal("s3cret"))
        let contents = try CredentialFile.load(out, passphrases: supplier)
        let key = try #require(contents.privateKeys.first)
        #expect(key.summary == expected)
        #expect(try key.publicKeyDER() == original.publicKeyDER())

        if variant.encrypted {
            let missing = #expect(throws: APNsCredentialError.self) { try CredentialFile.load(out, passphrases: .none) }
            #expect(missing?.kind == .missingPassphrase)
            // The library says what is missing; the flag is the CLI's to name (CredentialErrorText).
            #expect(missing?.message.contains("--passin") == false)
            #expect(missing?.remedy == .passphrase)
            let wrong = #expect(throws: APNsCredentialError.self) {
                try CredentialFile.load(out, passphrases: PassphraseSupplier(source: .literal("nope")))
            }
            #expect(wrong?.kind == .wrongPassphrase)
            #expect(wrong?.message.contains("nope") == false)
            #expect(wrong?.message.contains("--") == false)
            #expect(wrong?.remedy == .passphrase)
        }
    }

    @Test("A key matches its own certificate and not another's")
    func matching() async throws {
        let dir = try TemporaryDirectory()
        let ca = try await OpenSSLCA.make(in: dir)
        let client = try await ClientFixture.make(in: dir, ca: ca)
        let certificate = try IdentityLoader.certificate(client.certificate).0
        let key = try IdentityLoader.privateKey(client.key, passphrases: .none)
        #expect(key.matches(certificate))
        #expect(try PrivateKey.generate(.rsa2048).matches(certificate) == false)
        #expect(try PrivateKey.generate(.ec256).matches(certificate) == false)
    }

    @Test("Refuses to encrypt with an empty passphrase")
    func emptyPassphraseRefused() async throws {
        let error = #expect(throws: APNsCredentialError.self) { try PrivateKey.generate(.ec256).pkcs8PEM(encryptedWith: .empty) }
        #expect(error?.kind == .invalidArgument)
    }
}
