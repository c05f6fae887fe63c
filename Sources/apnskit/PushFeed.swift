// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import CLIFormats
import Foundation
import Synchronized

/// The notifications of one `push` run, pulled lazily so a million-line token file costs the
/// memory of one read chunk. Lines that cannot be sent (bad token, bad JSON, a payload over the
/// limit) never reach the sender: they are reported through `onInvalid` and counted as rejected.
final class PushFeed: APNsNotificationFeed, Sendable {
    typealias Check = @Sendable (APNsNotification) -> String?

    private let template: APNsNotification
    private let defaultPayload: [UInt8]
    private let check: Check
    /// `removable`: the token itself is malformed, so it can never be delivered.
    typealias OnInvalid = @Sendable (_ index: Int, _ token: String, _ reason: String, _ removable: Bool) -> Void
    private let onInvalid: OnInvalid

    /// What `next` reads and counts; its lock is held while `next` waits for input.
    private struct Reading {
        var reader: LineReader?
        var single: APNsDeviceToken?
        var produced = 0
        /// A read error ended the feed (`failure` says which).
        var failed = false
        /// The check's verdict on the template: it reads the payload and headers, never the
        /// token, so lines without a payload of their own share it (no JSON scan per line).
        var templateProblem: String??
    }

    private let reading: Locked<Reading>
    /// When the app last registered a token, by index, from its line (or `--registered-at`)
    /// until its result takes it: at most the notifications in flight. A lock of its own: the
    /// result thread takes from it while `next` may hold `reading`'s, waiting for input.
    private let registrations = Locked<[Int: Date]>([:])
    /// Set by `stop()` (a signal): no further line is read. A lock of its own, because `next`
    /// holds `reading`'s while it waits for input.
    private let stopped = Locked(false)
    /// The read error that ended the feed: a lock of its own, read by the command after a
    /// signal ended the run while `next` may still hold `reading`'s, waiting on a pipe whose
    /// writer keeps it open (a push stopped by SIGINT used to hang there, before its summary).
    private let failure = Locked<String?>(nil)

    /// A read error ends the feed; the command reports it (exit 3) after the batch.
    var readError: String? { failure.withLock { $0 } }
    /// Notifications handed to the sender so far; read only once the input has ended (after a
    /// read error), when `next` holds no lock.
    var produced: Int { reading.withLock { $0.produced } }

    /// Reads nothing more: `next` returns nil from now on.
    func stop() { stopped.withLock { $0 = true } }
    private var isStopped: Bool { stopped.withLock { $0 } }

    /// One notification to `token`, which the app last registered at `registeredAt` (if known).
    init(token: APNsDeviceToken, registeredAt: Date? = nil, template: APNsNotification, check: @escaping Check, onInvalid: @escaping OnInvalid) {
        self.template = template
        self.defaultPayload = template.payload
        self.check = check
        self.onInvalid = onInvalid
        reading = Locked(Reading(single: token))
        if let registeredAt { registrations.withLock { $0[0] = registeredAt } }
    }

    /// The registration time given for the notification at `index`, forgotten once taken.
    func takeRegistration(_ index: Int) -> Date? {
        registrations.withLock { $0.isEmpty ? nil : $0.removeValue(forKey: index) }
    }

    /// One notification per line of `reader` (token, optionally followed by a JSON payload).
    init(reader: sending LineReader, template: APNsNotification, check: @escaping Check, onInvalid: @escaping OnInvalid) {
        self.template = template
        self.defaultPayload = template.payload
        self.check = check
        self.onInvalid = onInvalid
        reading = Locked(Reading(reader: reader))
    }

    func next() -> (index: Int, notification: APNsNotification)? {
        if isStopped { return nil }
        return reading.withLock { state in
            if let token = state.single {
                state.single = nil
                return accept(index: 0, token: token, payload: nil, registeredAt: nil, &state)
            }
            guard let reader = state.reader, !state.failed else { return nil }
            // Stopped is asked again only after a line that was not sent: a sent line returns.
            while true {
                let line: LineReader.Line?
                do {
                    line = try reader.next()
                } catch {
                    state.failed = true
                    failure.withLock { $0 = "\(error)" }
                    return nil
                }
                switch line {
                case nil:
                    return nil
                case .tooLong(let number)?:
                    onInvalid(number - 1, "", "Line \(number) is longer than \(reader.maximumLineLength) bytes.", false)
                case .text(let bytes, let number)?:
                    switch BatchLine.parse(bytes) {
                    case .skip:
                        break
                    case .invalid(let reason):
                        onInvalid(number - 1, Self.tokenText(bytes), "Line \(number): \(reason)", false)
                    case .badToken(let reason):
                        onInvalid(number - 1, Self.tokenText(bytes), "Line \(number): \(reason)", true)
                    case .entry(let token, let payload, let registeredAt):
                        if let found = accept(index: number - 1, token: token, payload: payload, registeredAt: registeredAt, &state) { return found }
                    }
                }
                if isStopped { return nil }
            }
        }
    }

    /// The token's text is made only for a line that is refused: most lines are sent.
    private func accept(index: Int, token: APNsDeviceToken, payload: [UInt8]?, registeredAt: Date?,
                        _ state: inout Reading) -> (index: Int, notification: APNsNotification)? {
        var notification = template
        notification.token = token
        notification.payload = payload ?? defaultPayload
        let problem: String?
        if payload == nil {
            if state.templateProblem == nil { state.templateProblem = .some(check(notification)) }
            problem = state.templateProblem!
        } else {
            problem = check(notification)
        }
        if let problem {
            onInvalid(index, token.hex, "Not sent: \(problem).", false)
            return nil
        }
        state.produced += 1
        if let registeredAt { registrations.withLock { $0[index] = registeredAt } }
        return (index, notification)
    }

    /// The token part of a line, for reporting a line that did not parse.
    private static func tokenText(_ bytes: [UInt8]) -> String {
        let end = bytes.firstIndex(of: UInt8(ascii: "{")) ?? bytes.count
        return String(decoding: bytes[..<min(end, 256)], as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
