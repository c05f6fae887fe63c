// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `mock serve --ui-port`: the inbox's JSON API and live events read by curl, its page rendered
/// by headless Chromium, while `apnskit push` sends real notifications to the gateway.
@Suite("CLI: mock serve's inbox web UI (curl, headless Chromium)")
struct MockInboxCLITests {
    static let token = String(repeating: "ab", count: 32)
    /// An alert body a careless page would run as markup.
    static let hostileBody = #"<script>document.title="pwned"</script><img src=x onerror="document.body.dataset.pwned=1">Your order shipped"#

    /// A mock with the inbox on a free port; the four notifications of the issue's "done when"
    /// (alert, background, oversize, wrong topic) sent by `apnskit push` (the oversize one by
    /// curl: push refuses to send it), in that order.
    private func mockWithFour(_ f: CLIFixture, extra: [String] = [], beforePushing: (Int) async throws -> Void = { _ in })
        async throws -> (server: BackgroundProcess, ui: Int) {
        try await f.prepareMock(certificates: true)
        let (server, ports) = try await f.startMock(["--ui-port", "0"] + extra)
        let provider = try #require(ports["provider"] as? Int)
        let ui = try #require(ports["ui"] as? Int, "ports file \(ports)")
        #expect(server.stdout.contains("inbox (web UI):        http://127.0.0.1:\(ui)/"), "\(server.stdout)")
        try await beforePushing(ui)
        _ = try f.dir.write("big.json", text: "{\"aps\":{\"alert\":\"" + String(repeating: "x", count: 5000) + "\"}}")
        let push = ["push", "apns.pem", "--token", Self.token, "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"]
        let sends: [([String], Int32)] = [
            (["--title", "Acme Store", "--alert", Self.hostileBody, "--badge", "3", "--sound", "default"], 0),
            (["--content-available"], 0),
            (["--payload", "big.json"], 1),
            (["--topic", "com.other.app", "--alert", "wrong app"], 1),
        ]
        for (arguments, status) in sends {
            if arguments.first == "--payload" {
                // `apnskit push` refuses an oversize payload before sending it; curl sends it
                // as another client would, with the same certificate.
                let sent = try await ProcessRunner.run("/usr/bin/curl", ["--http2", "--silent", "--cacert", "mockca/ca-bundle.pem", "--cert", "apns.pem",
                                                                   "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
                                                                   "--data-binary", "@big.json", "--write-out", "%{http_code}",
                                                                   "https://127.0.0.1:\(provider)/3/device/\(Self.token)"], directory: f.dir.path)
                #expect(sent.stdout.hasSuffix("413"), "\(sent)")
                continue
            }
            let sent = try await f.run(push + arguments)
            #expect(sent.status == status, "\(arguments): \(sent)")
        }
        return (server, ui)
    }

    private func curl(_ arguments: [String]) async throws -> ProcessResult {
        try await ProcessRunner.run("/usr/bin/curl", ["--silent", "--show-error", "--max-time", "10"] + arguments)
    }

    private func notifications(_ ui: Int, _ query: String = "") async throws -> [String: Any] {
        let answer = try await curl(["http://127.0.0.1:\(ui)/api/notifications\(query)"])
        #expect(answer.status == 0, "\(answer)")
        return (try? JSONSerialization.jsonObject(with: answer.stdoutData) as? [String: Any]) ?? [:]
    }

    @Test("The JSON API lists every answered request newest first with Apple's reasons; filters, live events and clear work with curl")
    func apiAndLiveEvents() async throws {
        let f = try await CLIFixture()
        var feed: BackgroundProcess?
        let (server, ui) = try await mockWithFour(f) { ui in
            // A live reader from before the first push: curl keeps the event stream open.
            feed = try BackgroundProcess("/usr/bin/curl", ["--silent", "--no-buffer", "--max-time", "60", "-o", "events.txt",
                                                           "http://127.0.0.1:\(ui)/api/events"], directory: f.dir.path)
            try #require(await feed?.waitForFile(f.dir.file("events.txt")) == true, "the event stream never started")
        }
        let all = try await notifications(ui)
        let list = try #require(all["notifications"] as? [[String: Any]], "\(all)")
        try #require(list.count == 4, "\(all)")
        #expect(all["count"] as? Int == 4 && all["kept"] as? Int == 4 && all["seen"] as? Int == 4 && all["limit"] as? Int == 10_000)
        #expect(list.map { $0["id"] as? Int } == [4, 3, 2, 1])
        #expect(list.map { $0["status"] as? Int } == [400, 413, 200, 200])
        #expect(list.map { $0["reason"] as? String } == ["TopicDisallowed", "PayloadTooLarge", nil, nil])
        #expect((list[0]["advice"] as? String)?.contains("bundle id the certificate") == true, "\(list[0])")
        #expect((list[1]["advice"] as? String)?.contains("4096") == true, "\(list[1])")
        #expect(list.map { $0["push_type"] as? String } == ["alert", "alert", "background", "alert"])
        #expect(list[0]["topic"] as? String == "com.other.app" && list[3]["topic"] as? String == "com.example.app")
        #expect(list[2]["priority"] as? String == "5", "background pushes go at priority 5: \(list[2])")
        #expect(list[1]["payload_bytes"] as? Int == 5020, "\(list[1])")
        #expect((list[3]["payload"] as? String)?.contains(#"<script>document.title=\"pwned\"</script>"#) == true, "\(list[3])")
        #expect(list.allSatisfy { ($0["token"] as? String) == Self.token && ($0["identity"] as? String) == "Apple Development IOS Push Services: com.example.app" && $0["protocol"] as? String == "h2" })
        #expect((list[3]["apns_id"] as? String)?.count == 36 && (list[3]["apns_unique_id"] as? String)?.count == 36)

        #expect(try await notifications(ui, "?status=rejected")["count"] as? Int == 2)
        #expect(try await notifications(ui, "?status=413")["count"] as? Int == 1)
        #expect(try await notifications(ui, "?push-type=background")["count"] as? Int == 1)
        #expect(try await notifications(ui, "?topic=other&status=accepted")["count"] as? Int == 0)
        #expect(try await notifications(ui, "?q=ORDER%20SHIPPED")["count"] as? Int == 1)
        #expect(try await notifications(ui, "?token=abab&limit=1")["count"] as? Int == 1)
        let bad = try await curl(["--write-out", "%{http_code}", "http://127.0.0.1:\(ui)/api/notifications?status=maybe"])
        #expect(bad.stdout.hasSuffix("400") && bad.stdout.contains("status must be accepted, rejected or a number"), "\(bad)")

        // The live feed saw the four as they were answered, in order.
        let eventsFile = f.dir.file("events.txt")
        @Sendable func events() -> String { (try? String(contentsOfFile: eventsFile, encoding: .utf8)) ?? "" }
        _ = await Wait.until(seconds: 10) { events().components(separatedBy: "event: notification").count - 1 >= 4 }
        let ids = events().split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
        #expect(ids == ["1", "2", "3", "4"], "\(events())")
        #expect(events().contains(#""reason":"PayloadTooLarge""#))

        let cleared = try await curl(["--write-out", "%{http_code}", "-X", "DELETE", "http://127.0.0.1:\(ui)/api/notifications"])
        #expect(cleared.stdout == "204", "\(cleared)")
        let after = try await notifications(ui)
        #expect(after["count"] as? Int == 0 && after["seen"] as? Int == 4)
        #expect(await Wait.until(seconds: 10) { events().contains("event: clear") }, "\(events())")
        // SIGKILL: curl, a child of this process, outlives SIGTERM here until its --max-time.
        await feed?.stop(signal: SIGKILL)
        #expect(await server.stop() == 143, "\(server.stderr)")
    }

    @Test("--inbox-limit 5 keeps the newest 5 of 8, newest first")
    func inboxLimit() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock(certificates: true)
        let (server, ports) = try await f.startMock(["--ui-port", "0", "--inbox-limit", "5"])
        let provider = try #require(ports["provider"] as? Int)
        let ui = try #require(ports["ui"] as? Int)
        let tokens = (1...8).map { String(format: "%064x", $0) }
        _ = try f.dir.write("tokens.txt", text: tokens.joined(separator: "\n"))
        let sent = try await f.run(["push", "apns.pem", "--tokens", "tokens.txt", "--alert", "hi", "--concurrency", "1",
                              "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"])
        #expect(sent.status == 0, "\(sent)")
        let all = try await notifications(ui, "?limit=100")
        #expect(all["count"] as? Int == 5 && all["kept"] as? Int == 5 && all["seen"] as? Int == 8 && all["limit"] as? Int == 5, "\(all)")
        let list = all["notifications"] as? [[String: Any]] ?? []
        #expect(list.map { $0["id"] as? Int } == [8, 7, 6, 5, 4])
        #expect(list.map { $0["token"] as? String } == Array(tokens.suffix(5).reversed()))
        #expect(await server.stop() == 143)
    }

    @Test("Legacy binary frames and feedback reads appear in the inbox too")
    func legacyAndFeedback() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock(certificates: true)
        // A registry that knows only Self.token: a frame for any other token is rejected.
        _ = try f.dir.write("registry.json", text: #"{"tokens": [{"token": "\#(Self.token)", "topic": "com.example.app", "environment": "sandbox"}]}"#)
        let (server, ports) = try await BackgroundProcess.mockServe(["--ca", "mockca", "--port", "0", "--legacy-port", "0", "--feedback-port", "0",
                                                                    "--registry", "registry.json", "--ui-port", "0", "-q"], directory: f.dir.path)
        let ui = try #require(ports["ui"] as? Int)
        let legacy = try #require(ports["legacy"] as? Int, "\(ports)")
        let unknown = String(repeating: "cd", count: 32)
        let refused = try await f.run(["push", "apns.pem", "--legacy", "--token", unknown, "--alert", "nobody",
                                 "--gateway", "127.0.0.1:\(legacy)", "--ca-file", "mockca/ca-bundle.pem"])
        #expect(refused.status == 1, "\(refused)")
        let feedback = try #require(ports["feedback"] as? Int)
        let sent = try await f.run(["push", "apns.pem", "--legacy", "--token", Self.token, "--alert", "old school",
                              "--gateway", "127.0.0.1:\(legacy)", "--ca-file", "mockca/ca-bundle.pem"])
        #expect(sent.status == 0, "\(sent)")
        let read = try await f.run(["feedback", "apns.pem", "--gateway", "127.0.0.1:\(feedback)", "--ca-file", "mockca/ca-bundle.pem"])
        #expect(read.status == 0, "\(read)")
        // The frame's session may still be open when push returns: its event comes when the
        // gateway has read it, so wait (bounded) until both are there.
        let all = try await Wait.reading(seconds: 30, every: .milliseconds(100), { try await notifications(ui) }, until: { $0["count"] as? Int == 3 })
        let list = all["notifications"] as? [[String: Any]] ?? []
        let byProtocol = Dictionary(list.map { (($0["protocol"] as? String) ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        let frame = try #require(list.first { $0["protocol"] as? String == "legacy" && $0["token"] as? String == Self.token }, "\(all)")
        #expect(frame["accepted"] as? Bool == true && frame["status"] as? Int == 0 && frame["token"] as? String == Self.token)
        #expect(frame["topic"] as? String == "com.example.app" && (frame["apns_id"] as? String)?.hasPrefix("legacy-") == true, "\(frame)")
        #expect((frame["payload"] as? String)?.contains("old school") == true)
        let rejected = try #require(list.first { $0["token"] as? String == unknown }, "\(all)")
        #expect(rejected["protocol"] as? String == "legacy" && rejected["accepted"] as? Bool == false && rejected["status"] as? Int == 8, "\(rejected)")
        #expect(rejected["reason"] as? String == "Invalid token", "\(rejected)")
        #expect((rejected["advice"] as? String)?.contains("other environment") == true, "\(rejected)")
        #expect(frame["advice"] is NSNull, "an accepted frame has no advice: \(frame)")
        let feed = try #require(byProtocol["feedback"], "\(all)")
        #expect(feed["feedback_tuples"] as? Int == 0 && feed["accepted"] as? Bool == true, "\(feed)")
        #expect(await server.stop() == 143)
    }

    @Test("Headless Chromium shows the four as they arrive (no reload) with their reasons, a <script> body as text, and takes a screenshot")
    func browser() async throws {
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                    "chromium is not installed: run scripts/setup.sh (Debian package chromium).")
        let f = try await CLIFixture()
        var browser: BackgroundProcess?
        let (server, _) = try await mockWithFour(f) { ui in
            // The page is open before the first push: the cards must come over its live feed.
            browser = try BackgroundProcess("/usr/bin/python3", [Self.browserScript, "http://127.0.0.1:\(ui)/", "--cards", "4", "--dom", "dom.html",
                                                                 "--screenshot", "inbox.png", "--ready", "ready", "--chromium", chromium],
                                            directory: f.dir.path)
            try #require(await browser?.waitForFile(f.dir.file("ready"), seconds: 60) == true, "the page never loaded: \(browser?.stderr ?? "")")
        }
        let driver = try #require(browser)
        #expect(await driver.exited().status == 0, "\(driver.stderr)")
        let dom = String(decoding: try f.dir.read("dom.html"), as: UTF8.self)
        #expect(dom.components(separatedBy: "<article class=\"card").count - 1 == 4, "\(dom)")
        #expect(dom.contains(#"data-reason="PayloadTooLarge""#) && dom.contains(#"data-reason="TopicDisallowed""#))
        #expect(dom.contains("The payload is over the limit (4096 bytes; 5120 for VoIP)"))
        #expect(dom.contains("The credentials do not cover this topic"))
        #expect(dom.contains("Silent (background) push"))
        #expect(dom.contains(">Acme Store<") && dom.contains(">App<"), "the title, and the app name from com.example.app")
        // The hostile body is text: escaped in the serialised DOM, never an element, never run.
        #expect(dom.contains("&lt;script&gt;document.title=\"pwned\"&lt;/script&gt;&lt;img src=x onerror="), "\(dom)")
        #expect(!dom.contains("<img src=\"x\"") && !dom.contains("data-pwned") && !dom.contains("<title>pwned"))
        let png = try f.dir.read("inbox.png")
        #expect(png.count > 10_000 && Array(png.prefix(4)) == [0x89, 0x50, 0x4E, 0x47], "\(png.count) bytes")
        #expect(await server.stop() == 143)
    }

    /// scripts/inbox-browser.py: Chromium over the DevTools pipe (standard library only).
    static var browserScript: String { Binaries.packageRoot + "/scripts/inbox-browser.py" }

    @Test("Bad inbox flags exit 2, a UI port in use exits 4, each with one sentence")
    func badFlags() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let noPort = try await f.run(["mock", "serve", "--ca", "mockca", "--ui-address", "127.0.0.1"])
        #expect(noPort.status == 2 && noPort.stderr.contains("--ui-address needs --ui-port"), "\(noPort)")
        let limit = try await f.run(["mock", "serve", "--ca", "mockca", "--ui-port", "0", "--inbox-limit", "0"])
        #expect(limit.status == 2 && limit.stderr.contains("--inbox-limit must be at least 1."), "\(limit)")
        let range = try await f.run(["mock", "serve", "--ca", "mockca", "--ui-port", "70000"])
        #expect(range.status == 2 && range.stderr.contains("--ui-port must be a port number"), "\(range)")
        let listener = SilentListener()
        let busy = try await f.run(["mock", "serve", "--ca", "mockca", "--port", "0", "--no-legacy", "--no-feedback", "--ui-port", "\(listener.port)"])
        #expect(busy.status == 4 && busy.stderr.contains("Cannot start the inbox web UI on 127.0.0.1:\(listener.port)"), "\(busy)")
        #expect(busy.stderr.split(separator: "\n").count == 1, "\(busy)")
    }
}
