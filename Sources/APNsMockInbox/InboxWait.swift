// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Hummingbird
import NIOCore

/// `GET /api/notifications/wait`: the long poll `apnskit mock expect` (and a curl one-liner)
/// uses to wait until the inbox holds what a test expects (docs/mock-gateway.md, "Waiting for
/// notifications"). The filters are `GET /api/notifications`' (`InboxQuery`), plus:
/// `count` (at least this many matching entries, default 1), `since` (only entries with a
/// larger id: "new since I started"), `timeout` (seconds, default 30, at most 300).
/// Always 200: `satisfied` says whether the count was reached before the timeout.
struct InboxWait: Sendable, Equatable {
    var query: InboxQuery
    var count = 1
    var since = 0
    var timeout = InboxWait.defaultTimeout

    static let defaultTimeout = 30.0
    /// A longer wait only holds a connection: a CI step that wants more asks again.
    static let maxTimeout = 300.0
    /// How often a waiting request looks again. The store's newest-first scan stops at
    /// `count` matches or the inbox's end (at most `--inbox-limit` entries), so this costs a
    /// waiting client a few scans a second, nothing per notification.
    static let pollInterval = Duration.milliseconds(50)

    static func parse(_ parameters: [(String, String)], maximum: Int) -> Result<InboxWait, InboxQuery.QueryError> {
        var wait = InboxWait(query: InboxQuery())
        var rest: [(String, String)] = []
        for (name, value) in parameters {
            switch name {
            case "count":
                guard let number = Int(value), (1...maximum).contains(number) else {
                    return .failure(.init("count must be a number from 1 to \(maximum) (the inbox keeps no more)."))
                }
                wait.count = number
            case "since":
                guard let number = Int(value), number >= 0 else { return .failure(.init("since must be an entry id, 0 or more.")) }
                wait.since = number
            case "timeout":
                guard let seconds = Double(value), seconds >= 0, seconds <= maxTimeout else {
                    return .failure(.init("timeout must be a number of seconds from 0 to \(Int(maxTimeout)); ask again for longer."))
                }
                wait.timeout = seconds
            default:
                rest.append((name, value))
            }
        }
        switch InboxQuery.parse(rest, maximum: maximum) {
        case .failure(let error) where error.message.hasPrefix("unknown parameter"):
            return .failure(.init("\(error.message.prefix { $0 != ":" }): use token, topic, status, push-type, q, limit, count, since or timeout."))
        case .failure(let error): return .failure(error)
        case .success(let query): wait.query = query
        }
        // Room for every entry that counts, so `count` is never cut short by `limit`.
        wait.query.limit = max(wait.query.limit, wait.count)
        return .success(wait)
    }

    /// Waits (polling the store; no thread is held) until `count` entries match, the timeout
    /// passes, the client goes away (`ClientPresence`: its connection then closes at once, not
    /// after the timeout) or the server stops.
    func answer(_ store: InboxStore, channel: any Channel) async -> Response {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(timeout * 1000)))
        let since = self.since
        while true {
            let (entries, _, seen) = store.newest(query.limit, where: { $0.id > since && query.matches($0) }, abandoned: { !channel.isActive })
            let satisfied = entries.count >= count
            if !satisfied, await ClientPresence.isGone(channel) {
                // Nobody reads an answer: close the connection (no CLOSE-WAIT for the rest of the wait).
                channel.close(promise: nil)
                return Response(status: .noContent)
            }
            if satisfied || ContinuousClock.now >= deadline || Task.isCancelled {
                return InboxRoutes.json(.ok, .object([
                    ("satisfied", .bool(satisfied)), ("count", .int(entries.count)), ("wanted", .int(count)), ("seen", .int(seen)),
                    ("notifications", .array(entries.map(\.json))),
                ]))
            }
            try? await Task.sleep(for: Self.pollInterval)
        }
    }
}
