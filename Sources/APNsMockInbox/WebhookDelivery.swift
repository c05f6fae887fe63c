// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import Foundation
import Synchronized

/// `mock serve --webhook URL`: POSTs every answered request's inbox entry (the JSON
/// `GET /api/notifications` gives for it) to a receiver, one POST per entry, in the order the
/// gateway answered them.
///
/// The gateway's side is a hand-off only: `enqueue` takes a lock and appends a reference to
/// the entry (or counts it dropped when `queueLimit` entries wait), so a slow, failing or
/// stalled receiver never slows the gateway. One thread of its own delivers, blocking on its
/// socket for at most `answerTimeout` per attempt; a connection failure, a timeout, a 5xx or
/// a 429 is retried up to `retries` times with doubling waits, then the entry is dropped.
/// Every entry ends counted exactly once: delivered (the receiver answered 2xx), or in one
/// of the drop counts.
package final class WebhookDelivery: Sendable {
    package struct Configuration: Sendable {
        /// Where to POST: host, port and the request target (path and query).
        package var url: Address
        /// Entries waiting at most; one more is dropped (counted) at once.
        package var queueLimit = WebhookDelivery.defaultQueueLimit
        /// Attempts after the first, for a connection failure, a timeout, 5xx or 429.
        package var retries = WebhookDelivery.defaultRetries
        /// One attempt's bound: connecting and the whole answer.
        package var answerTimeout: Double = 10
        /// The wait before the first retry; each next one doubles, up to `maxBackoff`.
        package var firstBackoff: Double = 0.1
        package var maxBackoff: Double = 5
        /// An https receiver's certificate is checked against these CA certificates (PEM);
        /// nil: the system's trust store.
        package var caFile: String?

        package init(url: Address) { self.url = url }
    }

    /// An `http://HOST[:PORT][/PATH][?QUERY]` address, checked.
    package struct Address: Sendable, Equatable, CustomStringConvertible {
        package let host: String
        package let port: Int
        package let target: String
        package let description: String

        /// TLS (`https://`), with the receiver's certificate and host name checked.
        package let tls: Bool

        /// Nil for anything but an `http://` or `https://` URL with a host (no user, no fragment).
        package init?(_ text: String) {
            guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = parts.host, !host.isEmpty, parts.user == nil, parts.fragment == nil else { return nil }
            self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            tls = scheme == "https"
            port = parts.port ?? (tls ? 443 : 80)
            guard (1...65_535).contains(port) else { return nil }
            let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
            target = path + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
            description = text
        }
    }

    /// Why 10,000: the inbox's own default, a burst of a CI run's pushes while a receiver
    /// restarts; each waiting entry is a reference to one the gateway already made (at most
    /// the 5 KB payload it keeps), so the queue holds at most about 55 MB.
    package static let defaultQueueLimit = 10_000
    /// Why 5: with waits of 0.1, 0.2, 0.4, 0.8 and 1.6 s, a receiver that restarts within
    /// about 3 s loses nothing; one that is down longer is not held for by the queue.
    package static let defaultRetries = 5

    /// What happened to the entries so far.
    package struct Stats: Sendable, Equatable {
        /// Waiting, the one being delivered included.
        package var queued = 0
        /// The receiver answered 2xx.
        package var delivered = 0
        /// Attempts after a first one (each entry's retries added up).
        package var retried = 0
        /// Dropped at once: `queueLimit` entries were waiting.
        package var droppedQueueFull = 0
        /// Dropped after `retries` retries, or answered with a status that is not retried (4xx
        /// but 429, 3xx, 1xx).
        package var droppedFailed = 0
        /// Still waiting when the stop's flush time ran out.
        package var droppedAtStop = 0
        /// The last failed attempt: its status (nil: no answer) and what went wrong.
        package var lastFailure: (status: Int?, failure: Failure?)?

        package var dropped: Int { droppedQueueFull + droppedFailed + droppedAtStop }

        package static func == (a: Stats, b: Stats) -> Bool {
            (a.queued, a.delivered, a.retried, a.droppedQueueFull, a.droppedFailed, a.droppedAtStop)
                == (b.queued, b.delivered, b.retried, b.droppedQueueFull, b.droppedFailed, b.droppedAtStop)
        }
    }

    private struct State {
        var waiting: [InboxStore.Entry] = []
        /// `waiting[head...]` are the entries still to deliver (the ones before are delivered or
        /// dropped, removed in batches so taking one is O(1)).
        var head = 0
        var stats = Stats()
        /// Set by `stop`: deliver what waits until then, drop the rest.
        var flushDeadline: Date?
        var count: Int { waiting.count - head }
    }

    /// Why an attempt got no answer: the socket's (plain HTTP), or the TLS connection's.
    package enum Failure: Error, Sendable, Equatable {
        case plain(PlainHTTP.Failure)
        case transport(TransportError)
    }

    package let configuration: Configuration
    private let state = Locked(State())
    /// The https receiver's connections run on a loop of their own, never the gateway's.
    private let tlsLoop: EventLoop?
    private let done = Latch()
    /// Told, at most once a second, that the drop counts grew (the CLI logs it).
    private let onDrops: @Sendable (Stats) -> Void

    package init(configuration: Configuration, onDrops: @escaping @Sendable (Stats) -> Void = { _ in }) {
        self.configuration = configuration
        self.onDrops = onDrops
        tlsLoop = configuration.url.tls ? EventLoop(name: "apnskit.webhook") : nil
        let thread = Thread { [self] in run() }
        thread.name = "apnskit-webhook"
        thread.start()
    }

    /// The gateway's hand-off (its event loop thread): a lock and an append, or a count.
    package func enqueue(_ entry: InboxStore.Entry) {
        let queued: Bool = state.withLock { state in
            guard state.flushDeadline == nil, state.count < configuration.queueLimit else {
                state.stats.droppedQueueFull += 1
                return false
            }
            state.waiting.append(entry)
            return true
        }
        if queued { state.signal() }
    }

    package var stats: Stats { state.withLock { state in var stats = state.stats; stats.queued = state.count; return stats } }

    /// Delivers what waits for at most `seconds` more, counts the rest dropped, and returns
    /// the final counts. Entries handed over after this are dropped.
    package func stop(flushingFor seconds: Double) async -> Stats {
        state.withLock { $0.flushDeadline = Date().addingTimeInterval(seconds) }
        state.broadcast()
        await done.wait()
        tlsLoop?.shutdown()
        return stats
    }

    // MARK: The delivery thread

    private enum Outcome { case delivered, retry(Int?, Failure?), failed(Int?, Failure?) }

    private func run() {
        var reportedDrops = 0
        var lastReport = Date.distantPast
        while true {
            // The next entry (left in the queue until it is settled), waking at least once a
            // second to report drops; nil once stopped.
            let next: InboxStore.Entry?? = state.withLock(waitingUntil: { $0.count > 0 || $0.flushDeadline != nil },
                                                          deadline: Date().addingTimeInterval(1)) { state in
                if let deadline = state.flushDeadline, state.count == 0 || Date() >= deadline {
                    state.stats.droppedAtStop += state.count
                    state.waiting.removeAll()
                    state.head = 0
                    return .some(nil)
                }
                return state.count > 0 ? .some(state.waiting[state.head]) : .none
            }
            let stats = self.stats
            if stats.dropped > reportedDrops, Date().timeIntervalSince(lastReport) >= 1 {
                reportedDrops = stats.dropped
                lastReport = Date()
                onDrops(stats)
            }
            guard let next else { continue }
            guard let entry = next else { break }
            deliver(entry)
        }
        done.open()
    }

    /// Posts one entry until it is settled: delivered, or dropped (failed, or out of time at stop).
    private func deliver(_ entry: InboxStore.Entry) {
        let body = entry.json.serialized()
        var attempt = 0
        while true {
            let deadline = state.withLock { $0.flushDeadline }
            let timeout = deadline.map { min(configuration.answerTimeout, $0.timeIntervalSinceNow) } ?? configuration.answerTimeout
            if timeout <= 0 { return }  // `run` counts it dropped at stop
            let outcome = post(body, id: entry.id, timeout: timeout)
            let settled: Bool = state.withLock { state in
                switch outcome {
                case .delivered:
                    state.stats.delivered += 1
                case .retry(let status, let failure) where attempt < configuration.retries:
                    state.stats.lastFailure = (status, failure)
                    if let deadline = state.flushDeadline, Date() >= deadline { return false }
                    state.stats.retried += 1
                    return false
                case .retry(let status, let failure), .failed(let status, let failure):
                    state.stats.lastFailure = (status, failure)
                    state.stats.droppedFailed += 1
                }
                state.head += 1
                if state.head >= 1024, state.head * 2 >= state.waiting.count {
                    state.waiting.removeFirst(state.head)
                    state.head = 0
                }
                return true
            }
            if settled { return }
            // The wait before the next attempt; a stop cuts it short.
            let wait = min(configuration.firstBackoff * Double(1 << min(attempt, 30)), configuration.maxBackoff)
            let until = Date().addingTimeInterval(wait)
            let stopping = state.withLock(waitingUntil: { $0.flushDeadline.map { Date() >= $0 } ?? false }, deadline: until) { state in
                state.flushDeadline.map { Date() >= $0 } ?? false
            }
            if stopping { return }
            attempt += 1
        }
    }

    private func post(_ body: [UInt8], id: Int, timeout: Double) -> Outcome {
        let url = configuration.url
        let http = PlainHTTP(host: url.host, port: url.port)
        let headers = [("Content-Type", "application/json"), ("User-Agent", "apnskit-mock-webhook"), ("X-Apnskit-Entry", String(id))]
        let result: Result<PlainHTTP.Answer, Failure>
        if let tlsLoop {
            result = exchangeOverTLS(http.request("POST", url.target, headers: headers, body: body), timeout: timeout, loop: tlsLoop)
        } else {
            do {
                result = .success(try http.exchange("POST", url.target, headers: headers, body: body, connectTimeout: timeout,
                                                    answerTimeout: timeout, maxAnswer: Self.maxAnswer))
            } catch {
                result = .failure(.plain(error))
            }
        }
        switch result {
        case .success(let answer) where (200..<300).contains(answer.status): return .delivered
        case .success(let answer) where answer.status == 429 || (500..<600).contains(answer.status): return .retry(answer.status, nil)
        case .success(let answer): return .failed(answer.status, nil)
        // Not a receiver, or a certificate that is not trusted: trying again changes nothing.
        case .failure(let failure) where failure == .plain(.tooLarge(limit: Self.maxAnswer)) || failure == .plain(.notHTTP): return .failed(nil, failure)
        case .failure(.transport(let error)) where Self.isPermanent(error): return .failed(nil, .transport(error))
        case .failure(let failure): return .retry(nil, failure)
        }
    }

    /// A receiver whose certificate is not trusted (or a TLS setup that cannot work) is not
    /// retried: the next attempt meets the same certificate.
    private static func isPermanent(_ error: TransportError) -> Bool {
        switch error.kind {
        case .untrustedServer, .configuration: return true
        default: return false
        }
    }

    /// One exchange with an https receiver: the TLS connection is async (on `loop`), and this
    /// thread of our own waits for it, at most `timeout` (the connection's own bounds).
    private func exchangeOverTLS(_ request: [UInt8], timeout: Double, loop: EventLoop) -> Result<PlainHTTP.Answer, Failure> {
        let url = configuration.url
        let trust: TLSConfiguration.Trust = configuration.caFile.map { .caFile($0) } ?? .system
        let outcome = Locked<Result<PlainHTTP.Answer, Failure>?>(nil)
        Task {
            let result: Result<PlainHTTP.Answer, Failure>
            do {
                let client = try await TLSClient.connect(to: Endpoint(host: url.host, port: url.port), tls: TLSConfiguration(trust: trust),
                                                         timeout: timeout, loop: loop)
                defer { client.close() }
                client.write(request)
                let deadline = Date().addingTimeInterval(timeout)
                var answer: [UInt8] = []
                while !PlainHTTP.isComplete(answer) {
                    guard deadline.timeIntervalSinceNow > 0 else { throw PlainHTTP.Failure.noAnswer(seconds: timeout, errno: 0) }
                    guard let bytes = try await client.read(timeout: deadline.timeIntervalSinceNow) else { break }
                    answer += bytes
                    guard answer.count <= Self.maxAnswer else { throw PlainHTTP.Failure.tooLarge(limit: Self.maxAnswer) }
                }
                result = .success(try PlainHTTP.parse(answer))
            } catch let error as PlainHTTP.Failure {
                result = .failure(.plain(error))
            } catch let error as TransportError {
                result = .failure(.transport(error))
            } catch {
                result = .failure(.transport(TransportError(.internalFailure, "\(error)")))
            }
            outcome.withLock { $0 = result }
            outcome.broadcast()
        }
        // The connection's own timeouts end the task well before this; the margin only keeps
        // this thread from waiting for good should one not.
        return outcome.withLock(waitingUntil: { $0 != nil }, deadline: Date().addingTimeInterval(2 * timeout + 5)) {
            $0 ?? .failure(.plain(.noAnswer(seconds: timeout, errno: 0)))
        }
    }

    /// A receiver's answer is read and thrown away; more than this is not a webhook receiver.
    static let maxAnswer = 1024 * 1024
}

extension WebhookDelivery.Stats {
    /// `GET /api/stats`' `webhook` object.
    package func json(for configuration: WebhookDelivery.Configuration) -> JSONValue {
        .object([
            ("url", .string(configuration.url.description)),
            ("queue_limit", .int(configuration.queueLimit)),
            ("retries", .int(configuration.retries)),
            ("queued", .int(queued)),
            ("delivered", .int(delivered)),
            ("retried", .int(retried)),
            ("dropped", .int(dropped)),
            ("dropped_queue_full", .int(droppedQueueFull)),
            ("dropped_failed", .int(droppedFailed)),
            ("dropped_at_stop", .int(droppedAtStop)),
        ])
    }
}
