// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation
import Testing
import TestSupport

@Suite("PKCS#12: every variant openssl and Keychain write, and files openssl reads")
struct PKCS12Tests {
    struct Fixture {
        let dir: TemporaryDirectory
        let client: ClientFixture
        let ca: OpenSSLCA
    }

    func fixture() async throws -> Fixture {
        let dir = try TemporaryDirectory()
        let ca = try await OpenSSLCA.make(in: dir)
        return Fixture(dir: dir, client: try await ClientFixture.make(in: dir, ca: ca), ca: ca)
    }

    func export(_ f: Fixture, _ name: String, _ extra: [String], password: String = "pass:s3cret") async throws -> String {
        let out = f.dir.file(name)
        let result = try await Binaries.openssl(["pkcs12", "-export", "-in", f.client.certificate, "-inkey", f.client.key,
                                           "-passout", password, "-out", out] + extra)
        #expect(result.status == 0, "\(result)")
        return out
    }

    static let exports: [(String, [String])] = [
        ("modern", []),
        ("legacy", ["-legacy"]),
        ("descert", ["-descert"]),
        ("keychain-like", ["-legacy", "-certpbe", "PBE-SHA1-RC2-40", "-keypbe", "PBE-SHA1-3DES", "-macalg", "sha1"]),
        ("with-chain", ["-certfile", "{ca}"]),
    ]

    @Test("Parses p12 files openssl exports", arguments: 0..<exports.count)
    func parsesOpenSSLExports(index: Int) async throws {
        let f = try await fixture()
        let (name, extra) = Self.exports[index]
        let path = try await export(f, "\(name).p12", extra.map { $0 == "{ca}" ? f.ca.certificate : $0 })
        let contents = try PKCS12.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))), label: path,
                                        passphrases: PassphraseSupplier(source: .literal("s3cret"))).select(nil, label: path)
        let certificate = try #require(contents.certificate)
        let key = try #require(contents.privateKey)
        #expect(key.matches(certificate))
        #expect(certificate.subject.first("UID") == "com.example.app")
        #expect(contents.chain.count == (name == "with-chain" ? 1 : 0))
    }

    @Test("Empty password: both the empty-string and the absent encodings open without a passphrase")
    func emptyPasswords() async throws {
        let f = try await fixture()
        let empty = try await export(f, "empty.p12", [], password: "pass:")
        let emptyLegacy = try await export(f, "empty-legacy.p12", ["-legacy"], password: "pass:")
        for path in [empty, emptyLegacy] {
            let contents = try CredentialFile.load(path, passphrases: .none)
            #expect(contents.certificates.count == 1)
            #expect(contents.privateKeys.count == 1)
        }
        // An empty password written by us (a different encoder) opens too.
        let identity = try IdentityLoader.load([f.client.certificate, f.client.key], passphrases: .none)
        let ours = try PKCS12.create(certificate: identity.certificate, privateKey: identity.privateKey, passphrase: .empty, format: .legacy)
        #expect(try PKCS12.parse(ours, label: "ours", passphrases: .none).privateKeys.count == 1)
    }

    @Test("Certificate-only and key-only p12 files (the two-file Keychain guide)")
    func halves() async throws {
        let f = try await fixture()
        let certOnly = try await export(f, "cert.p12", ["-nokeys", "-legacy"])
        let keyOnlyOut = f.dir.file("key.p12")
        let keyOnly = try await Binaries.openssl(["pkcs12", "-export", "-nocerts", "-inkey", f.client.key, "-passout", "pass:s3cret", "-out", keyOnlyOut, "-legacy"])
        #expect(keyOnly.status == 0, "\(keyOnly)")
        let supplier = PassphraseSupplier(source: .literal("s3cret"))
        let certContents = try PKCS12.parse(try f.dir.read("cert.p12"), label: certOnly, passphrases: supplier).select(nil, label: certOnly)
        #expect(certContents.certificate != nil)
        #expect(certContents.privateKey == nil)
        let keyContents = try PKCS12.parse(try f.dir.read("key.p12"), label: keyOnlyOut, passphrases: supplier).select(nil, label: keyOnlyOut)
        #expect(keyContents.certificate == nil)
        #expect(keyContents.privateKey != nil)
        let identity = try IdentityLoader.load([certOnly, keyOnlyOut], passphrases: supplier)
        #expect(identity.privateKey.matches(identity.certificate))
    }

    @Test("Wrong and missing passphrases are told apart from corruption")
    func passphraseErrors() async throws {
        let f = try await fixture()
        let path = try await export(f, "legacy.p12", ["-legacy"])
        let bytes = try f.dir.read("legacy.p12")
        let wrong = #expect(throws: APNsCredentialError.self) {
            try PKCS12.parse(bytes, label: path, passphrases: PassphraseSupplier(source: .literal("wrong")))
        }
        #expect(wrong?.kind == .wrongPassphrase)
        let missing = #expect(throws: APNsCredentialError.self) { try PKCS12.parse(bytes, label: path, passphrases: .none) }
        #expect(missing?.kind == .missingPassphrase)
        let truncated = #expect(throws: APNsCredentialError.self) {
            try CredentialFile.load(bytes: Array(bytes.prefix(bytes.count / 2)), label: "cut.p12", passphrases: .none)
        }
        #expect(truncated?.kind == .unreadable)
        #expect(truncated?.message.contains("truncated") == true)
    }

    @Test("Files we write open in openssl: modern by default, legacy only with -legacy", arguments: [PKCS12.Format.modern, .legacy])
    func writtenFilesReadByOpenSSL(format: PKCS12.Format) async throws {
        let f = try await fixture()
        let identity = try IdentityLoader.load([f.client.certificate, f.client.key], passphrases: .none)
        let chain = try IdentityLoader.chain([f.ca.certificate])
        let bytes = try PKCS12.create(certificate: identity.certificate, privateKey: identity.privateKey, chain: chain,
                                      passphrase: Passphrase("s3cret"), format: format)
        let path = try f.dir.write("ours.p12", bytes)
        let info = try await Binaries.openssl(["pkcs12", "-in", path, "-passin", "pass:s3cret", "-info", "-nokeys", "-legacy"])
        #expect(info.status == 0, "\(info)")
        if format == .legacy {
            #expect(info.stderr.contains("pbeWithSHA1And40BitRC2-CBC"))
            #expect(info.stderr.contains("pbeWithSHA1And3-KeyTripleDES-CBC"))
            #expect(info.stderr.contains("MAC: sha1"))
            let withoutLegacy = try await Binaries.openssl(["pkcs12", "-in", path, "-passin", "pass:s3cret", "-nokeys"])
            #expect(withoutLegacy.status != 0, "OpenSSL 3 without -legacy must refuse RC2: proves the file really is legacy")
        } else {
            #expect(info.stderr.contains("AES-256-CBC"))
            #expect(info.stderr.contains("MAC: sha256"))
            let plain = try await Binaries.openssl(["pkcs12", "-in", path, "-passin", "pass:s3cret", "-nokeys"])
            #expect(plain.status == 0, "\(plain)")
        }
        #expect(info.stdout.components(separatedBy: "BEGIN CERTIFICATE").count - 1 == 2)
        let keys = try await Binaries.openssl(["pkcs12", "-in", path, "-passin", "pass:s3cret", "-nocerts", "-nodes", "-legacy"])
        #expect(keys.stdout.contains("BEGIN PRIVATE KEY"))
    }
}
