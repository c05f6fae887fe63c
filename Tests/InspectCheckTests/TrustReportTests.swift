// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `apnskit trust-report` against bundles written by tools we did not write: Debian's
/// ca-certificates bundle and its USERTrust file, the same bundle with the root removed by
/// Python's `cryptography`, a Java truststore listed by `keytool -list -rfc`, and a look-alike
/// root made by `openssl req -x509` with USERTrust's name and another key.
@Suite struct TrustReportTests {
    static let debianBundle = "/etc/ssl/certs/ca-certificates.crt"
    static let debianRoot = "/etc/ssl/certs/USERTrust_RSA_Certification_Authority.pem"

    /// A folder of bundles made once: without the root, with a look-alike, the Java truststore.
    struct Bundles: Sendable {
        let folder: String
        var withoutRoot: String { folder + "/without-usertrust.pem" }
        var lookAlike: String { folder + "/look-alike.pem" }
        var java: String { folder + "/java-cacerts.pem" }

        static let shared = SharedFixture { try await Bundles.make() }

        static func make() async throws -> Bundles {
            let folder = NSTemporaryDirectory() + "apnskit-trust-tests-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            RemovedAtExit.add(folder)
            let bundles = Bundles(folder: folder)
            let filter = """
            import sys
            from cryptography import x509
            from cryptography.hazmat.primitives.serialization import Encoding
            certs = x509.load_pem_x509_certificates(open(sys.argv[1], "rb").read())
            kept = [c for c in certs if "CN=USERTrust RSA Certification Authority" not in c.subject.rfc4514_string()]
            assert len(kept) == len(certs) - 1, "expected exactly one USERTrust RSA root"
            open(sys.argv[2], "wb").write(b"".join(c.public_bytes(Encoding.PEM) for c in kept))
            """
            let filtered = try await run(["python3", "-W", "ignore", "-c", filter, debianBundle, bundles.withoutRoot])
            guard filtered.status == 0 else { throw TrustFixtureError("python3 cryptography: \(filtered.err)") }
            let key = folder + "/look-alike.key", cert = folder + "/look-alike-cert.pem"
            let lookAlike = try await run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-keyout", key, "-out", cert,
                                           "-subj", "/C=US/ST=New Jersey/L=Jersey City/O=The USERTRUST Network/CN=USERTrust RSA Certification Authority"])
            guard lookAlike.status == 0 else { throw TrustFixtureError("openssl req: \(lookAlike.err)") }
            try (Data(contentsOf: URL(fileURLWithPath: bundles.withoutRoot)) + Data(contentsOf: URL(fileURLWithPath: cert)))
                .write(to: URL(fileURLWithPath: bundles.lookAlike))
            let java = try await run(["keytool", "-list", "-rfc", "-cacerts", "-storepass", "changeit"])
            guard java.status == 0, java.out.contains("BEGIN CERTIFICATE") else { throw TrustFixtureError("keytool -list -rfc -cacerts: \(java.err)") }
            try Data(java.out.utf8).write(to: URL(fileURLWithPath: bundles.java))
            return bundles
        }
    }

    struct TrustFixtureError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description + " (scripts/setup.sh installs ca-certificates, openssl, python3-cryptography and openjdk-17-jdk-headless)" }
    }

    @Test func theRootsKeyIsDebiansUSERTrust() async throws {
        // The pin apnskit carries, recomputed by the openssl CLI from Debian's copy of the root.
        let pubkey = try await run(["sh", "-c", "openssl x509 -in \(Self.debianRoot) -pubkey -noout | openssl pkey -pubin -outform DER | sha256sum"])
        #expect(pubkey.status == 0, "\(pubkey.err)")
        let report = try await run(["apnskit", "trust-report", Self.debianRoot, "--format", "json"])
        #expect(report.status == 0, "\(report.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.out.utf8)) as? [[String: Any]]).first
        let pin = try #require(object?["rootPublicKeySHA256"] as? String)
        #expect(pubkey.out.hasPrefix(pin + " "), "openssl: \(pubkey.out), apnskit: \(pin)")
        #expect(object?["accepted"] as? Bool == true)
    }

    @Test func debiansBundleAcceptsBothGateways() async throws {
        let result = try await run(["apnskit", "trust-report", Self.debianBundle])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("OK   sandbox (api.sandbox.push.apple.com): trusts USERTrust RSA Certification Authority"), "\(result.out)")
        #expect(result.out.contains("OK   production (api.push.apple.com): trusts USERTrust RSA Certification Authority"), "\(result.out)")
    }

    @Test func aBundleWithoutTheRootIsRefused() async throws {
        let bundles = try await Bundles.shared.get()
        let result = try await run(["apnskit", "trust-report", bundles.withoutRoot])
        #expect(result.status == 1)
        #expect(result.out.contains("FAIL production (api.push.apple.com): lacks USERTrust RSA Certification Authority"), "\(result.out)")
        #expect(result.err.contains("would not accept the sandbox (api.sandbox.push.apple.com) and production (api.push.apple.com) gateways' chains"), "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1, "one sentence: \(result.err)")
        let one = try await run(["apnskit", "trust-report", bundles.withoutRoot, "--environment", "sandbox", "--format", "json"])
        #expect(one.status == 1)
        let gateways = try #require((try JSONSerialization.jsonObject(with: Data(one.out.utf8)) as? [[String: Any]])?.first?["gateways"] as? [[String: Any]])
        #expect(gateways.count == 1 && gateways.first?["status"] as? String == "missing", "\(one.out)")
    }

    @Test func aLookAlikeRootIsNotTheRoot() async throws {
        let bundles = try await Bundles.shared.get()
        let result = try await run(["apnskit", "trust-report", bundles.lookAlike])
        #expect(result.status == 1)
        #expect(result.out.contains("holds a certificate named USERTrust RSA Certification Authority with another key"), "\(result.out)")
    }

    @Test func javasTruststoreAcceptsBothGateways() async throws {
        let bundles = try await Bundles.shared.get()
        let result = try await run(["apnskit", "trust-report", bundles.java])
        #expect(result.status == 0, "\(result.out) \(result.err)")
    }

    @Test func theSystemStoreIsWhatOpenSSLReads() async throws {
        let bundles = try await Bundles.shared.get()
        let good = try await run(["apnskit", "trust-report"], environment: ["SSL_CERT_FILE": Self.debianBundle])
        #expect(good.status == 0 && good.out.hasPrefix("trust-report \(Self.debianBundle) ("), "\(good.out)")
        let bad = try await run(["apnskit", "trust-report"], environment: ["SSL_CERT_FILE": bundles.withoutRoot])
        #expect(bad.status == 1, "\(bad.out)")
        // No file: the hashed folder, each certificate read once.
        let folder = try await run(["apnskit", "trust-report", "--format", "json"],
                                   environment: ["SSL_CERT_FILE": bundles.folder + "/absent.pem", "SSL_CERT_DIR": "/etc/ssl/certs"])
        #expect(folder.status == 0, "\(folder.err)")
        let object = try #require((try JSONSerialization.jsonObject(with: Data(folder.out.utf8)) as? [[String: Any]])?.first)
        #expect(object["source"] as? String == "/etc/ssl/certs")
        let inBundle = try await run(["sh", "-c", "grep -c 'BEGIN CERTIFICATE' \(Self.debianBundle)"])
        // The folder holds the bundle's certificates (and the bundle file itself, read once more).
        #expect((object["certificates"] as? Int ?? 0) >= Int(inBundle.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max, "\(folder.out)")
    }

    @Test func unreadableBundlesAreExit3() async throws {
        let bundles = try await Bundles.shared.get()
        let missing = try await run(["apnskit", "trust-report", bundles.folder + "/nope.pem"])
        #expect(missing.status == 3 && missing.err.contains("does not exist"), "\(missing.err)")
        let key = try await run(["apnskit", "trust-report", bundles.folder + "/look-alike.key"])
        #expect(key.status == 3 && key.err.contains("holds no certificates"), "\(key.err)")
        let none = try await run(["apnskit", "trust-report"], environment: ["SSL_CERT_FILE": bundles.folder + "/absent.pem", "SSL_CERT_DIR": bundles.folder + "/absent"])
        #expect(none.status == 3 && none.err.contains("does not exist"), "\(none.err)")
    }
}
