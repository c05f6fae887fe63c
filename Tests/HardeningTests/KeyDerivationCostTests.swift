// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import CTestFixtures
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 7, resource bounds: a .p12 or encrypted key that names an absurd key-derivation
    /// cost is refused before any derivation (exit 3, one sentence), instead of keeping apnskit
    /// busy for minutes. The files are made with the `openssl` CLI at a distinctive count
    /// (2049), then their INTEGERs are edited (`DERPatch`): making them with 100,000,000
    /// iterations would itself take minutes.
    @Suite("Hardening: key-derivation cost caps")
    struct KeyDerivationCostTests {
        static let absurd: UInt64 = 100_000_000
        static let environment = ["P": "cost-pass"]

        static func workspace() async throws -> CLIWorkspace {
            let w = try await CLIWorkspace.withPushCertificate()
            let pem = try await Binaries.openssl(["x509", "-inform", "DER", "-in", "push.cer", "-out", "push.pem"], directory: w.dir.path)
            #expect(pem.status == 0, "\(pem)")
            return w
        }

        /// `name` with the `only`-th INTEGERs equal to `old` set to `new`, written as `patched`.
        static func patch(_ w: CLIWorkspace, _ name: String, _ old: UInt64, to new: UInt64, only: Set<Int>? = nil,
                          as patched: String, expecting count: Int = 1) throws {
            let (bytes, replaced) = DERPatch.replacingIntegers(old, with: new, in: try w.dir.read(name), only: only)
            #expect(replaced == count, "\(name): replaced \(replaced) INTEGERs equal to \(old)")
            _ = try w.dir.write(patched, bytes)
        }

        /// `p12 split` of `name`: exit 3 with `message` on stderr, and no output file.
        static func expectRefused(_ w: CLIWorkspace, _ name: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let split = try await w.run(["p12", "split", name, "--passin", "env:P", "--cert-out", "out.pem"], environment: environment)
            #expect(split.status == 3, "\(split)", sourceLocation: sourceLocation)
            #expect(split.stderr.contains(message), "\(split)", sourceLocation: sourceLocation)
            #expect(!w.dir.exists("out.pem"), sourceLocation: sourceLocation)
        }

        @Test("A .p12 asking for 100,000,000 iterations in its MAC, certificate or key encryption is refused before any derivation")
        func modernP12() async throws {
            let w = try await Self.workspace()
            let made = try await Binaries.openssl(["pkcs12", "-export", "-in", "push.pem", "-inkey", "push.key", "-iter", "2049",
                                             "-passout", "pass:cost-pass", "-out", "base.p12"], directory: w.dir.path)
            #expect(made.status == 0, "\(made)")
            // The count appears three times, in document order: the certificates' PBES2, the
            // key bag's PBES2, the MAC.
            try Self.patch(w, "base.p12", 2049, to: 2049, as: "same.p12", expecting: 3)
            try await w.expectSuccess("p12", "split", "same.p12", "--passin", "env:P", "--cert-out", "same.pem", environment: Self.environment)

            for (index, part) in [(1, "its encrypted certificates"), (2, "its private key"), (3, "its integrity check")] {
                try Self.patch(w, "base.p12", 2049, to: Self.absurd, only: [index], as: "absurd\(index).p12")
                try await Self.expectRefused(w, "absurd\(index).p12", "asks for 100000000 key-derivation iterations for \(part), more than the 1000000 apnskit accepts")
            }
            let inspect = try await w.run(["inspect", "absurd3.p12", "--passin", "env:P"], environment: Self.environment)
            #expect(inspect.status == 3 && inspect.stdout.contains("asks for 100000000 key-derivation iterations"), "\(inspect)")
            // At the cap the file is read: its MAC, edited, then fails as a wrong passphrase would.
            try Self.patch(w, "base.p12", 2049, to: KeyDerivationCost.maximumIterations, only: [3], as: "cap.p12")
            try await Self.expectRefused(w, "cap.p12", "The passphrase does not open cap.p12")
        }

        @Test("A Keychain-style legacy .p12 (RC2/3DES, PKCS#12 PBE parameters) with absurd counts is refused")
        func legacyP12() async throws {
            let w = try await Self.workspace()
            try await w.expectSuccess("p12", "create", "push.cer", "push.key", "--legacy", "--passout", "env:P", "-o", "legacy.p12", environment: Self.environment)
            for (index, part) in [(1, "its encrypted certificates"), (2, "its private key")] {
                try Self.patch(w, "legacy.p12", 2048, to: Self.absurd, only: [index], as: "legacy\(index).p12")
                try await Self.expectRefused(w, "legacy\(index).p12", "asks for 100000000 key-derivation iterations for \(part)")
            }
        }

        @Test("A key bag hidden inside the encrypted contents is checked once the passphrase opens them")
        func hiddenKeyBag() async throws {
            let w = try await Self.workspace()
            let (cert, key) = (w.dir.file("push.pem"), w.dir.file("push.key"))
            #expect(apns_test_write_p12_key_in_encrypted_safe(cert, key, "cost-pass", 2049, 2049, w.dir.file("hidden-ok.p12")) == 1)
            try await w.expectSuccess("p12", "split", "hidden-ok.p12", "--passin", "env:P", "--key-out", "ok.key", environment: Self.environment)
            // Made for real (so just over the cap: a second to write), not edited: it is encrypted.
            let over = KeyDerivationCost.maximumIterations + 1
            #expect(apns_test_write_p12_key_in_encrypted_safe(cert, key, "cost-pass", Int32(over), 2049, w.dir.file("hidden.p12")) == 1)
            try await Self.expectRefused(w, "hidden.p12", "asks for \(over) key-derivation iterations for its private key")
        }

        @Test("An encrypted PKCS#8 key (PEM or DER) with 100,000,000 PBKDF2 iterations is refused before a passphrase is tried")
        func pkcs8() async throws {
            let w = try await Self.workspace()
            let made = try await Binaries.openssl(["pkcs8", "-topk8", "-in", "push.key", "-v2", "aes-256-cbc", "-iter", "2049", "-outform", "DER",
                                             "-passout", "pass:cost-pass", "-out", "base.der"], directory: w.dir.path)
            #expect(made.status == 0, "\(made)")
            try Self.patch(w, "base.der", 2049, to: Self.absurd, as: "absurd.der")
            let base64 = Data(try w.dir.read("absurd.der")).base64EncodedString(options: .lineLength64Characters)
            _ = try w.dir.write("absurd.pem", text: "-----BEGIN ENCRYPTED PRIVATE KEY-----\n\(base64)\n-----END ENCRYPTED PRIVATE KEY-----\n")
            for name in ["absurd.der", "absurd.pem"] {
                let strip = try await w.run(["key", "strip", name, "--passin", "env:P", "-o", "plain.key"], environment: Self.environment)
                #expect(strip.status == 3, "\(strip)")
                #expect(strip.stderr.contains("asks for 100000000 key-derivation iterations for its private key"), "\(strip)")
                // Refused before the passphrase is even needed: no --passin, same answer.
                let bare = try await w.run(["key", "strip", name, "-o", "plain.key"])
                #expect(bare.status == 3 && bare.stderr.contains("key-derivation iterations"), "\(bare)")
                #expect(!w.dir.exists("plain.key"))
            }
            try await w.expectSuccess("key", "strip", "base.der", "--passin", "env:P", "-o", "plain.key", environment: Self.environment)
        }

        @Test("scrypt keys: OpenSSL's default parameters are read; a p that fits OpenSSL's 32 MB memory cap but takes an hour is refused")
        func scrypt() async throws {
            let w = try await Self.workspace()
            for (p, name, form) in [("1", "default.pem", "PEM"), ("3", "p3.der", "DER")] {
                let made = try await Binaries.openssl(["pkcs8", "-topk8", "-in", "push.key", "-scrypt", "-scrypt_N", "16384", "-scrypt_r", "8",
                                                 "-scrypt_p", p, "-outform", form, "-passout", "pass:cost-pass", "-out", name], directory: w.dir.path)
                #expect(made.status == 0, "\(made)")
            }
            try await w.expectSuccess("key", "strip", "default.pem", "--passin", "env:P", "-o", "plain.key", environment: Self.environment)
            // p 16,000: 2 MB beside N·r's 16 MB, inside OpenSSL's 32 MB; 16,000 times the work.
            try Self.patch(w, "p3.der", 3, to: 16_000, as: "slow.der")
            let strip = try await w.run(["key", "strip", "slow.der", "--passin", "env:P", "-o", "slow.key"], environment: Self.environment)
            #expect(strip.status == 3, "\(strip)")
            #expect(strip.stderr.contains("asks for scrypt with N 16384, r 8, p 16000 for its private key, more work (N·r·p) than the 1048576 apnskit accepts"), "\(strip)")
        }
    }
}
