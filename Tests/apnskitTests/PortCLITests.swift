// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Ports anywhere a user or a file gives one (issue 31, medium 1), and the small promises
/// around them: the ports file holding the inbox's token is 0600, a malformed `--ui` does not
/// print the token, `--print-curl` keeps the proxy, an unknown subcommand with `--help` is a
/// usage error.
@Suite("CLI: ports are 1 to 65535 everywhere; ports file mode; --print-curl's proxy; unknown subcommands")
struct PortCLITests {
    static let token = String(repeating: "ab", count: 32)
    let credentials = ["--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app"]

    /// Before: `--proxy http://127.0.0.1:99999` dialled 34463, `...:18446744073709586079` 1080,
    /// and `--ui`, `--revocation-url` wrapped the same way.
    @Test("--proxy, https_proxy, --gateway, --ui, --webhook, mock ca --revocation-url and a ports file refuse a port outside 1-65535 with one sentence")
    func portsOutOfRange() async throws {
        let f = try await CLIFixture()
        let push = ["push", "--token", Self.token, "--alert", "hi"] + credentials
        for port in ["99999", "18446744073709586079", "0", "-1", "65536"] {
            expectFailure(try await f.run(push + ["--proxy", "http://127.0.0.1:\(port)"]), status: 2, mentions: ["--proxy"])
            expectFailure(try await f.run(push, environment: ["https_proxy": "http://127.0.0.1:\(port)", "no_proxy": "", "NO_PROXY": ""]), status: 2,
                          mentions: ["The environment's proxy setting"])
            expectFailure(try await f.run(push + ["--gateway", "127.0.0.1:\(port)"]), status: 2, mentions: ["--gateway"])
            expectFailure(try await f.run(["mock", "expect", "--ui", "http://127.0.0.1:\(port)"]), status: 2, mentions: ["--ui"])
            expectFailure(try await f.run(["mock", "ca", "-o", "ca-\(port)", "--revocation-url", "http://127.0.0.1:\(port)"]), status: 2,
                          mentions: ["--revocation-url"], noFile: "ca-\(port)", in: f)
            expectFailure(try await f.run(["mock", "serve", "--ca", "none", "--webhook", "http://127.0.0.1:\(port)/hook"]), status: 2, mentions: ["--webhook"])
        }
        let proxy = try await f.run(push + ["--proxy", "http://127.0.0.1:99999"])
        #expect(proxy.stderr.contains("has the port 99999; a port is 1 to 65535"), "\(proxy.stderr)")
        let ui = try await f.run(["mock", "expect", "--ui", "http://127.0.0.1:18446744073709586079"])
        #expect(ui.stderr.contains("has the port 18446744073709586079; a port is 1 to 65535"), "\(ui.stderr)")
        // A ports file is input: exit 3, one sentence.
        for value in ["99999", "0", "-5", "1e19", "\"8025\""] {
            _ = try f.dir.write("ports.json", text: #"{"provider": 2197, "ui": \#(value)}"#)
            expectFailure(try await f.run(["mock", "expect", "--ports-file", "ports.json"]), status: 3, mentions: ["ports.json", "\"ui\" port"])
        }
    }

    @Test("mock ca --revocation-url refuses port 0, credentials, a fragment and 0.0.0.0; a good one is written")
    func revocationURLs() async throws {
        let f = try await CLIFixture()
        let cases = [("http://127.0.0.1:0", "a port is 1 to 65535"), ("http://user:pw@127.0.0.1:8888", "user name or password"),
                     ("http://127.0.0.1:8888/#frag", "path, query or fragment"), ("http://127.0.0.1:8888#frag", "path, query or fragment"),
                     ("http://0.0.0.0:8888", "listens on every interface"), ("http://[::]:8888", "listens on every interface"),
                     ("https://127.0.0.1:8888", "not an http:// URL")]
        for (index, (url, words)) in cases.enumerated() {
            let result = try await f.run(["mock", "ca", "-o", "ca\(index)", "--revocation-url", url])
            expectFailure(result, status: 2, mentions: [words], noFile: "ca\(index)", in: f)
            #expect(!result.stderr.contains("pw@"), "\(result.stderr)")
        }
        let good = try await f.run(["mock", "ca", "-o", "good", "--revocation-url", "http://127.0.0.1:8888"])
        #expect(good.status == 0, "\(good)")
    }

    @Test("A malformed --ui with ?token= never prints the token; the ports file holding ui_token is 0600, without it 0644")
    func tokenStaysSecret() async throws {
        let f = try await CLIFixture()
        for url in ["http://127.0.0.1:x?token=SECRET123", "http://127.0.0.1:99999/?token=SECRET123", "ftp://127.0.0.1:80/?token=SECRET123"] {
            let result = try await f.run(["mock", "expect", "--ui", url])
            expectFailure(result, status: 2, mentions: ["--ui"])
            #expect(!result.stderr.contains("SECRET123") && !result.stdout.contains("SECRET123"), "\(result)")
        }
        try await f.prepareMock()
        let (exposed, ports) = try await f.startMock(["--ui-port", "0", "--ui-address", "0.0.0.0"], portsFile: "exposed.json")
        defer { exposed.kill() }
        #expect(ports["ui_token"] is String, "\(ports)")
        let secretMode = try FileManager.default.attributesOfItem(atPath: f.dir.file("exposed.json"))[.posixPermissions] as? Int
        #expect(secretMode == 0o600, "\(String(describing: secretMode))")
        let (local, _) = try await f.startMock(["--ui-port", "0"], portsFile: "local.json")
        defer { local.kill() }
        let publicMode = try FileManager.default.attributesOfItem(atPath: f.dir.file("local.json"))[.posixPermissions] as? Int
        #expect(publicMode == 0o644, "\(String(describing: publicMode))")
    }

    @Test("--print-curl keeps --proxy (the user, never the password); curl runs it through the proxy")
    func printCurlKeepsProxy() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let print = ["push", "--token", Self.token, "--alert", "hi", "--print-curl", "--gateway", "127.0.0.1:2197"] + credentials
        let plain = try await f.run(print + ["--proxy", "http://127.0.0.1:3128"])
        #expect(plain.status == 0 && plain.stdout.contains("--proxy 'http://127.0.0.1:3128'"), "\(plain)")
        let withUser = try await f.run(print + ["--proxy", "http://alice:s3cret@127.0.0.1:3128"])
        #expect(withUser.stdout.contains("--proxy 'http://127.0.0.1:3128' --proxy-user 'alice'") && !withUser.stdout.contains("s3cret"), "\(withUser)")
        let fromEnvironment = try await f.run(print, environment: ["https_proxy": "http://127.0.0.1:3129", "no_proxy": "", "NO_PROXY": ""])
        #expect(fromEnvironment.stdout.contains("--proxy 'http://127.0.0.1:3129'"), "\(fromEnvironment)")
        let direct = try await f.run(print + ["--proxy", ""])
        #expect(direct.status == 0 && !direct.stdout.contains("--proxy"), "\(direct)")
    }

    @Test("An unknown subcommand with --help names it and exits 2; real ones still show their help")
    func unknownSubcommandHelp() async throws {
        let f = try await CLIFixture()
        for arguments in [["nosuchcommand", "--help"], ["nosuchcommand", "-h"], ["mock", "nosuchcommand", "--help"]] {
            let result = try await f.run(arguments)
            expectFailure(result, status: 2, mentions: ["'nosuchcommand' is not a subcommand of apnskit"])
            #expect(result.stdout.isEmpty, "\(result)")
        }
        for arguments in [["--help"], ["mock", "--help"], ["mock", "serve", "--help"], ["token", "--help"], ["help", "mock"], ["inspect", "x.pem", "--help"]] {
            let result = try await f.run(arguments)
            #expect(result.status == 0 && result.stdout.contains("USAGE"), "\(arguments): \(result)")
        }
    }
}
