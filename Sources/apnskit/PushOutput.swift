// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsProtocol
import APNsSender
import CLIFormats
import Foundation
import Synchronized

/// Where `push` results go, from many sender tasks at once: the `--results` JSON lines, the
/// `--invalid-tokens` list and its companion JSON (`--invalid-tokens-json`), and the counters
/// behind progress and the summary. The files are `AtomicFile`s: they appear, complete, only
/// when the batch is over.
final class PushSink: Sendable {
    private let legacy: Bool

    private struct State {
        let results: AtomicFile?
        let invalidTokens: AtomicFile?
        let invalidTokensJSON: AtomicFile?
        var done = 0
        var errors = 0
        var invalid = 0
        /// The first result: a single push's one result, which the command prints. Only the
        /// first is kept: keeping each in turn copied every result of a batch once more.
        var first: APNsSendResult?
        var lastInvalid: (token: String, reason: String)?
        /// Files that failed a write (disk full): not committed, each with its sentence.
        var failedFiles: Set<ObjectIdentifier> = []
        var writeErrors: [String] = []

        mutating func write(_ bytes: [UInt8], to file: AtomicFile?) {
            guard let file, !failedFiles.contains(ObjectIdentifier(file)) else { return }
            do { try file.append(bytes) } catch {
                failedFiles.insert(ObjectIdentifier(file))
                writeErrors.append("\(error)")
            }
        }
    }

    private let state: Locked<State>

    init(results: sending AtomicFile?, invalidTokens: sending AtomicFile?, invalidTokensJSON: sending AtomicFile? = nil, legacy: Bool) {
        state = Locked(State(results: results, invalidTokens: invalidTokens, invalidTokensJSON: invalidTokensJSON))
        self.legacy = legacy
    }

    var done: Int { state.withLock { $0.done } }
    var errors: Int { state.withLock { $0.errors } }
    var invalid: Int { state.withLock { $0.invalid } }
    /// The one result of a single push (printed by the command).
    var single: APNsSendResult? { state.withLock { $0.first } }
    var lastInvalid: (token: String, reason: String)? { state.withLock { $0.lastInvalid } }

    /// `registeredAt`: when the app last registered the token, if the input said (a 410 older
    /// than that keeps the token off the list).
    func record(_ result: APNsSendResult, registeredAt: Date? = nil) {
        let removal = Self.removal(result, legacy: legacy, registeredAt: registeredAt)
        state.withLock { state in
            state.done += 1
            if !result.isDelivered { state.errors += 1 }
            if state.first == nil { state.first = result }
            if state.results != nil { state.write(result.jsonLine(), to: state.results) }
            guard let removal else { return }
            if removal.safeToDelete != false { state.write(Array((result.token.hex + "\n").utf8), to: state.invalidTokens) }
            if state.invalidTokensJSON != nil {
                state.write(TokenTriageText.jsonLine(result, removal: removal, registeredAt: registeredAt), to: state.invalidTokensJSON)
            }
        }
    }

    /// A line never sent; `removable` when its token is malformed (it goes on the
    /// `--invalid-tokens` list, as it can never be delivered).
    func recordInvalid(index: Int, token: String, reason: String, removable: Bool) {
        var line = JSONValue.object([("index", .int(index)), ("token", .string(token)), ("status", .string("invalid")),
                                     ("reason", .string(reason))]).serialized()
        line.append(0x0A)
        state.withLock { state in
            state.done += 1
            state.errors += 1
            state.invalid += 1
            state.lastInvalid = (token, reason)
            state.write(line, to: state.results)
            if removable, !token.isEmpty {
                state.write(Array((token + "\n").utf8), to: state.invalidTokens)
                if state.invalidTokensJSON != nil {
                    state.write(TokenTriageText.malformedLine(index: index, token: token, reason: reason), to: state.invalidTokensJSON)
                }
            }
        }
    }

    /// APNs says to stop sending to these: 410 Unregistered/ExpiredToken, BadDeviceToken; on the
    /// legacy gateway, status 8 (invalid token). The decision weighs a 410's timestamp against
    /// `registeredAt` and the token diagnosis (`APNsSendResult.tokenRemoval`); nil: keep sending.
    static func removal(_ result: APNsSendResult, legacy: Bool, registeredAt: Date?) -> APNsTokenRemoval? {
        if let removal = result.tokenRemoval(registeredAt: registeredAt) { return removal }
        if legacy, case .rejected(let status, _, _) = result.outcome, status == Int(LegacyStatus.invalidToken.rawValue) { return .remove }
        return nil
    }

    var counts: (done: Int, errors: Int) { state.withLock { ($0.done, $0.errors) } }

    /// Names the files; called once after the batch. A file that cannot be written (disk
    /// full) is dropped, never left half-written, and the other is still committed: the
    /// notifications are out either way, so this returns why (empty: all written) instead
    /// of throwing, and the command still prints its summary and a delivery exit code.
    /// Under the lock: a result recorded meanwhile (a second signal's early exit) waits.
    func commit() -> [String] {
        state.withLock { state in
            var problems = state.writeErrors
            for file in [state.results, state.invalidTokens, state.invalidTokensJSON].compactMap({ $0 }) {
                guard !state.failedFiles.contains(ObjectIdentifier(file)) else { file.discard(); continue }
                do { try file.commit() } catch {
                    file.discard()
                    problems.append("\(error)")
                }
            }
            return problems
        }
    }

    func discard() {
        state.withLock { state in
            state.results?.discard()
            state.invalidTokens?.discard()
            state.invalidTokensJSON?.discard()
        }
    }
}

/// `done, errors, rate` on stderr, redrawn in place, only when stderr is a terminal.
final class PushProgress: Sendable {
    private let task = Locked<Task<Void, Never>?>(nil)

    func start(_ sink: PushSink, since start: Date) {
        self.start {
            let (done, errors) = sink.counts
            let rate = Double(done) / max(0.001, Date().timeIntervalSince(start))
            return "\(done) done, \(errors) errors, \(Int(rate))/s"
        }
    }

    /// Redraws `line()` on a terminal's stderr twice a second (`outbox run` shows its own).
    func start(_ line: @escaping @Sendable () -> String) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        let redraw = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 500_000_000)
                FileHandle.standardError.write(Data("\r\u{1B}[K\(line())".utf8))
            }
        }
        task.withLock { $0 = redraw }
    }

    func stop() {
        guard let task = task.withLock({ $0 }) else { return }
        task.cancel()
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

/// The summary `push` prints at the end (docs/push.md, "Summary").
struct PushReport {
    var summary: APNsBatchSummary
    var invalid: Int
    var seconds: Double
    var legacy: Bool
    /// With `--diagnose-tokens`: the environment tokens were tried against.
    var diagnosedAgainst: APNsEnvironment? = nil

    var rejected: Int { summary.rejected + invalid }
    var total: Int { summary.total + invalid }
    var rate: Double { seconds > 0 ? Double(total) / seconds : 0 }

    /// 1 when the gateway refused the credentials (as `verify` says), 4 when it could not be
    /// reached or notifications failed, 1 when some were rejected or invalid, else 0.
    var exitStatus: Int32 {
        if summary.credentialsRejected { return ExitStatus.problem }
        if summary.connectionFailure != nil || summary.failed > 0 { return ExitStatus.network }
        if rejected > 0 { return ExitStatus.problem }
        return ExitStatus.success
    }

    var text: String {
        var line = "sent \(total): \(summary.delivered) delivered, \(rejected) rejected"
        if invalid > 0 { line += " (\(invalid) invalid)" }
        line += ", \(summary.failed) failed"
        if summary.notSent > 0 || summary.cancelled > 0 {
            line += " (\(summary.notSent) not sent, \(summary.cancelled) cancelled after they were written)"
        }
        line += ", \(summary.possiblyDuplicated) possibly duplicated, \(summary.retries) retries, \(summary.reconnects) reconnects"
        line += String(format: " in %.2f s (%.0f/s)", seconds, rate)
        if let other = diagnosedAgainst {
            line += "; token diagnosis against \(other.rawValue): \(summary.diagnosed) tried, \(summary.otherEnvironmentTokens) \(other.rawValue) tokens"
            line += " (\(summary.deliveredInOtherEnvironment) delivered in \(other.rawValue))"
            if summary.diagnosisLimitReached > 0 { line += ", \(summary.diagnosisLimitReached) not tried (--diagnose-limit)" }
        }
        return line
    }

    func json(result: APNsSendResult?, invalidLine: (token: String, reason: String)?) -> String {
        var fields: [(String, JSONValue)] = [
            ("protocol", .string(legacy ? "legacy" : "http2")),
            ("total", .int(total)), ("delivered", .int(summary.delivered)), ("rejected", .int(rejected)),
            ("invalid", .int(invalid)), ("failed", .int(summary.failed)),
            ("not_sent", .int(summary.notSent)), ("cancelled", .int(summary.cancelled)),
            ("possibly_duplicated", .int(summary.possiblyDuplicated)), ("retries", .int(summary.retries)),
            ("reconnects", .int(summary.reconnects)), ("seconds", .double((seconds * 1000).rounded() / 1000)),
            ("rate", .double(rate.rounded())), ("exit_code", .int(Int(exitStatus))),
        ]
        if let failure = summary.connectionFailure { fields.append(("connection_failure", .string(failure))) }
        if summary.credentialsRejected { fields.append(("credentials_rejected", .bool(true))) }
        if let other = diagnosedAgainst {
            fields += [("diagnosis_environment", .string(other.rawValue)), ("diagnosed", .int(summary.diagnosed)),
                       ("other_environment_tokens", .int(summary.otherEnvironmentTokens)),
                       ("delivered_in_other_environment", .int(summary.deliveredInOtherEnvironment)),
                       ("diagnosis_limit_reached", .int(summary.diagnosisLimitReached))]
        }
        var text = String(decoding: JSONValue.object(fields).serialized(), as: UTF8.self)
        if let result {
            // The single notification's result line, as in --results.
            let line = String(decoding: result.jsonLine().dropLast(), as: UTF8.self)
            text.removeLast()
            text += ",\"result\":\(line)}"
        } else if let invalidLine {
            let line = String(decoding: JSONValue.object([("index", .int(0)), ("token", .string(invalidLine.token)), ("status", .string("invalid")),
                                                          ("reason", .string(invalidLine.reason))]).serialized(), as: UTF8.self)
            text.removeLast()
            text += ",\"result\":\(line)}"
        }
        return text
    }

    /// One line for a single notification; the gateway's reason and error texts are a peer's,
    /// so control characters in them are escaped.
    static func describe(_ result: APNsSendResult) -> String {
        ControlCharacters.hexEscaped(sentence(result))
    }

    private static func sentence(_ result: APNsSendResult) -> String {
        switch result.outcome {
        case .delivered:
            return "delivered to \(result.token.hex) (apns-id \(result.apnsIDText))\(result.possiblyDuplicated ? ", possibly duplicated" : "")"
        case .rejected(let status, let reason, let timestamp):
            var text = "rejected \(result.token.hex): \(status) \(reason)"
            if let timestamp { text += " (token invalid since \(ISO8601DateFormatter().string(from: timestamp)))" }
            if let diagnosis = result.diagnosis { text += ". " + TokenTriageText.sentence(for: diagnosis) }
            return text
        case .failed(let error):
            return "failed \(result.token.hex): \(error)"
        case .cancelled(written: false):
            return "not sent to \(result.token.hex): stopped before it was written"
        case .cancelled(written: true):
            return "cancelled \(result.token.hex) after it was written, before APNs answered: it may be delivered"
        }
    }
}
