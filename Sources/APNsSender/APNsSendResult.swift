import APNsProtocol
import Foundation

/// The one final result every notification ends with. Its word is a promise: `.delivered`
/// means APNs accepted it, `.cancelled(written: false)` that APNs never saw a byte of it.
public struct APNsSendResult: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// APNs answered 200.
        case delivered
        /// APNs answered with an error that retrying will not fix (or retries ran out on a
        /// retryable one: these are the last answer). `timestamp` is the 410 answer's: when
        /// APNs learned the token was no longer valid.
        case rejected(status: Int, reason: APNsReason, timestamp: Date?)
        /// No answer could be had; the error says why and whether APNs may have it.
        case failed(APNsSendError)
        /// The caller's task was cancelled (or the batch stopped) before an answer came.
        /// `written: false`: it was never written to the connection, APNs never saw it, and
        /// sending it again is safe. `written: true`: it went out, so APNs may deliver it.
        case cancelled(written: Bool)
    }

    /// Position in the input (0-based), to tie results to lines.
    public let index: Int
    public let token: APNsDeviceToken
    /// The `apns-id` sent (canonical lower-case text): the `apnsID` UUID as APNs logs it.
    public let apnsIDText: String
    /// `apns-unique-id` (sandbox only), as text.
    public let uniqueIDText: String?
    public let outcome: Outcome
    public let attempts: Int
    /// The request was in flight on a connection that died, and was sent again: APNs may have
    /// delivered it twice.
    public let possiblyDuplicated: Bool

    public init(index: Int, token: APNsDeviceToken, apnsIDText: String, uniqueIDText: String? = nil, outcome: Outcome,
                attempts: Int, possiblyDuplicated: Bool = false) {
        self.index = index
        self.token = token
        self.apnsIDText = apnsIDText
        self.uniqueIDText = uniqueIDText
        self.outcome = outcome
        self.attempts = attempts
        self.possiblyDuplicated = possiblyDuplicated
    }

    /// The `apns-id` (nil only for legacy-protocol results, which have none).
    public var apnsID: UUID? { UUID(uuidString: apnsIDText) }
    /// `apns-unique-id`, which the sandbox adds to its answers (for the Push Notifications Console).
    public var uniqueID: UUID? { uniqueIDText.flatMap(UUID.init(uuidString:)) }

    public var isDelivered: Bool { outcome == .delivered }

    /// False only when APNs certainly does not have it: rejected, never written, or failed
    /// before any attempt went out. A caller may resend exactly those without notifying twice.
    public var mayHaveBeenDelivered: Bool {
        switch outcome {
        case .delivered: return true
        case .rejected: return false
        case .failed(let error): return error.mayHaveBeenDelivered
        case .cancelled(let written): return written
        }
    }

    /// The reason of a rejection.
    public var reason: APNsReason? {
        if case .rejected(_, let reason, _) = outcome { return reason }
        return nil
    }

    /// True when the token should be removed from the provider's database.
    public var invalidatesToken: Bool { reason?.invalidatesToken ?? false }

    /// The `status` word of a `--results` line (documented in docs/push.md).
    public var statusWord: String {
        switch outcome {
        case .delivered: return "delivered"
        case .rejected: return "rejected"
        case .failed: return "failed"
        case .cancelled(let written): return written ? "cancelled" : "not_sent"
        }
    }

    /// One JSON line for `--results` (fields documented in docs/push.md).
    public func jsonLine() -> [UInt8] {
        var fields: [(String, JSONValue)] = [
            ("index", .int(index)), ("token", .string(token.hex)), ("apns_id", .string(apnsIDText)),
            ("status", .string(statusWord)),
        ]
        switch outcome {
        case .delivered:
            fields.append(("http_status", .int(200)))
        case .rejected(let status, let reason, let timestamp):
            fields.append(("http_status", .int(status)))
            fields.append(("reason", .string(reason.rawValue)))
            if let timestamp { fields.append(("timestamp_ms", .int(Int((timestamp.timeIntervalSince1970 * 1000).rounded())))) }
        case .failed(let error):
            fields.append(("error", .string(error.description)))
            fields.append(("error_code", .string(error.code.description)))
            fields.append(("may_have_been_delivered", .bool(error.mayHaveBeenDelivered)))
        case .cancelled(let written):
            fields.append(("may_have_been_delivered", .bool(written)))
        }
        if let uniqueIDText { fields.append(("apns_unique_id", .string(uniqueIDText))) }
        fields.append(("attempts", .int(attempts)))
        if possiblyDuplicated { fields.append(("possibly_duplicated", .bool(true))) }
        var bytes = JSONValue.object(fields).serialized()
        bytes.append(0x0A)
        return bytes
    }
}

/// Totals for a batch.
public struct APNsBatchSummary: Sendable, Equatable {
    public var total = 0
    public var delivered = 0
    public var rejected = 0
    public var failed = 0
    /// Notifications ended by cancellation after they were written (also counted in `failed`):
    /// APNs may have them.
    public var cancelled = 0
    /// Notifications ended before they were written (cancelled, or the batch was stopped):
    /// APNs never saw them. Also counted in `failed`.
    public var notSent = 0
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

    mutating func record(_ result: APNsSendResult) {
        total += 1
        switch result.outcome {
        case .delivered: delivered += 1
        case .rejected: rejected += 1
        case .failed: failed += 1
        case .cancelled(let written):
            failed += 1
            if written { cancelled += 1 } else { notSent += 1 }
        }
        if result.possiblyDuplicated { possiblyDuplicated += 1 }
        retries += max(0, result.attempts - 1)
    }
}
