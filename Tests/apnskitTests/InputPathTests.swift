// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Issue 22's input items: standard input bounded for `token inspect -`, one decoding of
/// `env:VAR` for every command, and file names that are not UTF-8 in `check DIR`.
@Suite("CLI: one bounded input path for every command (issue 22)")
struct InputPathTests {
    @Test("token inspect - refuses more than 16 MiB on standard input with exit 3 and a sentence")
    func tokenStdinBounded() async throws {
        let f = try await CLIFixture()
        let huge = String(repeating: "a", count: 16 * 1024 * 1024 + 1)
        let refused = try await f.run("token", "inspect", "-", stdin: huge)
        #expect(refused.status == 3, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr == "apnskit: Standard input is larger than 16 MiB; that is not a provider token.\n", "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        // A token that fits is still read from standard input.
        let read = try await f.run("token", "inspect", "-", stdin: "not.a.jwt")
        #expect(read.status == 1 && read.stdout.contains("The token would be refused by APNs."), "\(read)")
    }

    @Test("p12 split env:VAR with a base64 PKCS#12 (as CI stores it) splits it, as check reads the same variable")
    func p12SplitBase64Variable() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        try await f.keychainP12(cert.pem, cert.key, out: "push.p12", password: "pw")
        let encoded = try f.dir.read("push.p12")
        let variable = ["APNS_P12_BASE64": Data(encoded).base64EncodedString(options: .lineLength76Characters)]
        let split = try await f.run("p12", "split", "env:APNS_P12_BASE64", "--passin", "pass:pw", "--cert-out", "c.pem", "--key-out", "k.pem",
                              environment: variable)
        #expect(split.status == 0, "\(split)")
        let modulus = try await f.openssl("x509", "-in", "c.pem", "-noout", "-subject")
        #expect(modulus.status == 0 && modulus.stdout.contains("Example Push"), "\(modulus)")
        let check = try await f.run("check", "env:APNS_P12_BASE64", "--passin", "pass:pw", environment: variable)
        #expect(check.status != 3 && check.stdout.contains("[PKCS#12: certificate + matching RSA-2048 key (Example Push)]"), "\(check)")
    }

    @Test("check DIR reads a file whose name is the bytes u 0xff 0xfe .pem, shows the name escaped; naming it directly works too")
    func nonUTF8FileName() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        try FileManager.default.createDirectory(atPath: f.dir.file("certs"), withIntermediateDirectories: false)
        let pem = try f.dir.read(cert.pem)
        _ = try f.dir.write("certs/plain.pem", pem)
        // The name's bytes: not UTF-8, so it has no Swift String; made with open(2).
        let name: [UInt8] = Array(f.dir.file("certs/u").utf8) + [0xFF, 0xFE] + Array(".pem".utf8)
        let fd = open((name.map { CChar(bitPattern: $0) } + [0]), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(fd >= 0)
        _ = pem.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)

        let folder = try await f.run("check", "certs", "--min-days", "1")
        // Portal-style test certificates: WARN (not Apple's push type), but read, both of them.
        #expect(folder.stdout.contains("check passed: 2 files, 0 OK, 2 WARN, 0 FAIL, 0 UNREADABLE"), "\(folder)")
        #expect(folder.stdout.contains(#"WARN       certs/u\xff\xfe.pem: not an Apple push certificate"#), "\(folder)")
        let json = try await f.run("check", "certs", "--format", "json")
        #expect(json.stdout.contains(#"u\\xff\\xfe.pem"#), "the JSON names it escaped too: \(json.stdout)")

        // Named on the command line by its bytes (sh's printf makes them; Process takes Strings only).
        let direct = try await ProcessRunner.run("/bin/sh", ["-c", #"exec "$0" check "$(printf 'certs/u\377\376.pem')""#, Binaries.apnskit],
                                           directory: f.dir.path)
        #expect(direct.status == 0 && direct.stdout.contains("check passed: 1 file, 0 OK, 1 WARN, 0 FAIL, 0 UNREADABLE"), "\(direct)")
        #expect(direct.stdout.contains(#"certs/u\xff\xfe.pem"#), "\(direct)")
    }

    @Test("A file name with TAB, ESC and CR reaches Prometheus labels and GitHub annotations escaped, never raw")
    func controlCharactersEscaped() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        try FileManager.default.createDirectory(atPath: f.dir.file("odd"), withIntermediateDirectories: false)
        _ = try f.dir.write("odd/a\tb\u{1b}c\rd.pem", try f.dir.read(cert.pem))
        let prometheus = try await f.run("check", "odd", "--format", "prometheus")
        #expect(!prometheus.stdout.contains("\t") && !prometheus.stdout.contains("\u{1b}") && !prometheus.stdout.contains("\r"), "\(prometheus.stdout)")
        #expect(prometheus.stdout.contains(#"file="odd/a\\x09b\\x1bc\\x0dd.pem""#), "\(prometheus.stdout)")
        let github = try await f.run("check", "odd", "--format", "github")
        #expect(!github.stdout.contains("\t") && !github.stdout.contains("\u{1b}") && !github.stdout.contains("\r"), "\(github.stdout)")
        #expect(github.stdout.contains("odd/a%09b%1Bc%0Dd.pem"), "\(github.stdout)")
    }
}
