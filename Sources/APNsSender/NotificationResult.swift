import APNsProtocol

/// The one final result every notification ends with.
public struct NotificationResult: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// APNs answered 200.
        case delivered
        /// APNs answered with an error that retrying will not fix (or retries ran out on a
        /// retryable one: `status`/`reason` are the last answer).
        case rejected(status: Int, reason: String, timestamp: Int?)
        /// No answer could be had: the connection kept failing, or the gateway is unreachable.
        case failed(String)
        /// The caller's task was cancelled before an answer came. The request may have been
        /// in flight, so APNs may still deliver it.
        case cancelled
    }

    /// Position in the input (0-based), to tie results to lines.
    public let index: Int
    public let token: DeviceToken
    public let apnsID: String
    /// `apns-unique-id` (sandbox only).
    public let uniqueID: String?
    public let outcome: Outcome
    public let attempts: Int
    /// The request was in flight on a connection that died, and was sent again: APNs may have
    /// delivered it twice.
    public let possiblyDuplicated: Bool

    public var isDelivered: Bool { outcome == .delivered }

    /// True when the token should be removed from the provider's database.
    public var invalidatesToken: Bool {
        if case .rejected(_, let reason, _) = outcome, let known = APNsReason(rawValue: reason) { return known.invalidatesToken }
        return false
    }

    /// One JSON line for `--results` (fields documented in the README).
    public func jsonLine() -> [UInt8] {
        var fields: [(String, JSONValue)] = [
            ("index", .int(index)), ("token", .string(token.hex)), ("apns_id", .string(apnsID)),
        ]
        switch outcome {
        case .delivered:
            fields.append(("status", .string("delivered")))
            fields.append(("http_status", .int(200)))
        case .rejected(let status, let reason, let timestamp):
            fields.append(("status", .string("rejected")))
            fields.append(("http_status", .int(status)))
            fields.append(("reason", .string(reason)))
            if let timestamp { fields.append(("timestamp_ms", .int(timestamp))) }
        case .failed(let why):
            fields.append(("status", .string("failed")))
            fields.append(("error", .string(why)))
        case .cancelled:
            fields.append(("status", .string("cancelled")))
        }
        if let uniqueID { fields.append(("apns_unique_id", .string(uniqueID))) }
        fields.append(("attempts", .int(attempts)))
        if possiblyDuplicated { fields.append(("possibly_duplicated", .bool(true))) }
        var bytes = JSONValue.object(fields).serialized()
        bytes.append(0x0A)
        return bytes
    }
}

/// Totals for a batch.
public struct BatchSummary: Sendable, Equatable {
    public var total = 0
    public var delivered = 0
    public var rejected = 0
    public var failed = 0
    /// Notifications ended by cancellation (also counted in `failed`).
    public var cancelled = 0
    /// Notifications resent after a connection died with them in flight.
    public var possiblyDuplicated = 0
    public var retries = 0
    public var reconnects = 0
    /// Set when the gateway could not be reached at all: the `ConnectionFailure` sentence.
    public var connectionFailure: String?
    /// The gateway refused the credentials in the TLS handshake (`connectionFailure` says how):
    /// a credentials problem, not a network one.
    public var credentialsRejected = false

    public init() {}

    mutating func record(_ result: NotificationResult) {
        total += 1
        switch result.outcome {
        case .delivered: delivered += 1
        case .rejected: rejected += 1
        case .failed: failed += 1
        case .cancelled:
            failed += 1
            cancelled += 1
        }
        if result.possiblyDuplicated { possiblyDuplicated += 1 }
        retries += max(0, result.attempts - 1)
    }
}
