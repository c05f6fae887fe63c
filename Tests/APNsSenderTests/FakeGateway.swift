// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import APNsSender
import Foundation

/// An in-memory provider API with scripted faults, for the sender's accounting logic. The
/// real-server versions of these tests run against the mock gateway over HTTP/2.
final class FakeGateway: @unchecked Sendable, ProviderConnector {
    struct Faults {
        /// Every n-th request answered 429 / 503 (0: never).
        var tooManyEvery = 0
        var unavailableEvery = 0
        /// After this many requests on one connection, it dies: the next request is processed
        /// (recorded) but its answer is lost.
        var dropAfterProcessing = 0
        /// Connection attempts that fail before one succeeds (-1: always fail).
        var failedConnects = 0
        /// Connection attempts that succeed before every later one fails: the gateway goes down
        /// for good after that many connects (0: never).
        var connectsBeforeOutage = 0
        /// Tokens answered 410 Unregistered.
        var unregistered: Set<String> = []
        /// Requests are held unanswered until `releaseHeld()` (a gateway gone silent).
        var holdAnswers = false
    }

    private let lock = NSLock()
    var faults: Faults
    private(set) var accepted: [String: Int] = [:]
    private(set) var requestCount = 0
    private(set) var connects = 0
    private(set) var authorizations: Set<String> = []
    /// "topic priority" of every request ("-" for a missing header).
    private(set) var topicsAndPriorities: [String] = []
    private(set) var connections: [FakeConnection] = []
    private var held: [CheckedContinuation<Void, Never>] = []

    /// `requestCount`, `connections` and `accepted`, read while requests may still come.
    var requestsSoFar: Int { lock.withLock { requestCount } }
    var connectionsSoFar: [FakeConnection] { lock.withLock { connections } }
    var acceptedSoFar: [String: Int] { lock.withLock { accepted } }

    /// Requests waiting for an answer because of `holdAnswers`.
    var heldCount: Int { lock.withLock { held.count } }

    /// Answers every held request, and the ones to come.
    func releaseHeld() {
        let waiting: [CheckedContinuation<Void, Never>] = lock.withLock {
            faults.holdAnswers = false
            defer { held.removeAll() }
            return held
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Suspends while `holdAnswers` is set.
    func waitIfHeld() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let hold: Bool = lock.withLock {
                if faults.holdAnswers { held.append(continuation) }
                return faults.holdAnswers
            }
            if !hold { continuation.resume() }
        }
    }

    /// The event loops the gateway says its slots are spread over: a batch runs one
    /// `BatchRun` per loop.
    let loops: Int
    var loopCount: Int { loops }

    init(_ faults: Faults = Faults(), loops: Int = 1) {
        self.faults = faults
        self.loops = loops
    }

    func connect() async throws(ProviderSendError) -> any ProviderConnection {
        let fail: Bool = lock.withLock {
            connects += 1
            if faults.failedConnects < 0 { return true }
            if faults.failedConnects > 0 { faults.failedConnects -= 1; return true }
            if faults.connectsBeforeOutage > 0, connects > faults.connectsBeforeOutage { return true }
            return false
        }
        if fail { throw .cannotConnect("connection refused (scripted)") }
        let connection = FakeConnection(gateway: self)
        lock.withLock { connections.append(connection) }
        return connection
    }

    /// Handles one request; nil means the connection died after processing it.
    func handle(_ request: HTTP2Request, connectionRequests: Int) -> HTTP2Response? {
        lock.withLock {
            requestCount += 1
            let id = request.header("apns-id")!
            if let auth = request.authorization { authorizations.insert(auth) }
            let topic = request.header("apns-topic") ?? "-"
            topicsAndPriorities.append(topic + " " + (request.header("apns-priority") ?? "-"))
            let token = String(request.path.dropFirst(RequestValidator.pathPrefix.count))
            if faults.unregistered.contains(token) {
                return HTTP2Response(status: 410, body: Array(#"{"reason":"Unregistered","timestamp":1700000000000}"#.utf8))
            }
            if faults.tooManyEvery > 0 && requestCount % faults.tooManyEvery == 0 {
                return HTTP2Response(status: 429, body: Array(#"{"reason":"TooManyRequests"}"#.utf8))
            }
            if faults.unavailableEvery > 0 && requestCount % faults.unavailableEvery == 0 {
                return HTTP2Response(status: 503, body: Array(#"{"reason":"ServiceUnavailable"}"#.utf8))
            }
            accepted[id, default: 0] += 1
            if faults.dropAfterProcessing > 0 && connectionRequests >= faults.dropAfterProcessing { return nil }
            return HTTP2Response(status: 200)
        }
    }
}

final class FakeConnection: ProviderConnection, @unchecked Sendable {
    private let gateway: FakeGateway
    private let lock = NSLock()
    private var requests = 0
    private var dead = false

    init(gateway: FakeGateway) { self.gateway = gateway }

    var isUsable: Bool { lock.withLock { !dead } }
    /// Requests this connection carried.
    var requestCount: Int { lock.withLock { requests } }
    var maxConcurrentStreams: Int { 100 }
    func close() { lock.withLock { dead = true } }

    func send(_ request: HTTP2Request) async throws(ProviderSendError) -> HTTP2Response {
        let count: Int? = lock.withLock {
            if dead { return nil }
            requests += 1
            return requests
        }
        guard let count else { throw .notProcessed("connection already closed") }
        await Task.yield()
        await gateway.waitIfHeld()
        guard let response = gateway.handle(request, connectionRequests: count) else {
            lock.withLock { dead = true }
            throw .connectionLost("connection reset with the request in flight (scripted)")
        }
        return response
    }
}

/// Collects results from many tasks.
final class ResultCollector: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var results: [APNsSendResult] = []
    func add(_ result: APNsSendResult) { lock.withLock { results.append(result) } }
}

func notifications(_ count: Int) -> [APNsNotification] {
    (0..<count).map { index in
        let hex = String(format: "%064x", index + 1)
        return APNsNotification(token: try! APNsDeviceToken(parsing: hex), payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), topic: "com.example.app")
    }
}
