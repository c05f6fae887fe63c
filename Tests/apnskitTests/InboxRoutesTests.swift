// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsMockInbox
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The inbox's routes (docs/mock-gateway.md, "Mock inbox") served in this process: an
/// `InboxServer` on a loopback port the kernel picks, fed through its `InboxStore` and its
/// gateway's `ProviderAPIHandler` directly, asked by a small HTTP/1.1 client of the test's own.
/// Each route's success and error answers, beside `MockInboxCLITests` and
/// `InboxHardeningCLITests`, which ask a real `mock serve` through curl.
@Suite("Mock inbox: every route's answers, served in process")
struct InboxRoutesTests {
    /// A running inbox, its store and the gateway handler whose faults it shows.
    final class Inbox: Sendable {
        let store: InboxStore
        let gateway: ProviderAPIHandler
        let server: InboxServer

        /// `faults` false: no gateway given, so the faults routes are not served.
        init(limit: Int = 50, token: String? = nil, faults: Bool = true) async throws {
            store = InboxStore(limit: limit)
            gateway = ProviderAPIHandler(settings: .init(), recorder: nil, log: { _ in })
            server = try await InboxServer.start(store: store, host: "127.0.0.1", port: 0, token: token, faults: faults ? gateway : nil)
        }

        var port: Int { server.port }

        /// One answered request, as the gateway reports it.
        func answered(status: Int = 200, reason: String? = nil, token: String = String(repeating: "ab", count: 32),
                      topic: String = "com.example.app", pushType: String = "alert", alert: String = "hello") {
            var event = InboxEvent(protocolName: "h2", status: status, accepted: status == 200, reason: reason, token: token, topic: topic,
                                   payload: Array(#"{"aps":{"alert":"\#(alert)"}}"#.utf8), connection: 1)
            event.pushType = pushType
            store.gatewayAnswered(event)
        }

        /// One exchange with this inbox (`Host: 127.0.0.1:PORT` unless `host` says otherwise).
        func ask(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                 host: String? = nil) async throws -> Answer {
            try await Answer.exchange(port: port, method, target, host: host ?? "127.0.0.1:\(port)", headers: headers, body: body)
        }

        /// A GET.
        func ask(_ target: String, headers: [(String, String)] = [], host: String? = nil) async throws -> Answer {
            try await ask("GET", target, headers: headers, host: host)
        }
    }

    /// What the inbox answered: status, headers (names in lower case) and the body (chunked
    /// bodies decoded).
    struct Answer: Sendable, CustomStringConvertible {
        let status: Int
        let headers: [String: String]
        let body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:] }
        var error: String { json["error"] as? String ?? "" }
        var description: String { "\(status) \(headers) \(text.prefix(600))" }

        struct Failure: Error, CustomStringConvertible { let description: String }

        /// Sends one request (`Connection: close`) and reads the answer to the end of the
        /// connection, on a thread of its own: the socket calls block, and a pool thread must not.
        static func exchange(port: Int, _ method: String, _ target: String, host: String, headers: [(String, String)],
                             body: [UInt8]?) async throws -> Answer {
            var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if let body { head += "Content-Length: \(body.count)\r\n" }
            let request = Array((head + "\r\n").utf8) + (body ?? [])
            return try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try blockingExchange(port: port, request) }) }
            }
        }

        private static func blockingExchange(port: Int, _ request: [UInt8]) throws -> Answer {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
            defer { close(fd) }
            // A bound on a server that never answers, far above any answer's time here.
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }
            var sent = 0
            while sent < request.count {
                let count = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                // A server that answers before reading the whole body (413) may stop reading it.
                guard count > 0 else { break }
                sent += count
            }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count > 0 {
                    received += buffer[0..<count]
                    continue
                }
                if count < 0, errno == EINTR { continue }
                guard count == 0 || !received.isEmpty else { throw Failure(description: "no answer: errno \(errno)") }
                break
            }
            return try parse(received)
        }

        private static func parse(_ bytes: [UInt8]) throws -> Answer {
            let separator = Array("\r\n\r\n".utf8)
            guard let end = (0...(max(0, bytes.count - 4))).first(where: { Array(bytes[$0..<min($0 + 4, bytes.count)]) == separator }) else {
                throw Failure(description: "no HTTP head in \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
            }
            let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
            let statusWords = lines[0].split(separator: " ")
            guard statusWords.count >= 2, let status = Int(statusWords[1]) else { throw Failure(description: "status line: \(lines[0])") }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            // The body through the mock's own answer reader (Content-Length or chunked).
            var reader = HTTPAnswerReader(maxAnswer: 64 * 1024 * 1024)
            try reader.append(bytes)
            return Answer(status: status, headers: headers, body: reader.decodedBody())
        }
    }

    @Test("GET / is the page, with a new nonce per answer in its Content-Security-Policy")
    func page() async throws {
        let inbox = try await Inbox()
        let first = try await inbox.ask("/")
        let second = try await inbox.ask("/")
        await inbox.server.stop()
        #expect(first.status == 200 && first.headers["content-type"] == "text/html; charset=utf-8", "\(first)")
        #expect(first.headers["x-content-type-options"] == "nosniff" && first.headers["cache-control"] == "no-store", "\(first)")
        func nonce(_ answer: Answer) -> String? {
            guard let policy = answer.headers["content-security-policy"], let start = policy.range(of: "script-src 'nonce-") else { return nil }
            return String(policy[start.upperBound...].prefix { $0 != "'" })
        }
        let one = try #require(nonce(first), "\(first.headers)")
        #expect(one.count == 32 && first.text.contains("nonce=\"\(one)\""), "the page's own script carries the header's nonce")
        #expect(first.headers["content-security-policy"]?.contains("default-src 'none'") == true && first.headers["content-security-policy"]?.contains("connect-src 'self'") == true)
        #expect(nonce(second) != nil && nonce(second) != one, "each answer has a nonce of its own")
    }

    @Test("GET /api/notifications lists newest first and filters; a bad parameter is 400 with a sentence")
    func list() async throws {
        let inbox = try await Inbox(limit: 50)
        inbox.answered(alert: "first")
        inbox.answered(status: 400, reason: "BadDeviceToken", topic: "com.other.app")
        inbox.answered(pushType: "background", alert: "Order shipped")
        let all = try await inbox.ask("/api/notifications")
        let rejected = try await inbox.ask("/api/notifications?status=rejected")
        let byTopic = try await inbox.ask("/api/notifications?topic=OTHER")
        let background = try await inbox.ask("/api/notifications?push-type=background")
        let search = try await inbox.ask("/api/notifications?q=order%20SHIPPED")
        let limited = try await inbox.ask("/api/notifications?limit=1")
        let badStatus = try await inbox.ask("/api/notifications?status=maybe")
        let unknown = try await inbox.ask("/api/notifications?colour=red")
        let capped = try await inbox.ask("/api/notifications?limit=5000")
        let zero = try await inbox.ask("/api/notifications?limit=0")
        let longQuery = try await inbox.ask("/api/notifications?q=" + String(repeating: "x", count: 257))
        await inbox.server.stop()

        #expect(all.status == 200 && all.headers["content-type"] == "application/json" && all.headers["cache-control"] == "no-store", "\(all)")
        #expect(all.json["count"] as? Int == 3 && all.json["kept"] as? Int == 3 && all.json["seen"] as? Int == 3 && all.json["limit"] as? Int == 50, "\(all)")
        let entries = try #require(all.json["notifications"] as? [[String: Any]], "\(all)")
        #expect(entries.map { $0["id"] as? Int } == [3, 2, 1])
        #expect(entries[1]["reason"] as? String == "BadDeviceToken" && entries[1]["accepted"] as? Bool == false && entries[1]["status"] as? Int == 400)
        #expect((entries[1]["advice"] as? String)?.isEmpty == false, "a rejection comes with advice: \(entries[1])")
        #expect(entries[2]["payload"] as? String == #"{"aps":{"alert":"first"}}"#, "\(entries[2])")
        #expect(rejected.json["count"] as? Int == 1 && byTopic.json["count"] as? Int == 1, "\(rejected) \(byTopic)")
        #expect((background.json["notifications"] as? [[String: Any]])?.map { $0["id"] as? Int } == [3], "\(background)")
        #expect(search.json["count"] as? Int == 1, "q ignores ASCII case: \(search)")
        #expect(limited.json["count"] as? Int == 1 && (limited.json["notifications"] as? [[String: Any]])?.first?["id"] as? Int == 3, "\(limited)")
        #expect(badStatus.status == 400 && badStatus.error.contains("status must be accepted, rejected or a number"), "\(badStatus)")
        #expect(unknown.status == 400 && unknown.error.contains("unknown parameter 'colour'"), "\(unknown)")
        #expect(capped.status == 200 && capped.json["count"] as? Int == 3, "a limit past --inbox-limit is capped: \(capped)")
        #expect(zero.status == 400 && zero.error == "limit must be a number of 1 or more.", "\(zero)")
        #expect(longQuery.status == 400 && longQuery.error == "q is 257 bytes long, more than 256; search for a shorter part.", "\(longQuery)")
    }

    @Test("DELETE /api/notifications empties the inbox (204) and ids go on; from another Origin it is 403 and changes nothing")
    func clear() async throws {
        let inbox = try await Inbox()
        inbox.answered()
        inbox.answered()
        let crossSite = try await inbox.ask("DELETE", "/api/notifications", headers: [("Origin", "http://evil.example")])
        let keptAfterRefusal = inbox.store.counts.kept
        let cleared = try await inbox.ask("DELETE", "/api/notifications")
        let after = try await inbox.ask("/api/notifications")
        inbox.answered()
        let sameOrigin = try await inbox.ask("DELETE", "/api/notifications", headers: [("Origin", "http://127.0.0.1:\(inbox.port)")])
        let next = inbox.store.counts
        await inbox.server.stop()

        #expect(crossSite.status == 403 && crossSite.error == "Origin 'http://evil.example' is another site; only the inbox's own page may change it.", "\(crossSite)")
        #expect(keptAfterRefusal == 2)
        #expect(cleared.status == 204 && cleared.body.isEmpty, "\(cleared)")
        #expect(after.json["count"] as? Int == 0 && after.json["kept"] as? Int == 0 && after.json["seen"] as? Int == 2, "\(after)")
        #expect(sameOrigin.status == 204, "\(sameOrigin)")
        #expect(next.kept == 0 && next.seen == 3, "the third entry got id 3 after the clear: \(next)")
    }

    @Test("A Host that is not the inbox's is 403 on every route; localhost, 127.0.0.1 and [::1] are served")
    func hostChecked() async throws {
        let inbox = try await Inbox()
        var refused: [Answer] = []
        for target in ["/", "/api/notifications", "/api/stats", "/api/faults", "/api/events", "/api/notifications/wait?timeout=0"] {
            refused.append(try await inbox.ask(target, host: "evil.example:\(inbox.port)"))
        }
        let rebound = try await inbox.ask("DELETE", "/api/notifications", host: "evil.example")
        var served: [Answer] = []
        for host in ["localhost:\(inbox.port)", "127.0.0.1:\(inbox.port)", "[::1]:\(inbox.port)", "LOCALHOST"] {
            served.append(try await inbox.ask("/api/stats", host: host))
        }
        await inbox.server.stop()
        for answer in refused + [rebound] {
            #expect(answer.status == 403 && answer.error.contains("is not this inbox's address"), "\(answer)")
        }
        #expect(served.allSatisfy { $0.status == 200 }, "\(served)")
    }

    @Test("GET /api/notifications/wait: satisfied (at once, or by an entry that comes while it waits), unsatisfied at its timeout, 400 for a bad parameter")
    func wait() async throws {
        let inbox = try await Inbox(limit: 100)
        inbox.answered(alert: "one")
        inbox.answered(alert: "two")
        let now = try await inbox.ask("/api/notifications/wait?count=2")
        let since = try await inbox.ask("/api/notifications/wait?since=1")
        let notYet = try await inbox.ask("/api/notifications/wait?count=5&timeout=0")
        // A wait for an entry after id 2: the entry is added whether the request has reached the
        // server yet or not, and either way the answer is the entry.
        let later = Task { try await inbox.ask("/api/notifications/wait?since=2&timeout=120") }
        inbox.answered(alert: "three")
        let arrived = try await later.value
        var bad: [(String, Answer)] = []
        for (query, message) in [("count=0", "count must be a number from 1 to 100"), ("since=-1", "since must be an entry id"),
                                 ("timeout=301", "timeout must be a number of seconds from 0 to 300"),
                                 ("colour=red", "unknown parameter 'colour': use token, topic, status, push-type, q, limit, count, since or timeout."),
                                 ("status=maybe", "status must be accepted, rejected or a number")] {
            bad.append((message, try await inbox.ask("/api/notifications/wait?\(query)")))
        }
        await inbox.server.stop()

        #expect(now.status == 200 && now.json["satisfied"] as? Bool == true && now.json["count"] as? Int == 2 && now.json["wanted"] as? Int == 2, "\(now)")
        #expect((since.json["notifications"] as? [[String: Any]])?.map { $0["id"] as? Int } == [2] && since.json["satisfied"] as? Bool == true, "\(since)")
        #expect(notYet.status == 200 && notYet.json["satisfied"] as? Bool == false && notYet.json["count"] as? Int == 2 && notYet.json["seen"] as? Int == 2, "\(notYet)")
        #expect(arrived.json["satisfied"] as? Bool == true && (arrived.json["notifications"] as? [[String: Any]])?.map { $0["id"] as? Int } == [3], "\(arrived)")
        for (message, answer) in bad {
            #expect(answer.status == 400 && answer.error.contains(message), "\(message): \(answer)")
        }
    }

    @Test("GET /api/events streams each entry and each clear as they happen; past the live-feed limit it is 503")
    func events() async throws {
        let inbox = try await Inbox()
        inbox.answered(alert: "before")
        let feed = Task { try await inbox.ask("/api/events") }
        // The feed is open once the store counts its subscriber: then what follows is streamed.
        try #require(await Wait.until(seconds: 60) { inbox.store.subscriberCount == 1 }, "the live feed never subscribed")
        inbox.answered(status: 410, reason: "Unregistered", alert: "gone")
        inbox.store.clear()
        inbox.answered(alert: "after")
        // Closing the store ends every feed: the answer is then complete.
        inbox.store.close()
        let streamed = try await feed.value
        await inbox.server.stop()

        #expect(streamed.status == 200 && streamed.headers["content-type"] == "text/event-stream" && streamed.headers["cache-control"] == "no-store", "\(streamed)")
        #expect(streamed.text.hasPrefix("retry: 1000\n\n"), "\(streamed.text)")
        let events = streamed.text.components(separatedBy: "\n\n").filter { !$0.isEmpty && !$0.hasPrefix(": heartbeat") }
        #expect(events.count == 4, "\(streamed.text)")
        #expect(events.dropFirst().first?.hasPrefix("id: 2\nevent: notification\ndata: {") == true, "entries from before the feed are not replayed: \(streamed.text)")
        #expect(events.dropFirst().first?.contains(#""reason":"Unregistered""#) == true)
        #expect(events.dropFirst(2).first == "event: clear\ndata: {}", "\(streamed.text)")
        #expect(events.dropFirst(3).first?.hasPrefix("id: 3\nevent: notification\n") == true, "\(streamed.text)")

        let full = try await Inbox()
        var feeds: [InboxStore.Subscription] = []
        while let subscription = full.store.subscribe() { feeds.append(subscription) }
        let refused = try await full.ask("/api/events")
        await full.server.stop()
        #expect(feeds.count == InboxStore.maxSubscribers)
        #expect(refused.status == 503 && refused.error == "too many live feeds open (\(InboxStore.maxSubscribers)); close a tab.", "\(refused)")
    }

    @Test("GET /api/stats: what the inbox kept and saw, no webhook, connections closed by reason")
    func stats() async throws {
        let inbox = try await Inbox(limit: 2)
        for _ in 0..<3 { inbox.answered() }
        let stats = try await inbox.ask("/api/stats")
        await inbox.server.stop()
        #expect(stats.status == 200 && stats.headers["content-type"] == "application/json", "\(stats)")
        #expect(stats.json["seen"] as? Int == 3 && stats.json["kept"] as? Int == 2 && stats.json["limit"] as? Int == 2, "\(stats)")
        #expect(stats.json["webhook"] is NSNull && (stats.json["connections_closed"] as? [String: Any])?.isEmpty == true, "\(stats)")
    }

    @Test("GET/PUT /api/faults show and replace the gateway's faults; a bad body is 400, an oversize one 413; without a gateway they are 404")
    func faults() async throws {
        let inbox = try await Inbox()
        let before = try await inbox.ask("/api/faults")
        let put = try await inbox.ask("PUT", "/api/faults", headers: [("Content-Type", "application/json")],
                                      body: Array(#"{"delay_ms": 250, "fail_rates": {"503": 0.5}}"#.utf8))
        let inForce = inbox.gateway.faults
        let after = try await inbox.ask("/api/faults")
        let notJSON = try await inbox.ask("PUT", "/api/faults", body: Array("delay please".utf8))
        let wrongType = try await inbox.ask("PUT", "/api/faults", body: Array(#"{"delay_ms": true}"#.utf8))
        let oversize = try await inbox.ask("PUT", "/api/faults", body: [UInt8](repeating: 0x20, count: 2 * 1024 * 1024 + 1))
        let stillInForce = inbox.gateway.faults.delayMilliseconds
        let cleared = try await inbox.ask("PUT", "/api/faults", body: Array("{}".utf8))
        await inbox.server.stop()
        let without = try await Inbox(faults: false)
        let absent = try await without.ask("/api/faults")
        let absentPut = try await without.ask("PUT", "/api/faults", body: Array("{}".utf8))
        await without.server.stop()

        #expect(before.status == 200 && before.json["delay_ms"] as? Int == 0 && (before.json["fail_rates"] as? [String: Any])?.isEmpty == true, "\(before)")
        #expect(put.status == 200 && put.json["delay_ms"] as? Int == 250 && (put.json["fail_rates"] as? [String: Any])?["503"] as? Double == 0.5, "\(put)")
        #expect(inForce.delayMilliseconds == 250 && inForce.failureRates[503] == 0.5, "the gateway's faults were replaced")
        #expect(after.text == put.text, "GET shows what PUT answered: \(after)")
        #expect(notJSON.status == 400 && notJSON.error.hasPrefix("The body is not a JSON object"), "\(notJSON)")
        #expect(wrongType.status == 400 && !wrongType.error.isEmpty, "\(wrongType)")
        #expect(oversize.status == 413 && oversize.error.contains("larger than 2097152 bytes"), "\(oversize)")
        #expect(stillInForce == 250, "refused bodies change nothing")
        #expect(cleared.status == 200 && cleared.json["delay_ms"] as? Int == 0, "{} clears every fault: \(cleared)")
        #expect(absent.status == 404 && absentPut.status == 404, "\(absent) \(absentPut)")
    }

    @Test("With an access token: none or a wrong one is 401; the header, the cookie and ?token= are served, and ?token= sets the cookie")
    func accessToken() async throws {
        let token = "s3cret-token"
        let inbox = try await Inbox(token: token)
        let none = try await inbox.ask("/api/notifications")
        let wrong = try await inbox.ask("/api/notifications", headers: [("Authorization", "Bearer nope")])
        let header = try await inbox.ask("/api/notifications", headers: [("Authorization", "Bearer \(token)")])
        let query = try await inbox.ask("/?token=\(token)")
        let cookie = try await inbox.ask("/api/stats", headers: [("Cookie", "other=1; apnskit_inbox_token=\(token)")])
        let wrongCookie = try await inbox.ask("/api/stats", headers: [("Cookie", "apnskit_inbox_token=nope")])
        await inbox.server.stop()

        for answer in [none, wrong, wrongCookie] {
            #expect(answer.status == 401 && answer.error.contains("needs its access token"), "\(answer)")
        }
        #expect(header.status == 200 && header.headers["set-cookie"] == nil, "\(header)")
        #expect(query.status == 200 && query.headers["set-cookie"] == "apnskit_inbox_token=\(token); Path=/; HttpOnly; SameSite=Strict", "\(query.headers)")
        #expect(cookie.status == 200, "\(cookie)")
    }

    @Test("A path the inbox does not serve is 404")
    func unknownPath() async throws {
        let inbox = try await Inbox()
        let answer = try await inbox.ask("/api/nothing")
        let wrongMethod = try await inbox.ask("POST", "/api/notifications", body: [])
        await inbox.server.stop()
        #expect(answer.status == 404, "\(answer)")
        #expect(wrongMethod.status == 404 || wrongMethod.status == 405, "\(wrongMethod)")
    }
}
