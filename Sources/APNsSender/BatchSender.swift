import APNsProtocol
import Foundation

/// Where a batch's notifications come from. `next` is called from whichever thread is sending
/// (often the event loop's, once per notification): implementations serialise it (a lock
/// around a file reader, say), must not block for long, and return nil when done.
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
    /// whichever thread finished it (often the event loop's), so it must be thread-safe and quick.
    public func send(_ feed: some NotificationFeed, onResult: @escaping @Sendable (NotificationResult) -> Void) async -> BatchSummary {
        let slots = await pool.size
        return await BatchRun(feed: feed, slots: slots, window: concurrency, pool: pool, policy: policy, tokens: tokens,
                              onResult: onResult).run()
    }

    /// Sends one notification.
    public func send(_ notification: PushNotification) async -> NotificationResult {
        let box = ResultBox()
        _ = await BatchRun(feed: SingleFeed(notification), slots: 1, window: 1, pool: pool, policy: policy, tokens: tokens,
                           onResult: { box.set($0) }).run()
        return box.value!
    }

    /// Closes the pool's connections.
    public func close() async { await pool.closeAll() }

    /// `{"reason":"...","timestamp":...}`; tolerant of a missing or non-JSON body.
    static func parseError(_ body: [UInt8]) -> (reason: String, timestamp: Int?) {
        // APNs answers JSON; anything else (a proxy's HTML error page) has no reason to parse.
        guard body.first == UInt8(ascii: "{"), let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
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

/// A feed of one notification.
private final class SingleFeed: NotificationFeed, @unchecked Sendable {
    private let lock = NSLock()
    private var notification: PushNotification?

    init(_ notification: PushNotification) { self.notification = notification }

    func next() -> (index: Int, notification: PushNotification)? {
        lock.withLock {
            defer { notification = nil }
            return notification.map { (0, $0) }
        }
    }
}

/// The one result of a single send.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: NotificationResult?
    func set(_ value: NotificationResult) { lock.withLock { result = value } }
    var value: NotificationResult? { lock.withLock { result } }
}
