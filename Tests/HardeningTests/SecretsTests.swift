// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 7, secrets: passphrases and private key material never reach stdout, stderr or an
    /// error message (only the key files a command was asked to write); key-bearing files are
    /// 0600 whatever the umask; a killed write leaves neither a partial output nor a temp file.
    @Suite("Hardening: secrets stay secret")
    struct SecretsTests {
        static let environmentPass = "EnvSecret-7f3a9c"
        static let filePass = "FileSecret-91bc2d"
        static let stdinPass = "StdinSecret-22de81"
        static let literalPass = "LiteralSecret-5e0f44"
        static let wrongPass = "WrongGuess-441177"

        @Test("No passphrase and no private key body in any output or error, for every credential command and passphrase source")
        func noSecretsInOutput() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            _ = try w.dir.write("pass.txt", text: Self.filePass + "\n")
            let environment = ["APNS_SECRET": Self.environmentPass, "APNS_WRONG": Self.wrongPass]
            let sources: [(source: String, stdin: String?)] = [
                ("env:APNS_SECRET", nil), ("file:pass.txt", nil), ("stdin", Self.stdinPass + "\n"), ("pass:\(Self.literalPass)", nil),
            ]
            for (index, (source, stdin)) in sources.enumerated() {
                func okArray(_ arguments: [String]) async throws { _ = try await w.expectSuccess(arguments, stdin: stdin, environment: environment) }
                func ok(_ arguments: String...) async throws { try await okArray(arguments) }
                func fails(_ arguments: String..., stdin input: String? = nil) async throws {
                    let result = try await w.run(arguments, stdin: input, environment: environment)
                    #expect(result.status == 3, "apnskit \(arguments.joined(separator: " ")): \(result)")
                }
                let legacy = index % 2 == 0 ? ["--legacy"] : []
                try await ok("keygen", "--type", "ec256", "--encrypt", "--passout", source, "-o", "gen\(index).key", "--verbose")
                try await ok("key", "encrypt", "push.key", "--passout", source, "-o", "enc\(index).key", "--verbose")
                try await ok("key", "strip", "enc\(index).key", "--passin", source, "-o", "plain\(index).key", "--verbose")
                try await ok("key", "strip", "enc\(index).key", "--passin", source, "--traditional", "-o", "trad\(index).key", "--verbose")
                try await ok("key", "strip", "gen\(index).key", "--passin", source, "-o", "genplain\(index).key")
                try await okArray(["p12", "create", "push.cer", "push.key", "--chain", "ca/wwdr.pem", "--passout", source,
                        "-o", "bundle\(index).p12", "--verbose"] + legacy)
                try await ok("p12", "split", "bundle\(index).p12", "--passin", source, "--cert-out", "c\(index).pem", "--key-out", "k\(index).key",
                       "--chain-out", "ch\(index).pem", "--verbose")
                try await ok("prepare", "bundle\(index).p12", "--passin", source, "-o", "apns\(index).pem", "--verbose")
                try await ok("combine", "push.cer", "enc\(index).key", "--passin", source, "-o", "combined\(index).pem", "--verbose")
                try await ok("csr", "--email", "dev@example.com", "--common-name", "Again", "--key", "enc\(index).key", "--passin", source,
                       "--csr-out", "again\(index).csr", "--verbose")
                try await ok("csr", "--type", "ec256", "--email", "dev@example.com", "--common-name", "New", "--passout", source,
                       "--key-out", "csrkey\(index).key", "--csr-out", "new\(index).csr", "--verbose")
                try await ok("inspect", "bundle\(index).p12", "enc\(index).key", "--passin", source)
                try await ok("inspect", "bundle\(index).p12", "--passin", source, "--format", "json")
                _ = try await w.run(["check", "bundle\(index).p12", "apns\(index).pem", "--passin", source], stdin: stdin, environment: environment)
                // Wrong, missing and damaged: the error must not echo what was given.
                try await fails("key", "strip", "enc\(index).key", "--passin", "env:APNS_WRONG", "-o", "w.key", "--verbose")
                try await fails("key", "strip", "enc\(index).key", "--passin", "pass:\(Self.wrongPass)", "-o", "w.key", "--verbose")
                try await fails("key", "strip", "enc\(index).key", "-o", "w.key", "--verbose")
                try await fails("p12", "split", "bundle\(index).p12", "--passin", "stdin", "--cert-out", "w.pem", "--verbose", stdin: Self.wrongPass + "\n")
                try await fails("p12", "split", "bundle\(index).p12", "--cert-out", "w.pem", "--verbose")
                try await fails("prepare", "bundle\(index).p12", "--passin", "env:APNS_WRONG", "-o", "w.pem", "--verbose")
                try await fails("combine", "push.cer", "enc\(index).key", "--passin", "env:APNS_WRONG", "-o", "w.pem", "--verbose")
                try await fails("inspect", "enc\(index).key", "--passin", "env:APNS_WRONG")
                let damaged = try w.dir.read("enc\(index).key")
                _ = try w.dir.write("damaged\(index).key", Array(damaged.prefix(damaged.count / 2)) + Array("\n-----END ENCRYPTED PRIVATE KEY-----\n".utf8))
                try await fails("key", "strip", "damaged\(index).key", "--passin", source, "-o", "w.key", "--verbose", stdin: stdin)
                let p12 = try w.dir.read("bundle\(index).p12")
                _ = try w.dir.write("damaged\(index).p12", Array(p12.prefix(p12.count - 40)))
                try await fails("p12", "split", "damaged\(index).p12", "--passin", source, "--cert-out", "w.pem", "--verbose", stdin: stdin)
            }
            #expect(!w.dir.exists("w.key") && !w.dir.exists("w.pem"))

            var secrets = [Self.environmentPass, Self.filePass, Self.stdinPass, Self.literalPass, Self.wrongPass]
            for name in ["push.key"] + (0..<sources.count).flatMap({ ["plain\($0).key", "trad\($0).key", "genplain\($0).key", "k\($0).key"] }) {
                secrets += try w.pemBodyLines(name)
            }
            #expect(secrets.count > 100)
            for (command, result) in w.results {
                for secret in secrets where result.stdout.contains(secret) || result.stderr.contains(secret) {
                    Issue.record("apnskit \(command) printed a secret (\(secret.prefix(6))...): \(result)")
                }
            }
        }

        @Test("Key-bearing outputs are 0600 and public ones 0644 even with umask 000")
        func umaskZero() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            let environment = ["P": "umask-pass"]
            let commands: [(arguments: [String], secret: [String], public: [String])] = [
                (["keygen", "--type", "ec256", "-o", "a.key"], ["a.key"], []),
                (["keygen", "--type", "ec256", "--encrypt", "--passout", "env:P", "-o", "b.key"], ["b.key"], []),
                (["csr", "--type", "ec256", "--email", "a@example.com", "--common-name", "U", "--key-out", "c.key", "--csr-out", "c.csr"], ["c.key"], ["c.csr"]),
                (["key", "encrypt", "push.key", "--passout", "env:P", "-o", "d.key"], ["d.key"], []),
                (["key", "strip", "d.key", "--passin", "env:P", "-o", "e.key"], ["e.key"], []),
                (["p12", "create", "push.cer", "push.key", "--passout", "env:P", "-o", "f.p12"], ["f.p12"], []),
                (["p12", "split", "f.p12", "--passin", "env:P", "--cert-out", "g.pem", "--key-out", "g.key"], ["g.key"], ["g.pem"]),
                (["prepare", "f.p12", "--passin", "env:P", "-o", "h.pem"], ["h.pem"], []),
                (["combine", "push.cer", "push.key", "-o", "i.pem"], ["i.pem"], []),
                (["import-cer", "push.cer", "-o", "j.pem"], [], ["j.pem"]),
            ]
            for command in commands {
                let result = try await w.runWithUmask("000", command.arguments, environment: environment)
                #expect(result.status == 0, "\(command.arguments): \(result)")
                for name in command.secret { #expect(try w.dir.mode(name) == 0o600, "\(name)") }
                for name in command.public { #expect(try w.dir.mode(name) == 0o644, "\(name)") }
            }
        }
    }
}
