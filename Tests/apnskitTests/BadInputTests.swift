// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

@Suite("CLI: every bad input gets one clear sentence, its exit code, and no output file")
struct BadInputTests {
    @Test("Wrong passphrase: exit 3, says so, never echoes it")
    func wrongPassphrase() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        try await f.keychainP12(cert.pem, cert.key, out: "in.p12")
        let result = try await f.run("prepare", "in.p12", "--passin", "env:PW", "-o", "apns.pem", environment: ["PW": "not-the-password"])
        expectFailure(result, status: 3, mentions: ["passphrase does not open in.p12"], noFile: "apns.pem", in: f)
        #expect(!result.stderr.contains("not-the-password"))
        #expect(try f.dir.entries().allSatisfy { !$0.hasPrefix(".") }, "no temporary files left")
    }

    @Test("Missing passphrase with no TTY: exit 3 and the --passin forms, instead of hanging")
    func missingPassphrase() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        #expect(try await f.run("key", "encrypt", cert.key, "--passout", "pass:pw", "-o", "enc.key").status == 0)
        let result = try await f.run("combine", cert.pem, "enc.key", "-o", "apns.pem")
        expectFailure(result, status: 3, mentions: ["enc.key is encrypted", "--passin"], noFile: "apns.pem", in: f)
        let keygen = try await f.run("keygen", "--encrypt", "-o", "new.key")
        expectFailure(keygen, status: 3, mentions: ["--passout"], noFile: "new.key", in: f)
    }

    @Test("Truncated or corrupt PEM, DER and p12 inputs: exit 3, named as truncated or corrupt")
    func truncatedInputs() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        try await f.keychainP12(cert.pem, cert.key, out: "in.p12")
        let pem = try f.dir.read(cert.pem), der = try f.dir.read(cert.cer), p12 = try f.dir.read("in.p12")
        _ = try f.dir.write("cut.pem", Array(pem.prefix(pem.count - 40)))
        _ = try f.dir.write("cut.cer", Array(der.prefix(der.count / 2)))
        _ = try f.dir.write("cut.p12", Array(p12.prefix(p12.count - 100)))
        var garbled = pem
        garbled[100] = UInt8(ascii: "!")
        garbled[101] = UInt8(ascii: "!")
        _ = try f.dir.write("garbled.pem", garbled)
        _ = try f.dir.write("random.bin", (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        _ = try f.dir.write("empty.pem", [])

        expectFailure(try await f.run("import-cer", "cut.pem", "-o", "o.pem"), status: 3, mentions: ["cut.pem is truncated", "no END line"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("import-cer", "cut.cer", "-o", "o.pem"), status: 3, mentions: ["cut.cer is truncated"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("prepare", "cut.p12", "--passin", "pass:s3cret", "-o", "o.pem"), status: 3, mentions: ["cut.p12 is truncated"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("import-cer", "garbled.pem", "-o", "o.pem"), status: 3, mentions: ["garbled.pem", "corrupt"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("import-cer", "random.bin", "-o", "o.pem"), status: 3, mentions: ["random.bin is not a certificate"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("import-cer", "empty.pem", "-o", "o.pem"), status: 3, mentions: ["empty.pem is empty"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("import-cer", "missing.cer", "-o", "o.pem"), status: 3, mentions: ["missing.cer does not exist"], noFile: "o.pem", in: f)
    }

    @Test("A PEM of the wrong kind: a CSR given as the certificate, a certificate given as the key")
    func wrongKind() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        expectFailure(try await f.run("import-cer", "push.csr", "-o", "o.pem"), status: 3,
                      mentions: ["push.csr holds certificate signing request, not a certificate", "portal"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("combine", "push.csr", cert.key, "-o", "o.pem"), status: 3, mentions: ["push.csr"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("combine", cert.pem, cert.pem, "-o", "o.pem"), status: 3, mentions: ["push.pem holds certificate, not a private key"], noFile: "o.pem", in: f)
        expectFailure(try await f.run("p12", "split", cert.pem, "--cert-out", "o.pem"), status: 3, mentions: ["not a PKCS#12"], noFile: "o.pem", in: f)
    }

    @Test("A p12 without a key where a key is needed")
    func p12WithoutKey() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        #expect(try await f.openssl("pkcs12", "-export", "-nokeys", "-in", cert.pem, "-passout", "pass:pw", "-out", "cert-only.p12").status == 0)
        expectFailure(try await f.run("prepare", "cert-only.p12", "--passin", "pass:pw", "-o", "apns.pem"), status: 3,
                      mentions: ["No private key found in cert-only.p12"], noFile: "apns.pem", in: f)
        expectFailure(try await f.run("p12", "split", "cert-only.p12", "--passin", "pass:pw", "--cert-out", "c.pem", "--key-out", "k.pem"), status: 3,
                      mentions: ["cert-only.p12 holds no private key"], noFile: "c.pem", in: f)
        #expect(!f.dir.exists("k.pem"))
    }

    @Test("A key that does not match the certificate: exit 1, both files named, nothing written")
    func mismatchedKey() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        #expect(try await f.run("keygen", "-o", "other.key").status == 0)
        expectFailure(try await f.run("combine", cert.cer, "other.key", "-o", "apns.pem"), status: 1,
                      mentions: ["other.key", "push.cer", "does not belong"], noFile: "apns.pem", in: f)
        expectFailure(try await f.run("prepare", "--cert", cert.pem, "--key", "other.key", "-o", "apns.pem"), status: 1,
                      mentions: ["other.key", "push.pem"], noFile: "apns.pem", in: f)
        expectFailure(try await f.run("p12", "create", cert.pem, "other.key", "--passout", "pass:x", "-o", "x.p12"), status: 1,
                      mentions: ["does not belong"], noFile: "x.p12", in: f)
    }

    @Test("An expired certificate: prepare refuses with exit 1 unless --allow-expired")
    func expired() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate(start: Date().addingTimeInterval(-400 * 86_400), end: Date().addingTimeInterval(-2 * 86_400))
        expectFailure(try await f.run("prepare", "--cert", cert.pem, "--key", cert.key, "-o", "apns.pem"), status: 1,
                      mentions: ["has expired", "--allow-expired"], noFile: "apns.pem", in: f)
        let allowed = try await f.run("prepare", "--cert", cert.pem, "--key", cert.key, "--allow-expired", "-o", "apns.pem")
        #expect(allowed.status == 0, "\(allowed)")
        #expect(allowed.stderr.contains("warning"))
    }

    @Test("Output exists without --force: exit 2, file untouched; with --force replaced")
    func outputExists() async throws {
        let f = try await CLIFixture()
        _ = try f.dir.write("key.pem", text: "keep me")
        let result = try await f.run("keygen", "-o", "key.pem")
        expectFailure(result, status: 2, mentions: ["key.pem already exists", "--force"])
        #expect(String(decoding: try f.dir.read("key.pem"), as: UTF8.self) == "keep me")
        #expect(try await f.run("keygen", "-o", "key.pem", "--force").status == 0)
        #expect(try await f.openssl("pkey", "-in", "key.pem", "-noout").status == 0)
    }

    @Test("Unwritable or missing output folder: exit 2 before any work")
    func unwritableFolder() async throws {
        let f = try await CLIFixture()
        expectFailure(try await f.run("keygen", "-o", "no/such/dir/key.pem"), status: 2, mentions: ["folder no/such/dir does not exist"])
        // A read-only file system location (root can write anywhere else).
        expectFailure(try await f.run("keygen", "-o", "/proc/apnskit-test.key"), status: 2, mentions: ["/proc/apnskit-test.key"])
    }

    @Test("Usage errors exit 2 with a message, not ArgumentParser's 64")
    func usageErrors() async throws {
        let f = try await CLIFixture()
        expectFailure(try await f.run("keygen", "--type", "dsa", "-o", "k.pem"), status: 2, mentions: ["dsa"])
        let noOutput = try await f.run("p12", "split", "x.p12")
        #expect(noOutput.status == 2)
        #expect(noOutput.stderr.contains("--cert-out"))
        let badSource = try await f.run("key", "strip", "k.pem", "--passin", "secret", "-o", "o.pem")
        expectFailure(badSource, status: 2, mentions: ["env:VAR"])
        #expect(!badSource.stderr.contains("secret'"))
    }
}
