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
/// socket for at most `answerTimeout` per attempt (connecting, sending and the whole answer,
/// however the receiver paces its bytes), and giving up at once when a stop's flush time runs
/// out.
///
/// At most once: an attempt is retried (up to `retries` times, with doubling waits) only when
/// the receiver cannot have taken the entry: the connection failed or closed before the whole
/// POST was written, or the receiver answered 5xx or 429 (it said it did not take it). Once the
/// whole POST is written and no answer says what became of it (none within the time, the
/// connection closed or cut short, a stop), the entry is counted `maybeDelivered` and not sent
/// again: the receiver may have it, and posting it again made a slow receiver get one entry
/// three times while the counts said it was dropped (issue 31). Every entry ends counted
/// exactly once: delivered (the receiver answered 2xx), maybe delivered, or in one of the drop
/// counts.
package final class WebhookDelivery: Sendable {
    package struct Configuration: Sendable {
        /// Where to POST: host, port and the request target (path and query).
        package var url: Address
        /// Entries waiting at most; one more is dropped (counted) at once.
        package var queueLimit = WebhookDelivery.defaultQueueLimit
        /// Attempts after the first, for a connection failure, a timeout, 5xx or 429.
        package var retries = WebhookDelivery.defaultRetries
        /// One attempt's bound: connecting, sending and the whole answer.
        package var answerTimeout: Double = WebhookDelivery.attemptSeconds
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
            switch PortNumber.inURL(text) {
            case .absent: port = tls ? 443 : 80
            case .valid(let number): port = number
            case .invalid: return nil
            }
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
    /// One POST, from connecting to the answer's last byte (docs/mock-gateway.md, "Webhooks").
    package static let attemptSeconds = 10.0

    /// What happened to the entries so far.
    package struct Stats: Sendable, Equatable {
        /// Waiting, the one being delivered included.
        package var queued = 0
        /// The receiver answered 2xx.
        package var delivered = 0
        /// The whole POST was written, then no answer said what became of it (none within the
        /// attempt's time, the connection closed or cut short, the stop's flush time ran out):
        /// the receiver may have it. Not posted again.
        package var maybeDelivered = 0
        /// Attempts after a first one (each entry's retries added up).
        package var retried = 0
        /// Dropped at once: `queueLimit` entries were waiting.
        package var droppedQueueFull = 0
        /// Dropped after `retries` retries, or answered with a status that is not retried (4xx
        /// but 429, 3xx, 1xx).
        package var droppedFailed = 0
        /// Still waiting (or being posted but not yet written whole) when the stop's flush time ran out.
        package var droppedAtStop = 0
        /// The last failed attempt: its status (nil: no answer) and what went wrong.
        package var lastFailure: (status: Int?, failure: Failure?)?

        package var dropped: Int { droppedQueueFull + droppedFailed + droppedAtStop }

        package static func == (a: Stats, b: Stats) -> Bool {
            (a.queued, a.delivered, a.maybeDelivered, a.retried) == (b.queued, b.delivered, b.maybeDelivered, b.retried)
                && (a.droppedQueueFull, a.droppedFailed, a.droppedAtStop) == (b.droppedQueueFull, b.droppedFailed, b.droppedAtStop)
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

        /// The peer answered, but not as an HTTP receiver does (too much, or not HTTP).
        var isNoReceiver: Bool {
            switch self {
            case .plain(.tooLarge), .plain(.notHTTP): return true
            default: return false
            }
        }
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

    private enum Outcome { case delivered, maybeDelivered(Failure), retry(Int?, Failure?), failed(Int?, Failure?), stopped }

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

    /// Whether a stop's flush time has run out: an attempt in progress gives up.
    private var flushTimeIsUp: Bool { state.withLock { state in state.flushDeadline.map { Date() >= $0 } ?? false } }

    /// Posts one entry until it is settled: delivered, maybe delivered, or dropped (failed, or
    /// out of time at stop).
    private func deliver(_ entry: InboxStore.Entry) {
        let body = entry.json.serialized()
        var attempt = 0
        while true {
            if flushTimeIsUp { return }  // `run` counts it dropped at stop
            let outcome = post(body, id: entry.id, timeout: configuration.answerTimeout)
            let settled: Bool = state.withLock { state in
                switch outcome {
                case .stopped:
                    return false  // not written whole: `run` counts it dropped at stop
                case .delivered:
                    state.stats.delivered += 1
                case .maybeDelivered(let failure):
                    state.stats.lastFailure = (nil, failure)
                    state.stats.maybeDelivered += 1
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
            if case .stopped = outcome { return }
            // The wait before the next attempt; a stop cuts it short.
            let wait = min(configuration.firstBackoff * Double(1 << min(attempt, 30)), configuration.maxBackoff)
            let until = Date().addingTimeInterval(wait)
            while Date() < until, !flushTimeIsUp {
                state.withLock(waitingUntil: { _ in false }, deadline: min(until, Date().addingTimeInterval(PlainHTTP.pollSlice))) { _ in }
            }
            if flushTimeIsUp { return }
            attempt += 1
        }
    }

    private func post(_ body: [UInt8], id: Int, timeout: Double) -> Outcome {
        let url = configuration.url
        let http = PlainHTTP(host: url.host, port: url.port)
        let headers = [("Content-Type", "application/json"), ("User-Agent", "apnskit-mock-webhook"), ("X-Apnskit-Entry", String(id))]
        // Whether the whole POST went out: then the receiver may have the entry.
        let result: Result<PlainHTTP.Answer, Failure>, written: Bool
        if let tlsLoop {
            (result, written) = exchangeOverTLS(http.request("POST", url.target, headers: headers, body: body), timeout: timeout, loop: tlsLoop)
        } else {
            do {
                result = .success(try http.exchange("POST", url.target, headers: headers, body: body, timeout: timeout, maxAnswer: Self.maxAnswer,
                                                    keepBody: false, abandoned: { flushTimeIsUp }))
                written = true
            } catch {
                result = .failure(.plain(error))
                written = error.requestMayHaveArrived
            }
        }
        switch result {
        case .success(let answer) where (200..<300).contains(answer.status): return .delivered
        case .success(let answer) where answer.status == 429 || (500..<600).contains(answer.status): return .retry(answer.status, nil)
        case .success(let answer): return .failed(answer.status, nil)
        // Not a receiver, or a certificate that is not trusted: trying again changes nothing.
        case .failure(let failure) where failure.isNoReceiver: return .failed(nil, failure)
        case .failure(.transport(let error)) where Self.isPermanent(error): return .failed(nil, .transport(error))
        case .failure(let failure) where written: return .maybeDelivered(failure)
        case .failure(.plain(.abandoned)): return .stopped
        case .failure(let failure): return flushTimeIsUp ? .stopped : .retry(nil, failure)
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
    /// thread of our own waits for it, at most `timeout` (the connection's own bounds) and no
    /// longer than a stop's flush time. `written`: the handshake was done and the POST queued
    /// (from then on the receiver may have it).
    private func exchangeOverTLS(_ request: [UInt8], timeout: Double, loop: EventLoop) -> (Result<PlainHTTP.Answer, Failure>, written: Bool) {
        let url = configuration.url
        let trust: TLSConfiguration.Trust = configuration.caFile.map { .caFile($0) } ?? .system
        let outcome = Locked<Result<PlainHTTP.Answer, Failure>?>(nil)
        let written = Locked(false)
        let deadline = Date().addingTimeInterval(timeout)
        let task = Task {
            let result: Result<PlainHTTP.Answer, Failure>
            do {
                let client = try await TLSClient.connect(to: Endpoint(host: url.host, port: url.port), tls: TLSConfiguration(trust: trust),
                                                         timeout: timeout, loop: loop)
                defer { client.close() }
                client.write(request)
                written.withLock { $0 = true }
                var reader = HTTPAnswerReader(maxAnswer: Self.maxAnswer, keepBody: false)
                while !reader.isComplete {
                    guard deadline.timeIntervalSinceNow > 0, !Task.isCancelled else {
                        throw PlainHTTP.Failure.noAnswer(seconds: timeout, received: reader.received)
                    }
                    guard let bytes = try await client.read(timeout: deadline.timeIntervalSinceNow) else {
                        guard reader.received > 0 else { throw PlainHTTP.Failure.closedWithoutAnswer(errno: 0) }
                        break
                    }
                    do throws(HTTPAnswerReader.Failure) { try reader.append(bytes) } catch {
                        throw error == .tooLarge ? PlainHTTP.Failure.tooLarge(limit: Self.maxAnswer) : .notHTTP(opening: reader.opening)
                    }
                }
                guard let status = reader.status else { throw PlainHTTP.Failure.notHTTP(opening: reader.opening) }
                result = .success(PlainHTTP.Answer(status: status, body: []))
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
        // Waits in slices, so a stop's flush time is seen; the connection's own timeouts end
        // the task by `deadline`, the margin only keeps this thread from waiting for good.
        while true {
            let result = outcome.withLock(waitingUntil: { $0 != nil }, deadline: min(Date().addingTimeInterval(PlainHTTP.pollSlice), deadline + 5)) { $0 }
            if let result { return (result, written.withLock { $0 }) }
            if flushTimeIsUp || Date() >= deadline + 5 {
                task.cancel()
                let sent = written.withLock { $0 }
                return (.failure(.plain(flushTimeIsUp ? .abandoned(requestSent: sent) : .noAnswer(seconds: timeout, received: 0))), sent)
            }
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
            ("maybe_delivered", .int(maybeDelivered)),
            ("retried", .int(retried)),
            ("dropped", .int(dropped)),
            ("dropped_queue_full", .int(droppedQueueFull)),
            ("dropped_failed", .int(droppedFailed)),
            ("dropped_at_stop", .int(droppedAtStop)),
        ])
    }
}
