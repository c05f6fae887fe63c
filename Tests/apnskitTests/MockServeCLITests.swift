// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

@Suite("CLI: mock ca, issue, serve; verify against it")
struct MockServeCLITests {
    @Test("mock serve prints its ports, verify accepts a mock-issued certificate, SIGTERM stops it cleanly")
    func serveAndVerify() async throws {
        let f = try await CLIFixture()
        #expect(try await f.run("mock", "ca", "-o", "mockca").status == 0)
        #expect(try await f.run("csr", "--email", "d@example.com", "--common-name", "Push", "--key-out", "push.key", "--csr-out", "push.csr").status == 0)
        let issued = try await f.run("mock", "issue", "push.csr", "--ca", "mockca", "--bundle-id", "com.example.app", "--type", "development", "-o", "aps_development.cer")
        #expect(issued.status == 0, "\(issued)")
        #expect(try await f.run("combine", "aps_development.cer", "push.key", "-o", "apns.pem").status == 0)
        let key = try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--key-id", "ABC123DEFG", "-o", ".")
        #expect(key.status == 0, "\(key)")
        #expect(try f.dir.mode("AuthKey_ABC123DEFG.p8") == 0o600)

        let (server, ports) = try await BackgroundProcess.mockServe(["--ca", "mockca", "--port", "0", "--legacy-port", "0", "--feedback-port", "0",
                                                                    "--record", "record.jsonl"], portsFile: "ports.json", directory: f.dir.path)
        let port = try #require(ports["provider"] as? Int)
        #expect(server.stdout.contains("provider API (HTTP/2): 127.0.0.1:\(port)"))

        let verify = try await f.run("verify", "apns.pem", "--gateway", "127.0.0.1:\(port)", "--ca-file", "mockca/ca-bundle.pem")
        #expect(verify.status == 0, "\(verify)")
        let token = try await f.run("verify", "--auth-key", "AuthKey_ABC123DEFG.p8", "--key-id", "ABC123DEFG", "--team-id", "TEAM123456",
                              "--topic", "com.example.app", "--gateway", "127.0.0.1:\(port)", "--ca-file", "mockca/ca-bundle.pem")
        #expect(token.status == 0, "\(token)")
        // Without --key-id, as push takes it: from the portal's file name.
        let defaulted = try await f.run("verify", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456",
                                  "--topic", "com.example.app", "--gateway", "127.0.0.1:\(port)", "--ca-file", "mockca/ca-bundle.pem")
        #expect(defaulted.status == 0, "\(defaulted)")
        #expect(defaulted.stdout.contains("Token auth: key ABC123DEFG, team TEAM123456."), "\(defaulted)")
        let wrongTeam = try await f.run("verify", "--auth-key", "AuthKey_ABC123DEFG.p8", "--key-id", "ABC123DEFG", "--team-id", "OTHER12345",
                                  "--topic", "com.example.app", "--gateway", "127.0.0.1:\(port)", "--ca-file", "mockca/ca-bundle.pem")
        #expect(wrongTeam.status == 1, "\(wrongTeam)")

        #expect(await server.stop() == 143)
        #expect(server.stderr.contains("mock gateway stopped"))
        #expect(server.stderr.contains("connection #"))
    }

    @Test("mock serve refuses a folder that is not a mock CA, and bad fault flags, with exit codes 3 and 2")
    func badServeInput() async throws {
        let f = try await CLIFixture()
        let notCA = try await f.run("mock", "serve", "--ca", "nowhere", "--port", "0")
        #expect(notCA.status == 3, "\(notCA)")
        #expect(try await f.run("mock", "serve", "--ca", "x", "--fail-rate", "404:0.5").status == 2)
        #expect(try await f.run("mock", "serve", "--ca", "x", "--drop-mode", "sometimes").status == 2)
        let noConnections = try await f.run("mock", "serve", "--ca", "x", "--max-connections", "0")
        #expect(noConnections.status == 2 && noConnections.stderr.contains("--max-connections must be at least 1."), "\(noConnections)")
    }
}
