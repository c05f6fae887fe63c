// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

@Suite("CLI: the portal-to-PEM flow, checked by the openssl CLI")
struct PortalFlowTests {
    @Test("keygen writes every key type 0600, read by openssl; encrypted keys need their passphrase")
    func keygen() async throws {
        let f = try await CLIFixture()
        for type in ["rsa2048", "rsa4096", "ec256"] {
            let result = try await f.run("keygen", "--type", type, "-o", "\(type).key")
            #expect(result.status == 0, "\(result)")
            #expect(try f.dir.mode("\(type).key") == 0o600)
            #expect(try await f.openssl("pkey", "-in", "\(type).key", "-noout").status == 0)
        }
        let encrypted = try await f.run("keygen", "--encrypt", "--passout", "env:KP", "-o", "enc.key", environment: ["KP": "pw-123"])
        #expect(encrypted.status == 0, "\(encrypted)")
        #expect(try await f.openssl("pkey", "-in", "enc.key", "-passin", "pass:pw-123", "-noout").status == 0)
        #expect(try await f.openssl("pkey", "-in", "enc.key", "-passin", "pass:other", "-noout").status != 0)
        #expect(!encrypted.stdout.contains("pw-123") && !encrypted.stderr.contains("pw-123"))
    }

    @Test("A one-character output name in the current folder (regression: Foundation path helper trap)")
    func shortOutputName() async throws {
        let f = try await CLIFixture()
        let result = try await f.run("keygen", "-o", "k")
        #expect(result.status == 0, "\(result)")
        #expect(try f.dir.mode("k") == 0o600)
    }

    @Test("keygen -o - writes the key to stdout and the report to stderr")
    func keygenStdout() async throws {
        let f = try await CLIFixture()
        let result = try await f.run("keygen", "--type", "ec256", "-o", "-")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(result.stderr.contains("EC P-256"))
    }

    @Test("csr: openssl req -verify accepts it; --key reuses an existing key")
    func csr() async throws {
        let f = try await CLIFixture()
        let made = try await f.run("csr", "--email", "dev@example.com", "--common-name", "Example Push", "--country", "de",
                             "--key-out", "k.pem", "--csr-out", "r.csr")
        #expect(made.status == 0, "\(made)")
        let verify = try await f.openssl("req", "-in", "r.csr", "-verify", "-noout", "-subject")
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("emailAddress = dev@example.com, CN = Example Push, C = DE"))
        #expect(try f.dir.mode("k.pem") == 0o600)
        #expect(try f.dir.mode("r.csr") == 0o644)
        let again = try await f.run("csr", "--email", "dev@example.com", "--common-name", "Again", "--key", "k.pem", "--csr-out", "r2.csr")
        #expect(again.status == 0, "\(again)")
        let modulus1 = try await f.openssl("req", "-in", "r.csr", "-noout", "-pubkey").stdout
        let modulus2 = try await f.openssl("req", "-in", "r2.csr", "-noout", "-pubkey").stdout
        #expect(modulus1 == modulus2)
    }

    @Test("import-cer turns the portal's DER .cer into PEM with a summary")
    func importCer() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        let result = try await f.run("import-cer", cert.cer, "-o", "imported.pem")
        #expect(result.status == 0, "\(result)")
                #expect(result.stdout.contains("\"Example Push\", expires"))
        #expect(try f.dir.read("imported.pem") == f.dir.read(cert.pem))
        #expect(try f.dir.mode("imported.pem") == 0o644)
    }

    @Test("The classic guide end to end: legacy Keychain p12 -> prepare -> combined PEM openssl accepts")
    func prepareFromKeychainP12() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        try await f.keychainP12(cert.pem, cert.key, out: "Certificates.p12")
        let result = try await f.run("prepare", "Certificates.p12", "--passin", "env:P12", "-o", "apns.pem", environment: ["P12": "s3cret"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("matching RSA-2048 key"))
        #expect(try f.dir.mode("apns.pem") == 0o600)
        let text = String(decoding: try f.dir.read("apns.pem"), as: UTF8.self)
        let certAt = try #require(text.range(of: "BEGIN CERTIFICATE"))
        let keyAt = try #require(text.range(of: "BEGIN PRIVATE KEY"))
        #expect(certAt.lowerBound < keyAt.lowerBound, "certificate first, then key")
        // openssl agrees that the certificate and key in the combined file belong together.
        let certPub = try await f.openssl("x509", "-in", "apns.pem", "-noout", "-pubkey").stdout
        let keyPub = try await f.openssl("pkey", "-in", "apns.pem", "-pubout").stdout
        #expect(!certPub.isEmpty && certPub == keyPub)
        #expect(!result.stdout.contains("s3cret") && !result.stderr.contains("s3cret"))
    }

    @Test("prepare takes the two-file guide's certificate-only and key-only p12 files")
    func prepareTwoFiles() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        #expect(try await f.openssl("pkcs12", "-export", "-legacy", "-nokeys", "-in", cert.pem, "-passout", "pass:pw", "-out", "cert.p12").status == 0)
        #expect(try await f.openssl("pkcs12", "-export", "-legacy", "-nocerts", "-inkey", cert.key, "-passout", "pass:pw", "-out", "key.p12").status == 0)
        let result = try await f.run("prepare", "cert.p12", "key.p12", "--passin", "stdin", "-o", "apns.pem", stdin: "pw\n")
        #expect(result.status == 0, "\(result)")
        #expect(try await f.openssl("x509", "-in", "apns.pem", "-noout").status == 0)
    }

    @Test("prepare --cert/--key from the .cer and the CSR's key")
    func prepareCerAndKey() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        let result = try await f.run("prepare", "--cert", cert.cer, "--key", cert.key, "-o", "apns.pem")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("subject: emailAddress=dev@example.com, CN=Example Push"))
    }

    @Test("p12 split reads the Keychain-style legacy p12 with no extra flag, chain included")
    func p12Split() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        try await f.keychainP12(cert.pem, cert.key, out: "in.p12", extra: ["-certfile", f.ca.certificate])
        let result = try await f.run("p12", "split", "in.p12", "--passin", "file:\(f.dir.file("pw"))",
                               "--cert-out", "c.pem", "--key-out", "k.pem", "--chain-out", "ch.pem")
        // The passphrase file does not exist yet: a clear input error, nothing written.
        expectFailure(result, status: 3, mentions: ["passphrase file"], noFile: "c.pem", in: f)
        _ = try f.dir.write("pw", text: "s3cret\n")
        let ok = try await f.run("p12", "split", "in.p12", "--passin", "file:\(f.dir.file("pw"))",
                           "--cert-out", "c.pem", "--key-out", "k.pem", "--chain-out", "ch.pem")
        #expect(ok.status == 0, "\(ok)")
        #expect(try f.dir.mode("k.pem") == 0o600)
        #expect(try f.dir.mode("c.pem") == 0o644)
        #expect(try await f.openssl("verify", "-CAfile", "ch.pem", "c.pem").status == 0)
        #expect(try await f.openssl("pkey", "-in", "k.pem", "-noout").status == 0)
    }

    @Test("p12 create: modern by default, --legacy readable only with openssl -legacy")
    func p12Create() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        #expect(try await f.run("combine", cert.pem, cert.key, "-o", "apns.pem").status == 0)
        let modern = try await f.run("p12", "create", "apns.pem", "--passout", "env:PW", "-o", "modern.p12", environment: ["PW": "pw"])
        #expect(modern.status == 0, "\(modern)")
        #expect(try await f.openssl("pkcs12", "-in", "modern.p12", "-passin", "pass:pw", "-noout").status == 0)
        let legacy = try await f.run("p12", "create", cert.pem, cert.key, "--chain", f.ca.certificate, "--legacy", "--passout", "env:PW", "-o", "legacy.p12", environment: ["PW": "pw"])
        #expect(legacy.status == 0, "\(legacy)")
        #expect(try f.dir.mode("legacy.p12") == 0o600)
        #expect(try await f.openssl("pkcs12", "-in", "legacy.p12", "-passin", "pass:pw", "-noout").status != 0)
        #expect(try await f.openssl("pkcs12", "-in", "legacy.p12", "-passin", "pass:pw", "-noout", "-legacy").status == 0)
        // And apnskit reads back what it wrote.
        #expect(try await f.run("p12", "split", "legacy.p12", "--passin", "pass:pw", "--cert-out", "back.pem").status == 0)
    }

    @Test("key strip removes PKCS#1 Proc-Type and PKCS#8 encryption; key encrypt adds AES-256 PKCS#8")
    func keyStripEncrypt() async throws {
        let f = try await CLIFixture()
        #expect(try await f.openssl("genpkey", "-algorithm", "RSA", "-out", "plain.pem").status == 0)
        #expect(try await f.openssl("rsa", "-in", "plain.pem", "-traditional", "-des3", "-passout", "pass:old", "-out", "pkcs1.pem").status == 0)
        #expect(String(decoding: try f.dir.read("pkcs1.pem"), as: UTF8.self).contains("Proc-Type: 4,ENCRYPTED"))
        #expect(try await f.openssl("pkcs8", "-topk8", "-in", "plain.pem", "-v2", "aes256", "-passout", "pass:old", "-out", "pkcs8.pem").status == 0)
        for input in ["pkcs1.pem", "pkcs8.pem"] {
            let stripped = try await f.run("key", "strip", input, "--passin", "env:OLD", "-o", "stripped-\(input)", environment: ["OLD": "old"])
            #expect(stripped.status == 0, "\(stripped)")
            #expect(String(decoding: try f.dir.read("stripped-\(input)"), as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
            #expect(try await f.openssl("pkey", "-in", "stripped-\(input)", "-noout").status == 0)
        }
        let traditional = try await f.run("key", "strip", "pkcs8.pem", "--passin", "env:OLD", "--traditional", "-o", "rsa.pem", environment: ["OLD": "old"])
        #expect(traditional.status == 0)
        #expect(String(decoding: try f.dir.read("rsa.pem"), as: UTF8.self).hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        let encrypted = try await f.run("key", "encrypt", "rsa.pem", "--passout", "env:NEW", "-o", "enc.pem", environment: ["NEW": "new-pass"])
        #expect(encrypted.status == 0, "\(encrypted)")
        #expect(try await f.openssl("pkey", "-in", "enc.pem", "-passin", "pass:new-pass", "-noout").status == 0)
        #expect(try f.dir.mode("enc.pem") == 0o600)
    }

    @Test("combine accepts a DER certificate and an encrypted key; blocks in certificate, chain, key order")
    func combine() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        #expect(try await f.run("key", "encrypt", cert.key, "--passout", "pass:pw", "-o", "enc.key").status == 0)
        let result = try await f.run("combine", cert.cer, "enc.key", "--passin", "pass:pw", "--chain", f.ca.certificate, "-o", "apns.pem")
        #expect(result.status == 0, "\(result)")
        let text = String(decoding: try f.dir.read("apns.pem"), as: UTF8.self)
        #expect(text.components(separatedBy: "BEGIN CERTIFICATE").count == 3)
        #expect(text.hasSuffix("-----END PRIVATE KEY-----\n"))
        #expect(try await f.openssl("verify", "-CAfile", f.ca.certificate, "apns.pem").status == 0)
    }

    @Test("Key-bearing files are 0600 even when the umask is 000")
    func umaskZero() async throws {
        let f = try await CLIFixture()
        let result = try await ProcessRunner.run("/bin/sh", ["-c", "umask 000; exec \"$0\" keygen -o key.pem", Binaries.apnskit], directory: f.dir.path)
        #expect(result.status == 0, "\(result)")
        #expect(try f.dir.mode("key.pem") == 0o600)
    }
}
