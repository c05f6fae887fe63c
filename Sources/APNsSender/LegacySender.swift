// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation
import Synchronized

/// Sends through the legacy binary gateway (apns-protocol.md §4) with the same one-result-per-
/// notification accounting as the HTTP/2 sender.
///
/// The protocol never acknowledges success: the gateway only answers an error
/// (`8 | status | identifier`), then closes and drops everything sent after that identifier.
/// So the sender keeps a buffer of what it sent on the current connection; on an error it
/// reports that notification as rejected (with the legacy status name), counts the earlier
/// ones delivered, and resends the later ones on a new connection. A notification counts as
/// delivered when (a) it fell out of the bounded buffer (`bufferLimit` newer ones were sent
/// after it without an error naming it), or (b) at the end we closed the connection ourselves
/// after `quietPeriod` seconds without an error response. A connection that closes without an
/// error response leaves the buffered notifications in doubt: they are resent and marked
/// possibly duplicated.
package final class LegacySender: Sendable {
    package struct Options: Sendable {
        package var format: LegacyFormat
        /// Seconds of silence after the last frame before the connection is closed and the
        /// buffered notifications count as delivered.
        package var quietPeriod: Double
        package var connectTimeout: Double
        /// Notifications kept for resending; older ones are final (delivered).
        package var bufferLimit: Int
        /// Sends per notification before it is reported failed.
        package var maximumAttempts: Int
        /// Consecutive failed connects before the gateway is declared unreachable.
        package var maximumReconnects: Int

        package init(format: LegacyFormat = .framed, quietPeriod: Double = 1, connectTimeout: Double = 10, bufferLimit: Int = 10_000,
                    maximumAttempts: Int = 3, maximumReconnects: Int = 3) {
            self.format = format
            self.quietPeriod = quietPeriod
            self.connectTimeout = connectTimeout
            self.bufferLimit = max(1, bufferLimit)
            self.maximumAttempts = max(1, maximumAttempts)
            self.maximumReconnects = maximumReconnects
        }
    }

    package let endpoint: Endpoint
    package let options: Options
    private let tls: TLSConfiguration

    package init(endpoint: Endpoint, identity: APNsIdentity, trust: TLSConfiguration.Trust = .system, options: Options = Options()) {
        self.endpoint = endpoint
        self.options = options
        var tls = TLSConfiguration.client(identity: identity, trust: trust)
        tls.applicationProtocols = []
        self.tls = tls
    }

    /// Sends everything `feed` yields; `onResult` is called exactly once per notification, in
    /// the sending task.
    package func send(_ feed: some APNsNotificationFeed, onResult: @escaping @Sendable (APNsSendResult) -> Void) async -> APNsBatchSummary {
        var run = LegacyRun(sender: self, onResult: onResult)
        await run.execute(feed)
        return run.summary
    }

    func connect() async throws -> TLSClient {
        try await TLSClient.connect(to: endpoint, tls: tls, timeout: options.connectTimeout)
    }

    /// Why `notification` cannot go over the legacy protocol, checked before sending.
    package func localProblem(_ notification: APNsNotification) -> String? {
        if notification.token.bytes.count != 32 {
            return "the legacy protocol takes 32-byte device tokens; this one has \(notification.token.bytes.count) bytes"
        }
        let payload = notification.payload
        if payload.isEmpty { return "the payload is empty" }
        if payload.count > options.format.payloadLimit {
            return "the payload is \(payload.count) bytes; the legacy \(options.format.rawValue) format takes at most \(options.format.payloadLimit)"
        }
        if !JSONSyntax.isObject(payload) { return "the payload is not a JSON object" }
        return nil
    }
}

/// What the reader task saw on the current connection: the error response, or its end.
final class LegacyWatch: Sendable {
    enum Event { case error(LegacyErrorResponse), closed(String?) }
    private let seen = Locked((bytes: [UInt8](), closedReason: String??.none))

    func append(_ data: [UInt8]) { seen.withLock { $0.bytes += data } }
    func close(_ reason: String?) { seen.withLock { if $0.closedReason == nil { $0.closedReason = .some(reason) } } }

    var event: Event? {
        seen.withLock { seen in
            if seen.bytes.count >= LegacyErrorResponse.size, let response = LegacyErrorResponse(bytes: seen.bytes) { return .error(response) }
            if let closedReason = seen.closedReason { return .closed(closedReason) }
            return nil
        }
    }
}

/// One batch's mutable state; lives in one task.
struct LegacyRun {
    struct Entry {
        let index: Int
        let notification: APNsNotification
        var identifier: UInt32 = 0
        var attempts = 0
        var duplicate = false
    }

    let sender: LegacySender
    let onResult: @Sendable (APNsSendResult) -> Void
    var summary = APNsBatchSummary()
    private var pending: [Entry] = []
    private var pendingHead = 0
    private var inFlight: [Entry] = []
    private var inFlightHead = 0
    private var nextIdentifier: UInt32 = 1
    private var client: TLSClient?
    private var watch = LegacyWatch()
    private var reader: Task<Void, Never>?
    private var connects = 0
    private var failures = 0
    private var unreachable: String?

    init(sender: LegacySender, onResult: @escaping @Sendable (APNsSendResult) -> Void) {
        self.sender = sender
        self.onResult = onResult
    }

    mutating func execute(_ feed: some APNsNotificationFeed) async {
        var written = 0
        while true {
            guard var entry = nextEntry(feed) else {
                if inFlight.count == inFlightHead { break }
                // Everything is written: wait for a quiet period, then trust the silence.
                if await awaitQuiet() { closeConnection(); finishInFlight(); break }
                continue
            }
            if let unreachable { finish(entry, .failed(APNsSendError(.gatewayUnreachable, "Cannot reach the gateway: \(unreachable)"))); continue }
            if client == nil {
                if !(await connect()) { pushFront([entry]); continue }
            }
            if let event = watch.event {
                pushFront([entry])
                handle(event)
                continue
            }
            entry.identifier = nextIdentifier
            nextIdentifier &+= 1
            entry.attempts += 1
            let frame = LegacyNotification(token: entry.notification.token.bytes, payload: entry.notification.payload, identifier: entry.identifier,
                                           expiry: UInt32(clamping: entry.notification.expiration ?? 0),
                                           priority: entry.notification.priority == .immediate || entry.notification.priority == nil ? 10 : 5)
            client?.write(frame.encoded(sender.options.format))
            inFlight.append(entry)
            if inFlight.count - inFlightHead > sender.options.bufferLimit {
                let oldest = inFlight[inFlightHead]
                inFlightHead += 1
                finish(oldest, .delivered)
                compactInFlight()
            }
            written += 1
            if written % 64 == 0, let client { await client.waitUntilWritable() }
        }
        summary.reconnects = max(0, connects - 1)
        summary.connectionFailure = unreachable
    }

    /// The next notification to send: resends first, then the feed (local problems end here).
    private mutating func nextEntry(_ feed: some APNsNotificationFeed) -> Entry? {
        if pendingHead < pending.count {
            let entry = pending[pendingHead]
            pendingHead += 1
            if pendingHead == pending.count { pending.removeAll(keepingCapacity: true); pendingHead = 0 }
            return entry
        }
        while let (index, notification) = feed.next() {
            let entry = Entry(index: index, notification: notification)
            if let problem = sender.localProblem(notification) {
                finish(entry, .failed(APNsSendError(.invalidNotification, "Not sent: \(problem).")))
                continue
            }
            return entry
        }
        return nil
    }

    private mutating func pushFront(_ entries: [Entry]) {
        pending = entries + pending[pendingHead...]
        pendingHead = 0
    }

    private mutating func connect() async -> Bool {
        if failures > 0 {
            // The one back-off formula (`APNsRetryPolicy.backOff`), without jitter: 0.1 s doubling to 2 s.
            let delay = APNsRetryPolicy.backOff(first: 0.1, cap: 2, step: failures, jitter: 1)
            try? await Task.sleep(nanoseconds: TimerSeconds.nanoseconds(delay))
        }
        do {
            let client = try await sender.connect()
            self.client = client
            connects += 1
            failures = 0
            let watch = LegacyWatch()
            self.watch = watch
            reader = Task {
                while true {
                    do {
                        guard let bytes = try await client.read(timeout: 5) else { watch.close(nil); return }
                        watch.append(bytes)
                    } catch let error as TransportError where error.kind == .timeout {
                        continue
                    } catch {
                        watch.close("\(error)")
                        return
                    }
                }
            }
            return true
        } catch {
            failures += 1
            if failures > sender.options.maximumReconnects {
                unreachable = (error as? TransportError)?.message ?? "\(error)"
            }
            return false
        }
    }

    private mutating func closeConnection() {
        client?.close()
        reader?.cancel()
        client = nil
        reader = nil
    }

    /// Waits up to the quiet period for an error response; true when none came.
    private mutating func awaitQuiet() async -> Bool {
        let deadline = Date().addingTimeInterval(sender.options.quietPeriod)
        while Date() < deadline {
            if let event = watch.event { handle(event); return false }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        if let event = watch.event { handle(event); return false }
        return true
    }

    /// The gateway answered an error (or closed): settle the buffer and drop the connection.
    private mutating func handle(_ event: LegacyWatch.Event) {
        closeConnection()
        let buffered = Array(inFlight[inFlightHead...])
        inFlight.removeAll(keepingCapacity: true)
        inFlightHead = 0
        var resend: [Entry] = []
        var why = "the gateway kept closing the connection"
        switch event {
        case .error(let response):
            if let position = buffered.firstIndex(where: { $0.identifier == response.identifier }) {
                for entry in buffered[..<position] { finish(entry, .delivered) }
                let failed = buffered[position]
                if response.status == .shutdown {
                    finish(failed, .delivered)  // identifier = the last one processed
                } else {
                    finish(failed, .rejected(status: Int(response.status.rawValue), reason: APNsReason(rawValue: response.status.name), timestamp: nil))
                }
                resend = Array(buffered[(position + 1)...])
            } else {
                resend = buffered  // names one no longer buffered: everything here came after it
            }
        case .closed(let reason):
            // No error response: the gateway may or may not have taken what was buffered.
            if let reason { why = "the gateway kept closing the connection without an error response (\(reason))" }
            resend = buffered.map { var entry = $0; entry.duplicate = true; return entry }
        }
        var requeue: [Entry] = []
        for entry in resend {
            if entry.attempts >= sender.options.maximumAttempts {
                finish(entry, .failed(APNsSendError(.connectionLost, "Gave up after \(entry.attempts) attempts: \(why).", mayHaveBeenDelivered: true)))  // written, and the legacy protocol never acknowledges
            } else {
                requeue.append(entry)
            }
        }
        pushFront(requeue)
    }

    private mutating func finishInFlight() {
        for entry in inFlight[inFlightHead...] { finish(entry, .delivered) }
        inFlight.removeAll()
        inFlightHead = 0
    }

    private mutating func compactInFlight() {
        if inFlightHead > 4096 && inFlightHead * 2 > inFlight.count {
            inFlight.removeFirst(inFlightHead)
            inFlightHead = 0
        }
    }

    private mutating func finish(_ entry: Entry, _ outcome: APNsSendResult.Outcome) {
        let result = APNsSendResult(index: entry.index, token: entry.notification.token,
                                        apnsIDText: entry.notification.apnsID.map(MessageID.text) ?? "legacy-\(entry.identifier)",
                                        outcome: outcome, attempts: entry.attempts, possiblyDuplicated: entry.duplicate)
        summary.record(result)
        onResult(result)
    }
}
