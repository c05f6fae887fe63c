import APNsProtocol
import Foundation

/// Where a batch's notifications come from. `next` is called from many tasks; implementations
/// serialise it (a lock around a file reader, say) and return nil when done.
public protocol NotificationFeed: Sendable {
    func next() -> (index: Int, notification: PushNotification)?
}

/// Sends notifications over a pool of provider-API connections and guarantees that each one
/// ends with exactly one `NotificationResult`.
///
/// Concurrency is bounded (`connections` x `concurrency` requests in flight, nghttp2 holding
/// back whatever exceeds the server's MAX_CONCURRENT_STREAMS), so memory stays flat however
/// large the feed. Retryable answers (429, 500, 503) and requests the server did not process
/// are retried with back-off; a request in flight on a connection that died is resent on a new
/// connection and marked `possiblyDuplicated`; permanent reasons are final at once.
public final class BatchSender: Sendable {
    private let pool: ConnectionPool
    private let concurrency: Int
    private let policy: RetryPolicy
    private let tokens: ProviderTokenCache?

    public init(connector: any ProviderConnector, connections: Int = 1, concurrency: Int = 100,
                policy: RetryPolicy = RetryPolicy(), tokens: ProviderTokenCache? = nil) {
        pool = ConnectionPool(connector: connector, size: connections, policy: policy)
        self.concurrency = max(1, concurrency)
        self.policy = policy
        self.tokens = tokens
    }

    /// Sends everything `feed` yields; `onResult` is called once per notification, from
    /// worker tasks (so it must be thread-safe).
    public func send(_ feed: some NotificationFeed, onResult: @escaping @Sendable (NotificationResult) -> Void) async -> BatchSummary {
        let totals = SummaryBox()
        let slots = await pool.size
        await withTaskGroup(of: Void.self) { group in
            for slot in 0..<slots {
                for _ in 0..<concurrency {
                    group.addTask {
                        var cached: (any ProviderConnection)?
                        while let (index, notification) = feed.next() {
                            let result = await self.deliver(notification, index: index, slot: slot, cached: &cached)
                            totals.record(result)
                            onResult(result)
                        }
                    }
                }
            }
        }
        var summary = totals.value
        summary.reconnects = max(0, await pool.connectCount - slots)
        summary.connectionFailure = await pool.unreachable
        return summary
    }

    /// Sends one notification.
    public func send(_ notification: PushNotification) async -> NotificationResult {
        var cached: (any ProviderConnection)?
        return await deliver(notification, index: 0, slot: 0, cached: &cached)
    }

    /// Closes the pool's connections.
    public func close() async { await pool.closeAll() }

    /// `cached` is the worker's last connection: used while it is usable, so the pool (an
    /// actor hop) is consulted only to replace a connection, not once per notification.
    private func deliver(_ notification: PushNotification, index: Int, slot: Int,
                         cached: inout (any ProviderConnection)?) async -> NotificationResult {
        let apnsID = notification.apnsID ?? PushNotification.newID()
        func result(_ outcome: NotificationResult.Outcome, attempts: Int, duplicate: Bool, uniqueID: String? = nil) -> NotificationResult {
            NotificationResult(index: index, token: notification.token, apnsID: apnsID, uniqueID: uniqueID, outcome: outcome,
                               attempts: attempts, possiblyDuplicated: duplicate)
        }
        if let problem = notification.localProblem() {
            return result(.failed("Not sent: \(problem)."), attempts: 0, duplicate: false)
        }
        var request = notification.request(apnsID: apnsID)
        let baseHeaders = request.headers
        var attempts = 0
        var possiblyDuplicated = false
        var refreshedToken = false
        while true {
            attempts += 1
            let connection: any ProviderConnection
            do {
                if let current = cached, current.isUsable {
                    connection = current
                } else {
                    connection = try await pool.connection(slot: slot)
                    cached = connection
                }
            } catch {
                return result(.failed("Cannot reach the gateway: \(Self.describe(error))"), attempts: attempts - 1, duplicate: possiblyDuplicated)
            }
            var bearer: String?
            if let tokens {
                do {
                    bearer = try tokens.token()
                } catch {
                    return result(.failed("Cannot sign a provider token: \(error)"), attempts: attempts, duplicate: possiblyDuplicated)
                }
                request.headers = baseHeaders + [("authorization", "bearer \(bearer!)")]
            }
            let response: ProviderResponse
            do {
                response = try await connection.send(request)
            } catch {
                await pool.discard(connection, slot: slot)
                cached = nil
                if case .connectionLost = error { possiblyDuplicated = true }
                if attempts >= policy.maximumAttempts {
                    return result(.failed("Gave up after \(attempts) attempts: \(Self.describe(error))"), attempts: attempts, duplicate: possiblyDuplicated)
                }
                continue
            }
            if response.status == 200 {
                return result(.delivered, attempts: attempts, duplicate: possiblyDuplicated, uniqueID: response.header("apns-unique-id"))
            }
            let (reason, timestamp) = Self.parseError(response.body)
            if reason == APNsReason.expiredProviderToken.rawValue, let tokens, let bearer, !refreshedToken {
                tokens.invalidate(bearer)
                refreshedToken = true
                continue
            }
            let retryable = APNsReason(rawValue: reason)?.isRetryable ?? (response.status >= 500)
            if retryable && attempts < policy.maximumAttempts {
                let retryAfter = response.header("retry-after").flatMap(Double.init)
                let delay = min(policy.maximumDelay, retryAfter ?? policy.delay(afterAttempt: attempts))
                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                continue
            }
            return result(.rejected(status: response.status, reason: reason, timestamp: timestamp), attempts: attempts, duplicate: possiblyDuplicated)
        }
    }

    /// `{"reason":"...","timestamp":...}`; tolerant of a missing or non-JSON body.
    static func parseError(_ body: [UInt8]) -> (reason: String, timestamp: Int?) {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            return ("(no reason given)", nil)
        }
        let reason = object["reason"] as? String ?? "(no reason given)"
        let timestamp = (object["timestamp"] as? NSNumber)?.intValue
        return (reason, timestamp)
    }

    static func describe(_ error: ProviderSendError) -> String {
        switch error {
        case .cannotConnect(let why), .connectionLost(let why), .notProcessed(let why): return why
        }
    }
}

/// Batch totals, updated from many tasks.
final class SummaryBox: @unchecked Sendable {
    private let lock = NSLock()
    private var summary = BatchSummary()

    func record(_ result: NotificationResult) {
        lock.lock()
        summary.record(result)
        lock.unlock()
    }

    var value: BatchSummary {
        lock.lock()
        defer { lock.unlock() }
        return summary
    }
}
