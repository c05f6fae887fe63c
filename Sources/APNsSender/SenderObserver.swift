// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Synchronized
import Logging
import Metrics

/// What the sender tells the host's logging and metrics systems (swift-log, swift-metrics), so
/// an app that bootstraps a log handler or swift-prometheus sees the sender without glue.
///
/// Metrics (dimensions in brackets; every value comes from a small fixed set, so a hostile
/// gateway cannot grow the number of series):
/// - `apns_notifications_total` [outcome, reason, push_type, environment]: one per final result.
///   `outcome` is delivered, rejected, failed or cancelled; `reason` the APNs reason for
///   rejected ones (`other` for a reason APNs does not document), else `none`.
/// - `apns_notification_duration_seconds` [outcome, push_type, environment]: from taking the
///   notification to its final result, retries included.
/// - `apns_connects_total` [result: ok or failed, environment].
/// - `apns_broadcast_requests_total` [operation, outcome, reason, environment]: one per final
///   answer of `APNsBroadcastClient` (operation: create, read, delete, list or broadcast;
///   outcome and reason as for notifications, `delivered` meaning APNs answered 2xx).
/// - `apns_broadcast_request_duration_seconds` [operation, outcome, environment].
///
/// Logs: connect failures (debug), the gateway counted as down and back (warning, notice),
/// results other than delivered (debug) and every result (trace). The default logger is a
/// no-op: a library is quiet unless the caller asks.
final class SenderObserver: Sendable {
    let logger: Logger
    let environment: String
    private let factory: MetricsFactory
    /// Counters and timers made once per dimension set: the factory lookup stays off the
    /// per-notification path.
    private let made = Locked(Made())
    private struct Made {
        var counters: [CounterKey: Counter] = [:]
        var timers: [TimerKey: Metrics.Timer] = [:]
        /// The last result's pair: a batch's results mostly share one outcome and push type,
        /// and comparing three short Strings costs less than hashing them per notification.
        var last: (key: CounterKey, counter: Counter, timer: Metrics.Timer)?
    }
    private let connectsOK: Counter
    private let connectsFailed: Counter

    private struct CounterKey: Hashable {
        let outcome: String
        let reason: String
        let pushType: String
    }

    private struct TimerKey: Hashable {
        let outcome: String
        let pushType: String
    }

    /// A logger that drops everything: the default.
    static let quiet = Logger(label: "apnskit.sender", factory: { _ in SwiftLogNoOpLogHandler() })

    /// `factory` defaults to the one the app bootstrapped (`MetricsSystem.factory`, read now:
    /// bootstrap before creating senders, as swift-metrics asks).
    init(logger: Logger?, environment: String, factory: MetricsFactory? = nil) {
        self.logger = logger ?? Self.quiet
        self.environment = environment
        let factory = factory ?? MetricsSystem.factory
        self.factory = factory
        connectsOK = Counter(label: "apns_connects_total", dimensions: [("result", "ok"), ("environment", environment)], factory: factory)
        connectsFailed = Counter(label: "apns_connects_total", dimensions: [("result", "failed"), ("environment", environment)], factory: factory)
    }

    /// One notification's final result; `startedNanos` is when it was taken from the feed.
    func finished(_ result: APNsSendResult, pushType: APNsPushType?, startedNanos: UInt64) {
        let (outcome, reason) = Self.labels(result.outcome)
        let type = pushType?.rawValue ?? "none"
        let (counter, timer) = made.withLock { made -> (Counter, Metrics.Timer) in
            let counterKey = CounterKey(outcome: outcome, reason: reason, pushType: type)
            // Compared where it lies: `if let last = made.last` copied the triple out and
            // destroyed the copy through the runtime's generic tuple code, once per result.
            if made.last?.key == counterKey, let counter = made.last?.counter, let timer = made.last?.timer { return (counter, timer) }
            let counter = made.counters[counterKey] ?? {
                let new = Counter(label: "apns_notifications_total", dimensions: [
                    ("outcome", outcome), ("reason", reason), ("push_type", type), ("environment", environment),
                ], factory: factory)
                made.counters[counterKey] = new
                return new
            }()
            let timerKey = TimerKey(outcome: outcome, pushType: type)
            let timer = made.timers[timerKey] ?? {
                let new = Metrics.Timer(label: "apns_notification_duration_seconds", dimensions: [
                    ("outcome", outcome), ("push_type", type), ("environment", environment),
                ], factory: factory)
                made.timers[timerKey] = new
                return new
            }()
            made.last = (counterKey, counter, timer)
            return (counter, timer)
        }
        counter.increment()
        timer.recordNanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds &- startedNanos))
        if case .delivered = result.outcome {
            logger.trace("delivered", metadata: ["apns-id": "\(result.apnsIDText)", "attempts": "\(result.attempts)"])
        } else if logger.logLevel <= .debug {
            logger.debug("notification not delivered", metadata: [
                "apns-id": "\(result.apnsIDText)", "outcome": "\(outcome)", "detail": "\(Self.detail(result.outcome))",
                "attempts": "\(result.attempts)",
            ])
        }
    }

    /// The outcome and reason labels of `outcome`.
    private static func labels(_ outcome: APNsSendResult.Outcome) -> (outcome: String, reason: String) {
        switch outcome {
        case .delivered: return ("delivered", "none")
        // Documented reasons only: a label per unknown string would grow without bound.
        case .rejected(_, let why, _): return ("rejected", why.isDocumented ? why.rawValue : "other")
        case .failed: return ("failed", "none")
        case .cancelled(let written): return (written ? "cancelled" : "not_sent", "none")
        }
    }

    /// One channel management call's or broadcast's final answer (`APNsBroadcastClient`);
    /// `operation` is one of a fixed few words. Rare next to notifications, so made per call.
    func finishedRequest(_ operation: String, _ outcome: APNsSendResult.Outcome, attempts: Int, startedNanos: UInt64) {
        let (word, reason) = Self.labels(outcome)
        Counter(label: "apns_broadcast_requests_total", dimensions: [
            ("operation", operation), ("outcome", word), ("reason", reason), ("environment", environment),
        ], factory: factory).increment()
        Metrics.Timer(label: "apns_broadcast_request_duration_seconds", dimensions: [
            ("operation", operation), ("outcome", word), ("environment", environment),
        ], factory: factory).recordNanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds &- startedNanos))
        if case .delivered = outcome {
            logger.trace("\(operation) answered", metadata: ["attempts": "\(attempts)"])
        } else if logger.logLevel <= .debug {
            logger.debug("\(operation) not answered with success", metadata: [
                "outcome": "\(word)", "detail": "\(Self.detail(outcome))", "attempts": "\(attempts)",
            ])
        }
    }

    func connected() {
        connectsOK.increment()
        logger.debug("connected to the gateway")
    }

    func connectFailed(_ reason: String) {
        connectsFailed.increment()
        logger.debug("connect failed", metadata: ["reason": "\(reason)"])
    }

    func outageBegan(_ reason: String, retryIn seconds: Double) {
        logger.warning("gateway unreachable: sends fail at once until the next attempt",
                       metadata: ["reason": "\(reason)", "retry-in-seconds": "\(String(format: "%.3f", seconds))"])
    }

    func outageEnded() {
        logger.notice("gateway reachable again")
    }

    private static func detail(_ outcome: APNsSendResult.Outcome) -> String {
        switch outcome {
        case .delivered: return "delivered"
        case .rejected(let status, let reason, _): return "\(status) \(reason)"
        case .failed(let error): return error.description
        case .cancelled(let written): return written ? "cancelled after it was written" : "cancelled before it was written"
        }
    }
}
