// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNs
import APNsMock
import Foundation
import Testing
import TestSupport

/// `APNsMockGateway`: the mock a library user starts inside a test, without a CA folder.
@Suite("The in-process mock gateway", .serialized)
struct InProcessGatewayTests {
    @Test("Its ready configuration (token auth, CA trust as PEM text) delivers, and sentNotifications has what was sent, typed")
    func tokenConfigurationDelivers() async throws {
        let gateway = try await APNsMockGateway.start(environment: .sandbox, bundleID: "com.example.shop")
        // Trusted through PEM text, not a file: nothing on disk to create or clean up. (Not
        // checked by listing the temporary folder: tests running in parallel write there.)
        #expect(gateway.configuration.trust == .caPEM(gateway.caCertificatesPEM), "\(gateway.configuration.trust)")
        let client = try APNsClient(configuration: gateway.configuration)
        let token = try APNsDeviceToken(parsing: String(repeating: "c9", count: 32))
        let payload = Array(#"{"aps":{"alert":{"title":"Order shipped"}}}"#.utf8)
        let result = await client.send(APNsNotification(token: token, payload: payload, pushType: .alert, priority: .immediate,
                                                        collapseID: "order-42"))
        let voip = await client.send(APNsNotification(token: token, payload: Array(#"{"aps":{}}"#.utf8), pushType: .voip))
        await client.close()
        gateway.shutdown()

        #expect(result.outcome == .delivered && voip.outcome == .delivered, "\(result.outcome) \(voip.outcome)")
        let sent = gateway.sentNotifications
        #expect(sent.count == 2 && gateway.sentNotificationCount == 2)
        #expect(sent.first?.token == token)
        #expect(sent.first?.topic == "com.example.shop", "the configuration's bundle id")
        #expect(sent.first?.pushType == .alert && sent.first?.priority == .immediate && sent.first?.collapseID == "order-42")
        #expect(sent.first?.payload == payload)
        #expect(sent.first?.apnsID == result.apnsID)
        #expect(sent.last?.topic == "com.example.shop.voip" && sent.last?.pushType == .voip, "the push type's topic suffix")
    }

    @Test("A certificate identity it issues is accepted; a client trusting only the system store is refused in the handshake")
    func certificateIdentityAndTrust() async throws {
        let gateway = try await APNsMockGateway.start(environment: .production, bundleID: "com.example.bank")
        var configuration = gateway.configuration
        configuration.authentication = .certificate(try gateway.certificateIdentity())
        configuration.bundleID = nil  // the certificate's
        let client = try APNsClient(configuration: configuration)
        let token = try APNsDeviceToken(parsing: String(repeating: "0d", count: 32))
        let result = await client.send(APNsNotification(token: token, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
        await client.close()
        #expect(result.outcome == .delivered, "\(result.outcome)")
        #expect(gateway.sentNotifications.map(\.topic) == ["com.example.bank"])

        var untrusting = gateway.configuration
        untrusting.trust = .system
        untrusting.retry = APNsRetryPolicy(maximumAttempts: 1, maximumReconnects: 0)
        let stranger = try APNsClient(configuration: untrusting)
        let refused = await stranger.send(APNsNotification(token: token, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
        await stranger.close()
        guard case .failed(let error) = refused.outcome else {
            Issue.record("a client that does not trust the mock's CA got \(refused.outcome)")
            return
        }
        #expect(error.code == .gatewayUnreachable, "\(error)")
        #expect(gateway.sentNotificationCount == 1)
    }

    @Test("CA certificates as PEM text that hold none: the send fails with one sentence naming them, nothing reaches the gateway")
    func caPEMWithoutCertificates() async throws {
        let gateway = try await APNsMockGateway.start()
        for text in ["", "not a certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n"] {
            var configuration = gateway.configuration
            configuration.trust = .caPEM(text)
            configuration.retry = APNsRetryPolicy(maximumAttempts: 1, maximumReconnects: 0)
            let client = try APNsClient(configuration: configuration)
            let result = await client.send(APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: "ab", count: 32)),
                                                            payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
            await client.close()
            guard case .failed(let error) = result.outcome else {
                Issue.record("trusting \(text.debugDescription) got \(result.outcome)")
                continue
            }
            #expect(error.code == .gatewayUnreachable && error.description.contains("the trusted CA certificates given as PEM text"), "\(error)")
        }
        #expect(gateway.sentNotificationCount == 0)
    }

    @Test("sentNotifications keeps the newest sentNotificationsLimit; sentNotificationCount counts all")
    func sentNotificationsBound() async throws {
        let gateway = try await APNsMockGateway.start(sentNotificationsLimit: 3)
        let client = try APNsClient(configuration: gateway.configuration)
        var tokens: [APNsDeviceToken] = []
        for n in 1...5 {
            let token = try APNsDeviceToken(parsing: String(format: "%064x", n))
            tokens.append(token)
            #expect(await client.send(APNsNotification(token: token, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))).isDelivered)
        }
        await client.close()
        #expect(gateway.sentNotifications.map(\.token) == Array(tokens.suffix(3)))
        #expect(gateway.sentNotificationCount == 5)
    }

    /// Two curls at once, each waited for synchronously (`ProcessRunner` blocks its thread and
    /// two Dispatch threads): both Swift concurrency threads of a 2-core machine are busy while
    /// the gateway holds the answers. When held answers were tasks they waited until curl gave up.
    @Test("Held answers come while every thread of the test waits for a child process (curl, HTTP/2, token auth)", .timeLimit(.minutes(2)))
    func heldAnswersWithBlockedThreads() async throws {
        let gateway = try await APNsMockGateway.start(answerDelay: .seconds(1))
        let dir = try TemporaryDirectory("apnskit-in-process")
        let caFile = try dir.write("ca-bundle.pem", text: gateway.caCertificatesPEM)
        let bearer = "bearer \(try gateway.tokenSigner.token())"
        let results = await withTaskGroup(of: ProcessResult?.self) { group in
            for n in 1...2 {
                group.addTask {
                    blockingCurl(["-sS", "--http2", "--max-time", "30", "--cacert", caFile, "-H", "authorization: \(bearer)",
                                                    "-H", "apns-topic: \(gateway.bundleID)", "-H", "apns-push-type: alert",
                                                    "--data-binary", #"{"aps":{"alert":"hi"}}"#, "-w", "\n%{http_code}",
                                                    "https://\(gateway.host):\(gateway.port)/3/device/\(String(format: "%064x", n))"])
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result?.status == 0 && result?.stdout.hasSuffix("\n200") == true, "\(String(describing: result))") }
        #expect(gateway.sentNotificationCount == 2)
    }

    @Test("Bad start arguments get one sentence")
    func badArguments() async throws {
        await #expect(throws: APNsMockGateway.StartError.self) { try await APNsMockGateway.start(sentNotificationsLimit: 0) }
        do {
            _ = try await APNsMockGateway.start(answerDelay: .seconds(-1))
            Issue.record("a negative answerDelay was accepted")
        } catch {
            #expect(error.description == "answerDelay must not be negative; it was -1.0 seconds.")
        }
    }
}

/// Runs curl to completion, blocking the calling thread on purpose: the test above proves the
/// gateway's held answers do not need the test's threads. (About a second, twice.)
private func blockingCurl(_ arguments: [String]) -> ProcessResult? {
    try? ProcessRunner.run("curl", arguments)
}
