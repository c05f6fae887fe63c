// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import Foundation

/// Which device tokens the mock gateway knows, for which topic and environment, and which
/// have been unregistered: the facts behind BadDeviceToken, DeviceTokenNotForTopic, 410
/// Unregistered and the feedback service. Without a registry every well-formed token is
/// deliverable.
///
/// File format (JSON):
/// ```
/// {"tokens": [{"token": "<hex>", "topic": "com.example.app", "environment": "sandbox",
///              "unregistered_at_ms": 1700000000000, "expired_at_ms": 1700000000000}]}
/// ```
/// `environment` defaults to sandbox; `unregistered_at_ms` is present only for uninstalled
/// apps (410 Unregistered), `expired_at_ms` only for expired tokens (410 ExpiredToken).
package struct DeviceRegistry: Sendable {
    package struct Device: Sendable, Equatable {
        package let topic: String?
        package let environment: APNsEnvironment
        /// Milliseconds since the epoch when the app was removed, if it was (410 Unregistered).
        package let unregisteredAt: Int?
        /// Milliseconds since the epoch when the token expired, if it did (410 ExpiredToken).
        package let expiredAt: Int?

        package init(topic: String?, environment: APNsEnvironment, unregisteredAt: Int? = nil, expiredAt: Int? = nil) {
            self.topic = topic
            self.environment = environment
            self.unregisteredAt = unregisteredAt
            self.expiredAt = expiredAt
        }
    }

    package private(set) var devices: [APNsDeviceToken: Device]

    package init(devices: [APNsDeviceToken: Device] = [:]) { self.devices = devices }

    package static func load(_ path: String) throws -> DeviceRegistry {
        let bytes = try CredentialFile.readBytes(path)
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let entries = root["tokens"] as? [[String: Any]] else {
            throw APNsCredentialError(.unreadable, "\(path) is not a device registry: expected {\"tokens\": [{\"token\": \"<hex>\", ...}]}.")
        }
        var devices: [APNsDeviceToken: Device] = [:]
        for (index, entry) in entries.enumerated() {
            guard let text = entry["token"] as? String, let token = try? APNsDeviceToken(parsing: text) else {
                throw APNsCredentialError(.unreadable, "\(path): entry \(index + 1) has no valid \"token\".")
            }
            let environmentName = entry["environment"] as? String ?? "sandbox"
            guard let environment = APNsEnvironment(rawValue: environmentName) else {
                throw APNsCredentialError(.unreadable, "\(path): entry \(index + 1) has environment '\(environmentName)'; use sandbox or production.")
            }
            devices[token] = Device(topic: entry["topic"] as? String, environment: environment,
                                    unregisteredAt: (entry["unregistered_at_ms"] as? NSNumber)?.intValue,
                                    expiredAt: (entry["expired_at_ms"] as? NSNumber)?.intValue)
        }
        return DeviceRegistry(devices: devices)
    }

    /// The tuples the feedback service hands out for `environment`.
    package func feedback(for environment: APNsEnvironment) -> [FeedbackTuple] {
        devices.compactMap { token, device in
            guard device.environment == environment, let at = device.unregisteredAt else { return nil }
            return FeedbackTuple(timestamp: UInt32(clamping: at / 1000), token: token.bytes)
        }.sorted { $0.timestamp < $1.timestamp }
    }
}
