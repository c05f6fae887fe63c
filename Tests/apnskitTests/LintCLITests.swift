// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `apnskit lint`, the lint in `push`, and the mock's lint marks (docs/lint.md), with curl as
/// the client we did not write.
@Suite("CLI: apnskit lint, push's lint, the mock's device marks")
struct LintCLITests {
    static let token = String(repeating: "cd", count: 32)
    static let start = #"{"aps": {"timestamp": 1764000000, "event": "start", "content-state": {"score": 0}, "attributes-type": "MatchAttributes", "attributes": {"homeTeam": "A"}}}"#

    /// Issue 30: a background push without apns-push-type gets its own mark, from the mock (curl
    /// sends it) and from `apnskit lint` alike.
    @Test("A background push without apns-push-type: the mock's record and apnskit lint both name background-push-type-missing")
    func backgroundWithoutPushType() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock(certificates: true)
        let (server, ports) = try await f.startMock(["--record", "record.jsonl"])
        let port = try #require(ports["provider"] as? Int)
        let body = #"{"aps":{"content-available":1}}"#
        let sent = try await ProcessRunner.run("curl", ["-s", "--http2", "--cacert", f.dir.file("mockca/ca-bundle.pem"), "--cert", f.dir.file("apns.pem"),
                                                        "-H", "apns-topic: com.example.app", "-H", "apns-priority: 5", "-d", body, "-w", "%{http_code}",
                                                        "https://127.0.0.1:\(port)/3/device/\(Self.token)"])
        #expect(sent.stdout.hasSuffix("200"), "\(sent)")
        #expect(await server.stop() == 143)
        let record = try String(decoding: f.dir.read("record.jsonl"), as: UTF8.self)
        #expect(record.contains(#""lint":["background-push-type-missing"]"#), "\(record)")
        _ = try f.dir.write("background.json", text: body)
        let lint = try await f.run("lint", "background.json", "--priority", "5")
        #expect(lint.status == 0 && lint.stdout.contains("warning: apns-push-type: A background push without apns-push-type") && lint.stdout.contains("[background-push-type-missing]"), "\(lint)")
        let given = try await f.run("lint", "background.json", "--priority", "5", "--push-type", "background")
        #expect(!given.stdout.contains("background-push-type-missing"), "\(given)")
    }

    @Test("lint: exit 0 clean, 0 with warnings (1 with --strict), 1 on an error, 2 usage, 3 unreadable; one line per finding")
    func exitCodes() async throws {
        let f = try await CLIFixture()
        _ = try f.dir.write("clean.json", text: #"{"aps": {"alert": {"title": "Hi", "body": "There"}, "sound": "default"}}"#)
        _ = try f.dir.write("warn.json", text: #"{"aps": {"alert": "Hi", "badge": "3"}}"#)
        _ = try f.dir.write("start.json", text: Self.start)
        let clean = try await f.run("lint", "clean.json", "--push-type", "alert", "--topic", "com.example.app", "--priority", "10")
        #expect(clean.status == 0 && clean.stdout == "clean.json: no problems found (alert push).\n", "\(clean)")
        let warn = try await f.run("lint", "warn.json")
        #expect(warn.status == 0, "\(warn)")
        #expect(warn.stdout.contains("warning: aps.badge: aps.badge is a string; it must be a whole number") && warn.stdout.contains("[badge-not-integer]"), "\(warn)")
        #expect(warn.stdout.hasSuffix("warn.json: 0 errors, 1 warning (alert push, push type worked out from the payload).\n"), "\(warn)")
        let strict = try await f.run("lint", "warn.json", "--strict")
        #expect(strict.status == 1, "\(strict)")
        let error = try await f.run("lint", "start.json", "--topic", "com.example.app", "--collapse-id", "m1")
        #expect(error.status == 1, "\(error)")
        let lines = error.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("error: apns-topic: A liveactivity push goes to the topic <bundle id>.push-type.liveactivity; com.example.app lacks the suffix") == true, "\(error)")
        #expect(lines.contains { $0.hasPrefix("error: aps.alert: A push-to-start without aps.alert is dropped by the device") && $0.hasSuffix("[la-start-without-alert]") }, "\(error)")
        #expect(lines.contains { $0.hasSuffix("[la-collapse-id-on-start]") && $0.hasPrefix("warning:") }, "\(error)")
        #expect(lines.last == "start.json: 2 errors, 1 warning (liveactivity push, push type worked out from the payload).", "\(error)")

        expectFailure(try await f.run("lint", "missing.json"), status: 3, mentions: ["missing.json"])
        expectFailure(try await f.run("lint", "clean.json", "--priority", "7"), status: 2, mentions: ["--priority must be 10, 5 or 1"])
        _ = try f.dir.write("schema.json", text: #"{"content-state": {"score": "Integer"}}"#)
        expectFailure(try await f.run("lint", "start.json", "--attributes-schema", "schema.json"), status: 3,
                      mentions: ["The attributes schema schema.json gives content-state.score the type \"Integer\""])
        // Bounded like --payload: 100 KB on stdin is refused after 64 KiB + 1 byte.
        let flood = try await f.run("lint", "-", stdin: String(repeating: " ", count: 100_000))
        expectFailure(flood, status: 3, mentions: ["larger than 64 KiB"])
    }

    @Test("lint --format json: every finding with rule, severity, path, message, apns, device and source; the schema checked")
    func jsonOutput() async throws {
        let f = try await CLIFixture()
        _ = try f.dir.write("update.json", text: #"{"aps": {"timestamp": 1764000000, "event": "update", "content-state": {"homeTeam": "A"}}}"#)
        _ = try f.dir.write("schema.json", text: #"{"attributes": {"homeTeam": "String"}, "content-state": {"score": "Int", "kickoff": "Date"}}"#)
        let result = try await f.run("lint", "update.json", "--push-type", "liveactivity", "--priority", "10", "--attributes-schema", "schema.json", "--format", "json")
        #expect(result.status == 1, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any], "\(result)")
        #expect(object["file"] as? String == "update.json" && object["push_type"] as? String == "liveactivity")
        #expect(object["errors"] as? Int == 1 && object["warnings"] as? Int == 1, "\(object)")
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(findings.map { $0["rule"] as? String } == ["la-schema-swapped", "la-priority-budget"])
        let swapped = findings[0]
        #expect(swapped["severity"] as? String == "error" && swapped["path"] as? String == "aps.content-state")
        #expect((swapped["message"] as? String)?.contains("content-state and attributes look swapped") == true)
        #expect(swapped["apns"] as? String == "200" && swapped["device"] as? String == "dropped")
        #expect(swapped["source"] as? String == "docs/apns-protocol.md §11.2")
        #expect((object["device"] as? String)?.hasPrefix("dropped: aps.content-state holds the ActivityAttributes fields (homeTeam)") == true, "\(object)")
        #expect(findings[1]["severity"] as? String == "warning" && findings[1]["device"] as? String == "throttled past the budget")
    }

    @Test("push refuses a lint error with exit 2 and the rule's sentence, sending nothing; warnings print and it sends; --no-lint skips")
    func pushRefusesLintErrors() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--record", "record.jsonl"])
        defer { server.kill() }
        let provider = try #require(ports["provider"] as? Int)
        _ = try f.dir.write("wake.json", text: #"{"aps": {"content-available": 1, "alert": "Sync done"}}"#)
        _ = try f.dir.write("badge.json", text: #"{"aps": {"alert": "Hi", "badge": "3"}}"#)
        let push = ["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app", "--token", Self.token,
                    "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"]
        let refused = try await f.run(push + ["--payload", "wake.json", "--push-type", "background"])
        expectFailure(refused, status: 2, mentions: ["Not sent: lint rule background-with-alert (aps.alert)", "--no-lint sends it anyway"])
        #expect(try f.dir.read("record.jsonl").isEmpty, "nothing may reach the gateway")

        let warned = try await f.run(push + ["--payload", "badge.json"])
        #expect(warned.status == 0, "\(warned)")
        #expect(warned.stderr.contains("apnskit: warning: aps.badge: aps.badge is a string") && warned.stderr.contains("[badge-not-integer]"), "\(warned)")

        // A batch: a line whose own payload has a lint error is invalid (not sent), the rest go.
        _ = try f.dir.write("tokens.txt", text: "\(String(repeating: "ab", count: 32)) {\"aps\": \"Hi\"}\n\(String(repeating: "ef", count: 32))\n")
        let batch = try await f.run(["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app",
                                     "--tokens", "tokens.txt", "--alert", "Hi", "--results", "results.jsonl",
                                     "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"])
        #expect(batch.status == 1, "\(batch)")
        let results = String(decoding: try f.dir.read("results.jsonl"), as: UTF8.self)
        #expect(results.contains(#""index":0,"token":"\#(String(repeating: "ab", count: 32))","status":"invalid","reason":"Not sent: lint rule aps-not-object (aps): aps must be a JSON object"#), "\(results)")

        let forced = try await f.run(push + ["--payload", "wake.json", "--push-type", "background", "--no-lint"])
        #expect(forced.status == 0 && !forced.stderr.contains("warning"), "\(forced)")
        let lines = String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n")
        let records = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        try #require(records.count == 3, "\(lines)")
        #expect(records[0]["lint"] as? [String] == ["badge-not-integer"] && (records[0]["device"] as? String)?.hasPrefix("badge may not change: ") == true, "\(records[0])")
        #expect(records[1]["token"] as? String == String(repeating: "ef", count: 32) && records[1]["lint"] as? [String] == [], "only the batch's clean line: \(records[1])")
        #expect(records[2]["lint"] as? [String] == ["background-with-alert"], "\(records[2])")
        #expect((records[2]["device"] as? String)?.hasPrefix("may be delayed or dropped: A background push holds only content-available") == true, "\(records[2])")
    }

    @Test("The mock marks a payload sent by curl --http2 exactly as the same payload sent by push, in the record and the inbox API; an older Live Activity timestamp is 'update ignored'")
    func mockMarksCurlLikePush() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--record", "record.jsonl", "--ui-port", "0"])
        defer { server.kill() }
        let provider = try #require(ports["provider"] as? Int)
        let ui = try #require(ports["ui"] as? Int)
        let bearer = try await f.providerToken()
        _ = try f.dir.write("extension.json", text: #"{"aps": {"mutable-content": 1, "badge": 2}}"#)
        let now = Int(Date().timeIntervalSince1970)
        _ = try f.dir.write("newer.json", text: #"{"aps": {"timestamp": \#(now), "event": "update", "content-state": {"score": 2}}}"#)
        _ = try f.dir.write("older.json", text: #"{"aps": {"timestamp": \#(now - 100), "event": "update", "content-state": {"score": 1}}}"#)

        func curl(_ file: String, topic: String, pushType: String, priority: String) async throws {
            let sent = try await ProcessRunner.run("/usr/bin/curl", [
                "--http2", "--silent", "--show-error", "--max-time", "10", "--cacert", "mockca/ca-bundle.pem",
                "-H", "authorization: bearer \(bearer)", "-H", "apns-topic: \(topic)", "-H", "apns-push-type: \(pushType)", "-H", "apns-priority: \(priority)",
                "--data-binary", "@\(file)", "--write-out", "%{http_code}", "https://127.0.0.1:\(provider)/3/device/\(Self.token)",
            ], directory: f.dir.path)
            #expect(sent.stdout == "200", "lint never changes the answer: \(sent)")
        }
        let push = ["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--token", Self.token,
                    "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"]
        // The same payload and headers (push's defaults: alert at priority 10) from both clients.
        let pushed = try await f.run(push + ["--topic", "com.example.app", "--payload", "extension.json"])
        #expect(pushed.status == 0 && pushed.stderr.contains("[mutable-content-without-alert]"), "\(pushed)")
        try await curl("extension.json", topic: "com.example.app", pushType: "alert", priority: "10")
        // A Live Activity: curl sends the newer update, push the older one after it.
        try await curl("newer.json", topic: "com.example.app.push-type.liveactivity", pushType: "liveactivity", priority: "5")
        let older = try await f.run(push + ["--topic", "com.example.app.push-type.liveactivity", "--push-type", "liveactivity", "--priority", "5",
                                            "--payload", "older.json"])
        #expect(older.status == 0, "\(older)")

        let records = String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        try #require(records.count == 4, "\(records)")
        let mark = "service extension not run: mutable-content runs the app's notification service extension only for a notification the user sees; this one has no alert. Add aps.alert with a title or body."
        for record in records[0...1] {
            #expect(record["lint"] as? [String] == ["mutable-content-without-alert"] && record["device"] as? String == mark, "\(record)")
        }
        #expect(records[2]["lint"] as? [String] == [] && records[2]["device"] is NSNull, "\(records[2])")
        #expect(records[3]["lint"] as? [String] == ["la-timestamp-stale"], "\(records[3])")
        #expect((records[3]["device"] as? String)?.hasPrefix("update ignored: aps.timestamp \(now - 100) is older than \(now)") == true, "\(records[3])")

        let answer = try await ProcessRunner.run("/usr/bin/curl", ["--silent", "--show-error", "--max-time", "10", "http://127.0.0.1:\(ui)/api/notifications"])
        let inbox = try #require(try JSONSerialization.jsonObject(with: answer.stdoutData) as? [String: Any], "\(answer)")
        let list = try #require(inbox["notifications"] as? [[String: Any]])
        try #require(list.count == 4, "\(inbox)")
        // Newest first: the older update (push), the newer (curl), then curl's and push's extension payload.
        #expect(list.map { $0["lint"] as? [String] } == [["la-timestamp-stale"], [], ["mutable-content-without-alert"], ["mutable-content-without-alert"]])
        #expect(list.map { $0["device"] as? String } == [records[3]["device"] as? String, nil, mark, mark])
    }

    @Test("An inbox without a record lints when it is read, with the same mark; mock serve --no-lint marks nothing")
    func inboxOnlyAndNoLint() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        _ = try f.dir.write("extension.json", text: #"{"aps": {"mutable-content": 1, "badge": 2}}"#)
        for noLint in [false, true] {
            let (server, ports) = try await f.startMock(["--ui-port", "0"] + (noLint ? ["--no-lint", "--record", "record.jsonl"] : []))
            let provider = try #require(ports["provider"] as? Int)
            let ui = try #require(ports["ui"] as? Int)
            let pushed = try await f.run(["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app",
                                          "--token", Self.token, "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem",
                                          "--payload", "extension.json"])
            #expect(pushed.status == 0, "\(pushed)")
            let answer = try await ProcessRunner.run("/usr/bin/curl", ["--silent", "--show-error", "--max-time", "10", "http://127.0.0.1:\(ui)/api/notifications"])
            let inbox = try #require(try JSONSerialization.jsonObject(with: answer.stdoutData) as? [String: Any], "\(answer)")
            let entry = try #require((inbox["notifications"] as? [[String: Any]])?.first, "\(inbox)")
            #expect(entry["lint"] as? [String] == (noLint ? [] : ["mutable-content-without-alert"]), "\(entry)")
            #expect(noLint ? entry["device"] is NSNull : (entry["device"] as? String)?.hasPrefix("service extension not run: ") == true, "\(entry)")
            if noLint {
                let line = String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self)
                #expect(!line.isEmpty && !line.contains("\"lint\"") && !line.contains("\"device\""), "\(line)")
            }
            #expect(await server.stop() == 143)
            // The next mock writes its own ports file; startMock waits for one to appear.
            try FileManager.default.removeItem(atPath: f.dir.file("ports.json"))
        }
    }

    @Test("Headless Chromium shows the device mark on the inbox page: 'On a device: service extension not run', as text")
    func pageShowsTheMark() async throws {
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                    "chromium is not installed: run scripts/setup.sh (Debian package chromium).")
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--ui-port", "0"])
        defer { server.kill() }
        let provider = try #require(ports["provider"] as? Int)
        let ui = try #require(ports["ui"] as? Int)
        let browser = try BackgroundProcess("/usr/bin/python3", [Binaries.packageRoot + "/scripts/inbox-browser.py", "http://127.0.0.1:\(ui)/",
                                                                 "--cards", "1", "--dom", "dom.html", "--ready", "ready", "--chromium", chromium],
                                            directory: f.dir.path)
        defer { browser.kill() }
        try #require(await browser.waitForFile(f.dir.file("ready"), seconds: 60), "the page never loaded: \(browser.stderr)")
        _ = try f.dir.write("extension.json", text: #"{"aps": {"mutable-content": 1, "badge": 2}, "note": "<b>bold</b>"}"#)
        let pushed = try await f.run(["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app",
                                      "--token", Self.token, "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem",
                                      "--payload", "extension.json"])
        #expect(pushed.status == 0, "\(pushed)")
        #expect(await browser.exited().status == 0, "\(browser.stderr)")
        let dom = String(decoding: try f.dir.read("dom.html"), as: UTF8.self)
        #expect(dom.contains(#"<div class="device"><b>On a device: service extension not run</b><span>mutable-content runs the app's notification service extension only for a notification the user sees; this one has no alert. Add aps.alert with a title or body. [mutable-content-without-alert]</span></div>"#), "\(dom)")
    }
}
