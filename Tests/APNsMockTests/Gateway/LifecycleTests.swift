// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNs
import APNsMock
import Foundation
import Logging
import MetricsTestKit
import ServiceLifecycle
import Testing
import TestSupport

/// Issue 21, item 10: `APNsClient` as a swift-service-lifecycle `Service`, against the
/// in-process mock gateway (`APNsMockGateway`), whose record says what really arrived.
@Suite("APNsClient in a ServiceGroup", .serialized)
struct LifecycleTests {
    static let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
    static let quiet = Logger(label: "apnskit.tests.lifecycle", factory: { _ in SwiftLogNoOpLogHandler() })

    static func token(_ n: Int) throws -> APNsDeviceToken { try APNsDeviceToken(parsing: String(format: "%064x", n)) }

    /// A client running in a ServiceGroup, and one send the gateway has received and holds
    /// the answer to (`answerDelay`): the test waits for the gateway to have it, not for a time.
    struct SendInFlight {
        let gateway: APNsMockGateway
        let client: APNsClient
        let group: ServiceGroup
        let running: Task<Void, Error>
        let send: Task<APNsSendResult, Error>
        /// The client counts each result (`apns_notifications_total`) just before it hands the
        /// result to the waiting send, on the thread that makes it. A flag set by the task
        /// awaiting `send` would come later, whenever that task is next scheduled, and could
        /// read "not answered" after the client had answered.
        let metrics = TestMetrics()

        /// Results the client has made so far.
        var results: Int64 { metrics.counterTotal(label: "apns_notifications_total") }

        init(answerDelay: Duration) async throws {
            gateway = try await APNsMockGateway.start(answerDelay: answerDelay)
            let client = try APNsClient(configuration: gateway.configuration, metricsFactory: metrics)
            let group = ServiceGroup(configuration: .init(services: [client], logger: LifecycleTests.quiet))
            (self.client, self.group) = (client, group)
            running = Task { try await group.run() }
            send = Task { await client.send(APNsNotification(token: try LifecycleTests.token(1), payload: LifecycleTests.payload)) }
            let gateway = self.gateway
            #expect(await Wait.until(seconds: 60) { gateway.sentNotificationCount == 1 }, "the gateway never received the send")
            #expect(results == 0, "the send was answered at once: it was not in flight")
        }

        /// The code a send after the shutdown failed with (nil, and an issue, if it did not fail).
        func lateSendError() async throws -> APNsSendError? {
            let late = await client.send(APNsNotification(token: try LifecycleTests.token(2), payload: LifecycleTests.payload))
            guard case .failed(let error) = late.outcome else {
                Issue.record("a send after the shutdown was \(late.outcome)")
                return nil
            }
            return error
        }
    }

    @Test("Graceful shutdown: the send in flight is answered, the group returns, later sends fail with clientClosed",
          .timeLimit(.minutes(1)))
    func gracefulShutdownAnswersInFlight() async throws {
        let f = try await SendInFlight(answerDelay: .seconds(5))
        await f.group.triggerGracefulShutdown()

        try await f.running.value
        #expect(f.results == 1, "the group returned before the send in flight had its answer")
        let result = try await f.send.value
        #expect(result.outcome == .delivered, "\(result.outcome)")
        #expect(result.apnsID == f.gateway.sentNotifications.first?.apnsID)

        let error = try await f.lateSendError()
        #expect(error?.code == .clientClosed && error?.mayHaveBeenDelivered == false, "\(String(describing: error))")
        #expect(f.gateway.sentNotificationCount == 1, "a send after the shutdown reached the gateway")
    }

    @Test("Cancelling the group instead: the client gives up what is in flight (cancelled, may be delivered) and the group returns at once",
          .timeLimit(.minutes(1)))
    func cancellationGivesUpInFlight() async throws {
        let f = try await SendInFlight(answerDelay: .seconds(30))
        f.running.cancel()
        _ = try? await f.running.value
        let result = try await f.send.value
        #expect(result.outcome == .cancelled(written: true), "\(result.outcome)")
        #expect(try await f.lateSendError()?.code == .clientClosed)
    }

    /// Examples/HummingbirdPush as a child process, configured from the environment as a
    /// deployment would be (a CA file and a .p8 written from the in-process gateway), spoken
    /// to with curl. The gateway holds its answer for 5 s: SIGTERM comes while curl waits.
    @Test("The Hummingbird example sends through the client, and SIGTERM ends it with exit 0 after answering", .timeLimit(.minutes(2)))
    func hummingbirdExample() async throws {
        let gateway = try await APNsMockGateway.start(bundleID: "com.example.app", answerDelay: .seconds(5))
        let dir = try TemporaryDirectory("apnskit-hummingbird")
        let caFile = try dir.write("ca-bundle.pem", text: gateway.caCertificatesPEM)
        let authKey = try dir.write("AuthKey_\(gateway.tokenSigner.keyID).p8", text: gateway.authKeyPEM)
        let executable = URL(fileURLWithPath: Binaries.apnskit).deletingLastPathComponent().appendingPathComponent("HummingbirdPush").path
        // A configuration it cannot use: one sentence and exit 1, before it listens.
        let misconfigured = try BackgroundProcess(executable, [], environment: ["APNS_AUTH_KEY": authKey, "PORT": "0"])
        try await blocking { misconfigured.process.waitUntilExit() }
        #expect(misconfigured.process.terminationStatus == 1, "\(misconfigured.stderr)")
        #expect(misconfigured.stderr == "hummingbird-push: APNS_TEAM_ID is not set; token authentication (APNS_AUTH_KEY) needs your team id.\n")

        let app = try BackgroundProcess(executable, [], environment: [
            "APNS_AUTH_KEY": authKey, "APNS_TEAM_ID": gateway.tokenSigner.teamID, "APNS_BUNDLE_ID": gateway.bundleID,
            "APNS_GATEWAY": "\(gateway.host):\(gateway.port)", "APNS_CA_FILE": caFile, "HOST": "127.0.0.1", "PORT": "0",
        ])
        let line = try #require(await app.waitForStdoutLine(containing: "listening on "), "the example did not start: \(app.stderr)")
        let url = String(line.split(separator: " ").last ?? "")

        let bad = try await curl(["-X", "POST", "\(url)/notify/not-a-token"])
        #expect(bad.stdout.hasSuffix("\n400") && bad.stdout.contains(#""result":"invalid""#), "\(bad)")

        let token = String(repeating: "5e", count: 32)
        let large = try dir.write("large.json", text: #"{"aps":{"alert":""# + String(repeating: "x", count: 6_000) + #""}}"#)
        let tooLarge = try await curl(["-X", "POST", "--data-binary", "@\(large)", "\(url)/notify/\(token)"])
        #expect(tooLarge.stdout.hasSuffix("\n413"), "\(tooLarge)")
        #expect(gateway.sentNotificationCount == 0, "a refused request reached the gateway")
        let payload = #"{"aps":{"alert":{"title":"Order shipped"}}}"#
        let request = Task { try await curl(["-X", "POST", "--data-binary", payload, "\(url)/notify/\(token)"]) }
        #expect(await Wait.until(seconds: 60) { gateway.sentNotificationCount == 1 }, "the gateway never received the notification: \(app.stderr)")
        let status = try await blocking { app.stop(signal: SIGTERM) }  // while curl waits for its answer
        let answer = try await request.value

        #expect(app.process.terminationReason == .exit && status == 0, "exit \(status): \(app.stderr)")
        #expect(answer.stdout.hasSuffix("\n200") && answer.stdout.contains(#""result":"delivered""#), "\(answer)")
        let sent = try #require(gateway.sentNotifications.first)
        #expect(sent.token.hex == token && sent.topic == "com.example.app" && sent.payload == Array(payload.utf8))
        #expect(answer.stdout.lowercased().contains(sent.apnsID.uuidString.lowercased()), "the answer carries the gateway's apns-id: \(answer)")
        #expect(app.stderr.contains("the client is closed"), "\(app.stderr)")
    }
}

/// A flag one task sets and another reads.
final class Flag: @unchecked Sendable {
    // @unchecked: `value` only under `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Runs blocking work (a child process's wait) on a thread of its own, neither on one of
/// Swift concurrency's threads (two on a 2-core machine) nor on Dispatch's global pool, which
/// it shares on Linux: the in-process gateway's held answers are tasks, and a child's wait
/// on either left them waiting until the client timed out (`ProcessRunner` blocks three
/// Dispatch threads per run).
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// curl with `arguments`, its output in a file, waited for on a thread of its own; stdout ends
/// with a line holding the HTTP status.
func curl(_ arguments: [String]) async throws -> (stdout: String, stderr: String) {
    let curl = try BackgroundProcess("/usr/bin/curl", ["-sS", "-w", "\n%{http_code}"] + arguments)
    try await blocking { curl.process.waitUntilExit() }
    return (curl.stdout, curl.stderr)
}
