// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import Foundation
import Logging
import Metrics
import MetricsTestKit
import Testing
import TestSupport

/// The sender reports through swift-metrics and swift-log, the APIs a server app already
/// bootstraps (swift-prometheus, its log handler).
@Suite("Observability: swift-metrics counters and timers, swift-log logs")
struct ObservabilityTests {
    let fast = APNsRetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(5), maximumReconnects: 1,
                           outageDelay: .milliseconds(500), maximumOutageDelay: .seconds(1))

    @Test("Counters per outcome, reason, push type and environment; a timer per outcome; connects counted")
    func metrics() async throws {
        let input = notifications(5).map { notification -> APNsNotification in
            var typed = notification
            typed.pushType = .alert
            return typed
        }
        var faults = FakeGateway.Faults()
        faults.unregistered = [input[1].token.hex, input[3].token.hex]
        let metrics = TestMetrics()
        let sender = BatchSender(connector: FakeGateway(faults), policy: fast, environment: "sandbox", metricsFactory: metrics)
        _ = await sender.send(APNsNotificationList(input)) { _ in }

        let delivered = try metrics.expectCounter("apns_notifications_total", [
            ("outcome", "delivered"), ("reason", "none"), ("push_type", "alert"), ("environment", "sandbox"),
        ])
        #expect(delivered.totalValue == 3)
        let unregistered = try metrics.expectCounter("apns_notifications_total", [
            ("outcome", "rejected"), ("reason", "Unregistered"), ("push_type", "alert"), ("environment", "sandbox"),
        ])
        #expect(unregistered.totalValue == 2)
        let timer = try metrics.expectTimer("apns_notification_duration_seconds", [
            ("outcome", "delivered"), ("push_type", "alert"), ("environment", "sandbox"),
        ])
        #expect(timer.values.count == 3)
        #expect(try metrics.expectCounter("apns_connects_total", [("result", "ok"), ("environment", "sandbox")]).totalValue == 1)
        await sender.close()
    }

    @Test("Logs go to the caller's Logger: connect failures, the gateway counted as down, results not delivered")
    func logs() async throws {
        let records = LogRecords()
        var logger = Logger(label: "test") { _ in CapturingLogHandler(records) }
        logger.logLevel = .debug
        var faults = FakeGateway.Faults()
        faults.failedConnects = 2
        let gateway = FakeGateway(faults)
        let sender = BatchSender(connector: gateway, policy: fast, logger: logger, metricsFactory: TestMetrics())
        let failed = await sender.send(notifications(1)[0])
        #expect(!failed.isDelivered)
        let messages = records.all
        #expect(messages.contains { $0.level == .debug && $0.message == "connect failed" && $0.metadata.contains("connection refused (scripted)") })
        #expect(messages.contains { $0.level == .warning && $0.message.hasPrefix("gateway unreachable") })
        #expect(messages.contains { $0.level == .debug && $0.message == "notification not delivered" })
        // The apns-id in the log is the one the result carries: lowercase, never `Optional(...)`.
        let notDelivered = try #require(messages.first { $0.message == "notification not delivered" })
        #expect(notDelivered.metadata.contains(failed.apnsIDText))
        #expect(!notDelivered.metadata.contains("Optional("))
        await sender.close()
    }
}
