import APNsProtocol
import Foundation
import Logging
import Metrics

/// Where a batch's notifications come from; `next` returns nil when done. Implementations
/// serialise it (a lock around a file reader, say). A feed that may block (`mayBlock`, the
/// default: files, pipes, databases) is read on a thread of its own, ahead of the sender; one
/// that never blocks (an in-memory list) may say so and is read inline, saving that thread.
public protocol NotificationFeed: Sendable {
    func next() -> (index: Int, notification: PushNotification)?
    /// Whether `next` may wait for I/O or a lock held for long.
    var mayBlock: Bool { get }
}

extension NotificationFeed {
    public var mayBlock: Bool { true }
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
    private let observer: SenderObserver
    private let defaultBundleID: String?
    private let rotation = SlotRotation()

    /// `logger` receives the sender's logs (none when nil: a library is quiet by default);
    /// `environment` labels its metrics (`sandbox`, `production`, or `custom` for any other
    /// endpoint); `metricsFactory` defaults to the bootstrapped `MetricsSystem.factory`. See
    /// `SenderObserver` for the metrics and log levels. Notifications without a topic get
    /// `defaultBundleID` plus their push type's suffix, and background ones priority 5
    /// (`PushNotification.withDefaults`).
    public init(connector: any ProviderConnector, connections: Int = 1, concurrency: Int = 100,
                policy: RetryPolicy = RetryPolicy(), tokens: ProviderTokenCache? = nil,
                logger: Logger? = nil, environment: String = "custom", metricsFactory: MetricsFactory? = nil,
                defaultBundleID: String? = nil) {
        self.defaultBundleID = defaultBundleID
        observer = SenderObserver(logger: logger, environment: environment, factory: metricsFactory)
        pool = ConnectionPool(connector: connector, size: connections, policy: policy, observer: observer)
        self.concurrency = max(1, concurrency)
        self.policy = policy
        self.tokens = tokens
    }

    /// Sends everything `feed` yields; `onResult` is called once per notification, in turn, on
    /// a thread of the batch's own (never the event loop's): a slow `onResult` slows this batch
    /// (at most `ResultDispatcher.capacity` results wait for it), not other connections.
    /// Cancelling the calling task stops the batch: what was not answered yet ends `.cancelled`.
    public func send(_ feed: some NotificationFeed, onResult: @escaping @Sendable (NotificationResult) -> Void) async -> BatchSummary {
        let slots = pool.size
        let run = BatchRun(feed: feed, poolSlots: Array(0..<slots), window: concurrency, pool: pool, policy: policy, tokens: tokens,
                           observer: observer, defaultBundleID: defaultBundleID, resultsOnOwnThread: true, onResult: onResult)
        return await withTaskCancellationHandler { await run.run() } onCancel: { run.cancel() }
    }

    /// Sends one notification, on the pool's connections in turn (concurrent single sends from
    /// many tasks spread over all of them). Cancelling the calling task ends it at once with
    /// `.cancelled`.
    public func send(_ notification: PushNotification) async -> NotificationResult {
        let box = ResultBox()
        let slot = rotation.next(modulo: pool.size)
        let run = BatchRun(feed: SingleFeed(notification), poolSlots: [slot], window: 1, pool: pool, policy: policy, tokens: tokens,
                           observer: observer, defaultBundleID: defaultBundleID, onResult: { box.set($0) })
        _ = await withTaskCancellationHandler { await run.run() } onCancel: { run.cancel() }
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
        case .cannotConnect(let why), .connectionLost(let why), .notProcessed(let why), .credentialsRejected(let why): return why
        }
    }
}

/// A feed of one notification.
private final class SingleFeed: NotificationFeed, @unchecked Sendable {
    private let lock = NSLock()
    private var notification: PushNotification?

    init(_ notification: PushNotification) { self.notification = notification }

    var mayBlock: Bool { false }

    func next() -> (index: Int, notification: PushNotification)? {
        lock.withLock {
            defer { notification = nil }
            return notification.map { (0, $0) }
        }
    }
}

/// Hands out pool slots round-robin to single sends.
private final class SlotRotation: @unchecked Sendable {
    private let lock = NSLock()
    private var counter = 0

    func next(modulo size: Int) -> Int {
        lock.withLock {
            defer { counter &+= 1 }
            return counter % max(1, size)
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
