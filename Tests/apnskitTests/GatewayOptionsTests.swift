// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// push, verify and feedback share `CredentialOptions`/`IdentityOptions` and `GatewayOptions`:
/// the same input must get the same sentence and exit code from each. None of these reach a
/// gateway: they fail in validation, or on a local file before connecting.
@Suite("CLI: push, verify and feedback answer the same gateway and credential input the same way")
struct GatewayOptionsTests {
    static let token = String(repeating: "ab", count: 32)

    /// Each command with input that passes its own checks, so only `extra` decides.
    static func commands(identity: [String] = ["apns.pem"], _ extra: [String]) -> [[String]] {
        [["push"] + identity + ["--token", token, "--alert", "x"] + extra,
         ["verify"] + identity + extra,
         ["feedback"] + identity + extra]
    }

    static func errorLines(_ result: ProcessResult) -> [Substring] {
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("apnskit: ") && !$0.hasPrefix("apnskit: warning") }
    }

    /// Runs every command line; expects `status`, `mentions`, and one identical sentence from all.
    func expectSameFailure(_ lines: [[String]], status: Int32, mentions: [String], in f: CLIFixture,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var sentences: Set<String> = []
        for arguments in lines {
            let result = try await f.run(arguments)
            expectFailure(result, status: status, mentions: mentions, sourceLocation: sourceLocation)
            sentences.insert(Self.errorLines(result).map(String.init).joined(separator: "\n"))
        }
        #expect(sentences.count == 1, "one sentence for all: \(sentences)", sourceLocation: sourceLocation)
    }

    @Test("The same bad --gateway, --port or --timeout: the same sentence and exit 2 from push, verify and feedback",
          arguments: [
              (["--gateway", "localhost"], "--gateway localhost is not HOST:PORT (a port from 1 to 65535)."),
              (["--gateway", "localhost:0"], "--gateway localhost:0 is not HOST:PORT (a port from 1 to 65535)."),
              (["--gateway", "127.0.0.1:2197", "--port", "2197"], "--port applies to Apple's hosts; put the port in --gateway HOST:PORT instead."),
              (["--port", "0"], "--port must be between 1 and 65535."),
              (["--port", "65536"], "--port must be between 1 and 65535."),
              (["--timeout", "0"], "--timeout must be a positive number of seconds, at most 86400."),
              (["--timeout", "1e308"], "--timeout must be a positive number of seconds, at most 86400."),
              (["--timeout", "nan"], "--timeout must be a positive number of seconds, at most 86400."),
              (["--timeout", "soon"], "'soon' is invalid for '--timeout"),
          ])
    func badGatewayInput(extra: [String], sentence: String) async throws {
        let f = try await CLIFixture()
        try await expectSameFailure(Self.commands(extra), status: 2, mentions: [sentence], in: f)
    }

    @Test("HTTP/2 takes Apple's ports 443 and 2197 only, in push and verify; the legacy gateway and feedback take any port")
    func portsPerService() async throws {
        let f = try await CLIFixture()
        let (push, verify, feedback) = (Self.commands([])[0], Self.commands([])[1], Self.commands([])[2])
        try await expectSameFailure([push + ["--port", "8443"], verify + ["--port", "8443"]], status: 2,
                              mentions: ["--port must be 443 or 2197."], in: f)
        // Past validation, each stops at the missing identity file: the port was accepted.
        let accepted = [push + ["--port", "2197"], verify + ["--port", "2197"], push + ["--legacy", "--port", "8443"],
                        verify + ["--legacy", "--port", "8443"], feedback + ["--port", "8443"]]
        try await expectSameFailure(accepted, status: 3, mentions: ["apns.pem does not exist"], in: f)
    }

    @Test("verify, like push, takes the key id from AuthKey_KEYID.p8; only a renamed key needs --key-id")
    func keyIDFromFileName() async throws {
        let f = try await CLIFixture()
        let push = ["push", "--token", Self.token, "--alert", "x", "--topic", "com.example.app"]
        // Named like the portal's file: no usage error, both stop at the missing file.
        let named = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456"]
        try await expectSameFailure([push + named, ["verify"] + named], status: 3, mentions: ["AuthKey_ABC123DEFG.p8 does not exist"], in: f)
        let renamed = ["--auth-key", "key.p8", "--team-id", "TEAM123456"]
        try await expectSameFailure([push + renamed, ["verify"] + renamed], status: 2,
                              mentions: ["Cannot tell the key ID of key.p8", "--key-id"], in: f)
        let noTeam = ["--auth-key", "AuthKey_ABC123DEFG.p8"]
        try await expectSameFailure([push + noTeam, ["verify"] + noTeam], status: 2, mentions: ["--auth-key needs --team-id."], in: f)
        let legacy = named + ["--legacy"]
        try await expectSameFailure([push + legacy, ["verify"] + legacy], status: 2, mentions: ["The legacy gateway has no token auth"], in: f)
    }

    @Test("A malformed --key-id or a key that is not P-256 is refused before connecting, by push and verify alike")
    func tokenKeyCheckedBeforeConnecting() async throws {
        let f = try await CLIFixture()
        #expect(try await f.run("keygen", "--type", "ec256", "-o", "AuthKey_ABC123DEFG.p8").status == 0)
        #expect(try await f.run("keygen", "--type", "rsa2048", "-o", "AuthKey_RSA1234567.p8").status == 0)
        let push = ["push", "--token", Self.token, "--alert", "x", "--topic", "com.example.app", "--gateway", "127.0.0.1:1"]
        let verify = ["verify", "--gateway", "127.0.0.1:1"]
        let badID = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--key-id", "short", "--team-id", "TEAM123456"]
        try await expectSameFailure([push + badID, verify + badID], status: 2, mentions: ["Key ID 'short' is not a 10-character"], in: f)
        let rsa = ["--auth-key", "AuthKey_RSA1234567.p8", "--team-id", "TEAM123456"]
        try await expectSameFailure([push + rsa, verify + rsa], status: 3, mentions: ["Token auth needs the P-256 key"], in: f)
        // --passin opens an encrypted key in both (push used to ignore it): the key id is then the problem.
        #expect(try await f.run("key", "encrypt", "AuthKey_ABC123DEFG.p8", "--passout", "pass:pw", "-o", "AuthKey_ENC1234567.p8").status == 0)
        let encrypted = ["--auth-key", "AuthKey_ENC1234567.p8", "--key-id", "short", "--team-id", "TEAM123456", "--passin", "pass:pw"]
        try await expectSameFailure([push + encrypted, verify + encrypted], status: 2, mentions: ["Key ID 'short' is not a 10-character"], in: f)
    }

    @Test("An unreadable --ca-file: exit 3 and the same sentence from push, verify and feedback, before connecting")
    func unreadableCAFile() async throws {
        let f = try await CLIFixture()
        let cert = try await f.portalCertificate()
        let lines = Self.commands(identity: [cert.pem, cert.key], ["--ca-file", "missing-ca.pem", "--gateway", "127.0.0.1:1"])
        try await expectSameFailure(lines, status: 3, mentions: ["Cannot read the CA file missing-ca.pem; check the path."], in: f)
    }

    @Test("Help shows the shared options with texts true for each command")
    func help() async throws {
        let f = try await CLIFixture()
        for command in ["push", "verify", "feedback"] {
            let help = try await f.run(command, "--help")
            #expect(help.status == 0, "\(help)")
            for option in ["--passin", "--environment", "--gateway", "--port", "--ca-file", "--timeout", "--format", "--verbose"] {
                #expect(help.stdout.contains(option), "\(command) --help lacks \(option)")
            }
            #expect(help.stdout.contains("--key-id") == (command != "feedback"))
            #expect(help.stdout.contains("--legacy") == (command != "feedback"))
        }
        let verify = try await f.run("verify", "--help").stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(verify.contains("(default: from the file name)"), "\(verify)")
    }
}
