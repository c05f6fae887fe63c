// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Faults changed while the mock runs: `PUT`/`GET /api/faults` driven by curl, and
/// `apnskit mock faults set|show|clear`; the effect is seen by `curl --http2` and `apnskit push`.
@Suite("CLI: mock faults at run time")
struct MockFaultsCLITests {
    static let token = String(repeating: "5e", count: 32)

    private func mock(_ f: CLIFixture, _ extra: [String] = []) async throws -> (server: BackgroundProcess, provider: Int, ui: Int) {
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--ui-port", "0"] + extra)
        return (server, try #require(ports["provider"] as? Int), try #require(ports["ui"] as? Int))
    }

    /// curl against the inbox API: the body, then the status on a line of its own.
    private func api(_ arguments: [String]) async throws -> (status: Int, body: String) {
        let result = try await ProcessRunner.run("/usr/bin/curl", ["--silent", "--show-error", "--max-time", "30", "--write-out", "\n%{http_code}"] + arguments)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    private func put(_ ui: Int, _ body: String, headers: [String] = []) async throws -> (status: Int, body: String) {
        try await api(["-X", "PUT", "-H", "Content-Type: application/json", "--data-binary", body] + headers + ["http://127.0.0.1:\(ui)/api/faults"])
    }

    /// One notification from curl --http2 with a provider token: the status and the body.
    private func curlPush(_ f: CLIFixture, _ provider: Int, _ jwt: String) async throws -> (status: Int, body: String) {
        let result = try await ProcessRunner.run("/usr/bin/curl", [
            "--http2", "--silent", "--max-time", "30", "--cacert", "mockca/ca-bundle.pem", "-H", "authorization: bearer \(jwt)",
            "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert", "--data", #"{"aps":{"alert":"hi"}}"#,
            "--write-out", "\n%{http_code}", "https://127.0.0.1:\(provider)/3/device/\(Self.token)"], directory: f.dir.path)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    @Test("curl PUTs a fail rate of 1.0: every curl --http2 request gets 503 ServiceUnavailable; PUT {} and they are 200 again, no restart")
    func curlChangesFaults() async throws {
        let f = try await CLIFixture()
        let (server, provider, ui) = try await mock(f)
        defer { server.kill() }
        let jwt = try await f.providerToken()
        #expect(try await curlPush(f, provider, jwt).status == 200)
        let set = try await put(ui, #"{"fail_rates": {"503": 1.0}, "delay_ms": 20}"#)
        #expect(set.status == 200, "\(set)")
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(set.body.utf8)) as? [String: Any])
        #expect((shown["fail_rates"] as? [String: Any])?["503"] as? Int == 1 && shown["delay_ms"] as? Int == 20, "\(shown)")
        for _ in 0..<3 {
            let answer = try await curlPush(f, provider, jwt)
            #expect(answer.status == 503 && answer.body == #"{"reason":"ServiceUnavailable"}"#, "\(answer)")
        }
        let current = try await api(["http://127.0.0.1:\(ui)/api/faults"])
        #expect(current.status == 200 && current.body.contains(#""fail_rates":{"503":1}"#), "\(current)")
        let cleared = try await put(ui, "{}")
        #expect(cleared.status == 200 && cleared.body == #"{"fail_rates":{},"goaway_after":0,"drop_after":0,"drop_mode":"accepted","delay_ms":0,"unregister":[]}"#, "\(cleared)")
        #expect(try await curlPush(f, provider, jwt).status == 200)
        // The inbox shows the walk: 200, three 503s, 200.
        let statuses = try await api(["http://127.0.0.1:\(ui)/api/notifications"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(statuses.body.utf8)) as? [String: Any])
        #expect((list["notifications"] as? [[String: Any]])?.compactMap { $0["status"] as? Int } == [200, 503, 503, 503, 200], "\(list)")
        // GOAWAY after 1 request, set at run time: curl's connection gets its answer, then GOAWAY.
        #expect(try await put(ui, #"{"goaway_after": 1}"#).status == 200)
        let verbose = try await ProcessRunner.run("/usr/bin/nghttp", ["-v", "--timeout=20", "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app",
                                                                     "-d", "/dev/null", "https://127.0.0.1:\(provider)/3/device/\(Self.token)"], directory: f.dir.path)
        #expect(verbose.stdout.contains("recv GOAWAY frame"), "\(verbose.stdout.suffix(2000))")
    }

    /// Before: the body bound was 16 KiB, so about 245 tokens or more got 413 and exit 4.
    @Test("mock faults set --unregister with 10,000 tokens works (curl sees 410 for the last); 10,001 is exit 2; 10,000 of the longest tokens fit the body bound")
    func tenThousandTokens() async throws {
        let f = try await CLIFixture()
        let (server, provider, ui) = try await mock(f)
        defer { server.kill() }
        let tokens = (0..<10_000).map { String(format: "%064lx", 0x1_0000 + $0) }
        let set = try await f.run(["mock", "faults", "set", "--ports-file", "ports.json", "--format", "json"] + tokens.flatMap { ["--unregister", $0] })
        #expect(set.status == 0, "\(set.status) \(set.stderr)")
        let shown = try #require(try JSONSerialization.jsonObject(with: set.stdoutData) as? [String: Any], "\(set.stderr)")
        #expect((shown["unregister"] as? [String])?.count == 10_000)
        let jwt = try await f.providerToken()
        let gone = try await ProcessRunner.run("/usr/bin/curl", [
            "--http2", "--silent", "--max-time", "30", "--cacert", "mockca/ca-bundle.pem", "-H", "authorization: bearer \(jwt)",
            "-H", "apns-topic: com.example.app", "--data", #"{"aps":{"alert":"hi"}}"#, "--write-out", " %{http_code}",
            "https://127.0.0.1:\(provider)/3/device/\(tokens[9_999])"], directory: f.dir.path)
        #expect(gone.stdout.hasSuffix(" 410") && gone.stdout.contains("Unregistered"), "\(gone)")
        let over = try await f.run(["mock", "faults", "set", "--ports-file", "ports.json"] + (tokens + [String(repeating: "ff", count: 32)]).flatMap { ["--unregister", $0] })
        expectFailure(over, status: 2, mentions: ["--unregister names 10001 tokens, more than 10000"])
        // The longest tokens (100 bytes each) through the API, as curl sends them.
        let longest = (0..<10_000).map { String(format: "%0200lx", $0) }
        let bodyPath = try f.dir.write("longest.json", text: "{\"unregister\": [\"" + longest.joined(separator: "\", \"") + "\"]}")
        let answer = try await api(["-X", "PUT", "-H", "Content-Type: application/json", "--data-binary", "@\(bodyPath)", "http://127.0.0.1:\(ui)/api/faults"])
        #expect(answer.status == 200, "\(answer.status) \(answer.body.prefix(300))")
    }

    @Test("Bad bodies are 400 with one sentence and change nothing; too large 413; another site's Origin and Host 403")
    func badBodies() async throws {
        let f = try await CLIFixture()
        let (server, _, ui) = try await mock(f, ["--fail-rate", "429:0.5"])
        defer { server.kill() }
        let cases: [(String, String)] = [
            ("not json", "The body is not a JSON object"),
            ("[1]", "The body is not a JSON object"),
            (#"{"fail_rate": {"503": 1}}"#, "unknown field 'fail_rate': use fail_rates, goaway_after, drop_after, drop_mode, delay_ms, unregister."),
            (#"{"unregister": ["not-hex"]}"#, "unregister: 'not-hex' is not a device token (hex digits)."),
            (#"{"unregister": "5e5e"}"#, "unregister must be a list of device tokens (hex)."),
            (#"{"fail_rates": {"503": 2}}"#, "fail rate 2.0 for 503 must be a fraction from 0 to 1"),
            (#"{"fail_rates": {"404": 0.5}}"#, "fail rate status 404 cannot be injected; use 429, 500 or 503."),
            (#"{"fail_rates": {"503": true}}"#, "fail_rates must be an object of status to fraction"),
            (#"{"fail_rates": {"five": 0.5}}"#, "must be a status: 429, 500 or 503."),
            (#"{"delay_ms": 60001}"#, "delay_ms (--delay-ms) must be from 0 to 60000 milliseconds."),
            (#"{"delay_ms": 1.5}"#, "delay_ms must be a whole number of milliseconds."),
            (#"{"goaway_after": -1}"#, "goaway_after (--goaway-after) must be 0 (never) or a number of requests."),
            (#"{"drop_mode": "sometimes"}"#, "drop_mode must be accepted, answered or unprocessed."),
        ]
        for (body, message) in cases {
            let answer = try await put(ui, body)
            #expect(answer.status == 400 && answer.body.contains(message), "\(body): \(answer)")
        }
        // One byte past the bound (2 MiB, InboxRoutes.maxFaultsBody), from a file: too long for one argument.
        let largePath = try f.dir.write("large.json", text: "{\"delay_ms\": 1" + String(repeating: " ", count: 2 * 1024 * 1024 - 14) + "}")
        let large = try await api(["-X", "PUT", "-H", "Content-Type: application/json", "--data-binary", "@\(largePath)", "http://127.0.0.1:\(ui)/api/faults"])
        #expect(large.status == 413 && large.body.contains("larger than 2097152 bytes"), "\(large.status) \(large.body.prefix(300))")
        let foreign = try await put(ui, "{}", headers: ["-H", "Origin: http://evil.example"])
        #expect(foreign.status == 403 && foreign.body.contains("another site"), "\(foreign)")
        let rebound = try await put(ui, "{}", headers: ["-H", "Host: evil.example"])
        #expect(rebound.status == 403, "\(rebound)")
        // None of them changed the faults mock serve started with.
        let current = try await api(["http://127.0.0.1:\(ui)/api/faults"])
        #expect(current.body == #"{"fail_rates":{"429":0.5},"goaway_after":0,"drop_after":0,"drop_mode":"accepted","delay_ms":0,"unregister":[]}"#, "\(current)")
    }

    @Test("mock faults walks apnskit push through an outage in one run: set 503, push fails; clear, push delivers")
    func cliWalksAnOutage() async throws {
        let f = try await CLIFixture()
        let (server, provider, ui) = try await mock(f)
        defer { server.kill() }
        let push = ["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--token", Self.token,
                    "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem", "--topic", "com.example.app", "--alert", "Hi"]
        #expect(try await f.run(push).status == 0)
        let set = try await f.run(["mock", "faults", "set", "--ports-file", "ports.json", "--fail-rate", "503:1.0", "--delay-ms", "10"])
        #expect(set.status == 0 && set.stdout == "Faults in force at http://127.0.0.1:\(ui): 503 for 100% of valid requests, delay 10 ms.\n", "\(set)")
        let failing = try await f.run(push)
        #expect(failing.status == 1 && failing.stdout.contains("503 ServiceUnavailable"), "\(failing)")
        let shown = try await f.run(["mock", "faults", "show", "--ui", "http://127.0.0.1:\(ui)", "--format", "json"])
        #expect(shown.stdout == #"{"delay_ms":10,"drop_after":0,"drop_mode":"accepted","fail_rates":{"503":1},"goaway_after":0,"unregister":[]}"# + "\n", "\(shown)")
        let cleared = try await f.run(["mock", "faults", "clear", "--ports-file", "ports.json"])
        #expect(cleared.status == 0 && cleared.stdout.hasSuffix(": none.\n"), "\(cleared)")
        #expect(try await f.run(push).status == 0)
        // `set` replaces: a flag not given is off.
        #expect(try await f.run(["mock", "faults", "set", "--ports-file", "ports.json", "--goaway-after", "5"]).stdout.hasSuffix(": GOAWAY after 5 requests.\n"))
    }

    @Test("--unregister at run time: push gets 410 Unregistered with the rule's timestamp and lists the token in --invalid-tokens; others are delivered; clear and it is delivered again")
    func unregisterAtRunTime() async throws {
        let f = try await CLIFixture()
        let (server, provider, ui) = try await mock(f)
        defer { server.kill() }
        let gone = String(repeating: "0a", count: 32)
        _ = try f.dir.write("tokens.txt", text: "\(Self.token)\n\(gone)\n")
        let push = ["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--tokens", "tokens.txt", "--invalid-tokens", "invalid.txt",
                    "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem", "--topic", "com.example.app", "--alert", "Hi", "--force"]
        let before = Int(Date().timeIntervalSince1970 * 1000)
        let set = try await f.run(["mock", "faults", "set", "--ports-file", "ports.json", "--unregister", gone.uppercased()])
        #expect(set.status == 0 && set.stdout.hasSuffix(": 1 token unregistered (0a0a0a0a0a0a0a0a...).\n"), "\(set)")
        let sent = try await f.run(push)
        #expect(sent.status == 1 && sent.stdout.contains("1 delivered, 1 rejected"), "\(sent)")
        #expect(String(decoding: try f.dir.read("invalid.txt"), as: UTF8.self).contains(gone), "the 410 token is listed for deletion")
        let list = try await api(["http://127.0.0.1:\(ui)/api/notifications?status=410"])
        #expect(list.body.contains(#""reason":"Unregistered""#), "\(list)")
        // curl sees the 410's body, with the time the rule was made.
        let jwt = try await f.providerToken()
        let result = try await ProcessRunner.run("/usr/bin/curl", [
            "--http2", "--silent", "--max-time", "30", "--cacert", "mockca/ca-bundle.pem", "-H", "authorization: bearer \(jwt)",
            "-H", "apns-topic: com.example.app", "--data", #"{"aps":{"alert":"hi"}}"#, "https://127.0.0.1:\(provider)/3/device/\(gone)"], directory: f.dir.path)
        let body = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any], "\(result)")
        let timestamp = try #require(body["timestamp"] as? Int, "\(body)")
        #expect(body["reason"] as? String == "Unregistered" && timestamp >= before && timestamp <= Int(Date().timeIntervalSince1970 * 1000), "\(body)")
        #expect(try await f.run(["mock", "faults", "clear", "--ports-file", "ports.json"]).status == 0)
        #expect(try await f.run(push).status == 0)
        expectFailure(try await f.run(["mock", "faults", "set", "--ports-file", "ports.json", "--unregister", "xyz"]), status: 2,
                      mentions: ["--unregister 'xyz' is not a device token; give its hex digits."])
    }

    @Test("mock faults: bad flags exit 2, a ports file without the inbox 3, nothing listening 4, the token beyond loopback")
    func exitCodes() async throws {
        let f = try await CLIFixture()
        expectFailure(try await f.run(["mock", "faults", "show"]), status: 2, mentions: ["--ui URL or --ports-file FILE"])
        expectFailure(try await f.run(["mock", "faults", "set", "--ui", "http://127.0.0.1:1", "--fail-rate", "404:1"]), status: 2,
                      mentions: ["--fail-rate '404:1' must be STATUS:FRACTION"])
        expectFailure(try await f.run(["mock", "faults", "set", "--ui", "http://127.0.0.1:1", "--delay-ms", "60001"]), status: 2,
                      mentions: ["--delay-ms must be from 0 to 60000 milliseconds."])
        expectFailure(try await f.run(["mock", "faults", "set", "--ui", "http://127.0.0.1:1", "--drop-mode", "never"]), status: 2,
                      mentions: ["--drop-mode must be accepted, answered or unprocessed."])
        _ = try f.dir.write("noui.json", text: #"{"provider": 1234}"#)
        expectFailure(try await f.run(["mock", "faults", "clear", "--ports-file", "noui.json"]), status: 3, mentions: ["has no \"ui\" port"])
        let closed = ReservedPort()
        expectFailure(try await f.run(["mock", "faults", "show", "--ui", "http://127.0.0.1:\(closed.port)"]), status: 4,
                      mentions: ["Cannot reach the inbox at http://127.0.0.1:\(closed.port)"])
        withExtendedLifetime(closed) {}
        // mock serve refuses the same values with the same flags.
        try await f.prepareMock()
        expectFailure(try await f.run(["mock", "serve", "--ca", "mockca", "--delay-ms=-1"]), status: 2, mentions: ["--delay-ms must be from 0 to 60000"])

        // Beyond loopback the API wants the token: the ports file carries it, --ui-token gives it.
        let (exposed, ports) = try await f.startMock(["--ui-port", "0", "--ui-address", "0.0.0.0"])
        defer { exposed.kill() }
        let ui = try #require(ports["ui"] as? Int)
        let token = try #require(ports["ui_token"] as? String)
        #expect(try await f.run(["mock", "faults", "set", "--ports-file", "ports.json", "--fail-rate", "429:0.25"]).status == 0)
        expectFailure(try await f.run(["mock", "faults", "show", "--ui", "http://127.0.0.1:\(ui)"]), status: 2, mentions: ["wants its access token"])
        let shown = try await f.run(["mock", "faults", "show", "--ui", "http://127.0.0.1:\(ui)", "--ui-token", token])
        #expect(shown.status == 0 && shown.stdout.hasSuffix(": 429 for 25% of valid requests.\n"), "\(shown)")
        let anonymous = try await put(ui, "{}")
        #expect(anonymous.status == 401, "\(anonymous)")
    }
}
