// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation

/// The mock's legacy binary gateway (apns-protocol.md §4), one session per connection: frames
/// are decoded with the codec the sender uses; good notifications are recorded in silence
/// (the protocol has no success reply); the first bad one gets `8|status|identifier` and the
/// connection is closed, dropping everything after it, as Apple's gateway did.
struct LegacyGatewaySession {
    let id: Int
    let environment: APNsEnvironment
    let registry: DeviceRegistry?
    let recorder: NotificationRecorder?
    let inbox: (any InboxSink)?
    let log: @Sendable (String) -> Void

    /// A connection that sends nothing for this long is closed (the gateway's idle timeout).
    let idleSeconds: Double

    func serve(_ connection: TLSServerConnection) async {
        guard let certificate = connection.clientCertificate else { connection.close(); return }
        let info = certificate.apnsInfo()
        log("legacy connection #\(id) from \(connection.handshake.remoteAddress): certificate \(info.commonName ?? info.subject)")
        guard info.isAPNs, info.environments.contains(environment) else {
            // The gateway of the other environment rejects the certificate outright.
            log("legacy connection #\(id): certificate not valid for \(environment.rawValue); closing")
            connection.close()
            return
        }
        var decoder = LegacyFrameDecoder()
        var accepted = 0
        while let bytes = try? await connection.read(timeout: idleSeconds) {
            decoder.append(bytes)
            while let event = decoder.next() {
                switch event {
                case .notification(let notification, let format):
                    let status = check(notification, topic: info.bundleID)
                    inbox?.gatewayAnswered(inboxEvent(notification, format: format, status: status, topic: info.bundleID,
                                                      identity: info.commonName ?? info.subject, number: accepted + 1))
                    if let status {
                        await fail(connection, status: status, identifier: notification.identifier, format: format)
                        return
                    }
                    accepted += 1
                    guard let token = try? APNsDeviceToken(bytes: notification.token) else { continue }
                    // The client's identifier may repeat (command 0 has none); the record's id must not.
                    recorder?.record(apnsID: "legacy-\(id)-\(accepted)", token: token, topic: info.bundleID, pushType: nil,
                                     payloadBytes: notification.payload.count, connection: id, protocolName: "legacy",
                                     identifier: format == .simple ? nil : notification.identifier)
                case .invalid(let status, let identifier, let format):
                    var event = InboxEvent(protocolName: "legacy", status: Int(status.rawValue), accepted: false, reason: status.name, connection: id)
                    event.identifier = format == .simple ? nil : identifier
                    event.identity = info.commonName ?? info.subject
                    inbox?.gatewayAnswered(event)
                    await fail(connection, status: status, identifier: identifier, format: format)
                    return
                }
            }
        }
        log("legacy connection #\(id) closed after \(accepted) notification(s)")
        connection.close()
    }

    /// A frame for the inbox, accepted (`status` nil) or refused; `number` is the accepted
    /// count it would get, so its `apnsID` matches the record's `legacy-<connection>-<n>`.
    private func inboxEvent(_ notification: LegacyNotification, format: LegacyFormat, status: LegacyStatus?, topic: String?,
                            identity: String, number: Int) -> InboxEvent {
        var event = InboxEvent(protocolName: "legacy", status: Int(status?.rawValue ?? 0), accepted: status == nil, reason: status?.name,
                               token: (try? APNsDeviceToken(bytes: notification.token))?.hex, topic: topic,
                               payload: notification.payload, connection: id)
        event.identifier = format == .simple ? nil : notification.identifier
        event.identity = identity
        if status == nil { event.apnsID = "legacy-\(id)-\(number)" }
        if format != .simple { event.expiration = String(notification.expiry) }
        if format == .framed { event.priority = String(notification.priority) }
        return event
    }

    private func check(_ notification: LegacyNotification, topic: String?) -> LegacyStatus? {
        guard let registry else { return nil }
        guard let token = try? APNsDeviceToken(bytes: notification.token), let device = registry.devices[token],
              device.environment == environment else { return .invalidToken }
        if let registered = device.topic, let topic, registered != topic { return .invalidToken }
        return nil
    }

    private func fail(_ connection: TLSServerConnection, status: LegacyStatus, identifier: UInt32, format: LegacyFormat?) async {
        log("legacy connection #\(id): \(status.name) for identifier \(identifier); closing")
        // Command 0 has no identifier and gets no reply: the gateway just drops the connection.
        if format != .simple { connection.write(LegacyErrorResponse(status: status, identifier: identifier).encoded) }
        // Nothing after a bad frame is read into memory: the transport discards the rest
        // (a 4 GB frame header followed by a flood once took the mock to 2.7 GB) until the
        // client closes, for at most 2 seconds, so the error response is not destroyed by
        // an RST before the client reads it.
        connection.closeAfterPeer(timeout: 2)
    }
}

/// The feedback service: on connect, writes the tuples of unregistered tokens, then closes.
/// The list is cleared once read, as Apple's service did.
struct FeedbackSession {
    let id: Int
    let queue: FeedbackQueue
    let inbox: (any InboxSink)?
    let log: @Sendable (String) -> Void

    func serve(_ connection: TLSServerConnection) async {
        let tuples = queue.take()
        if let inbox {
            var event = InboxEvent(protocolName: "feedback", status: 0, accepted: true, connection: id)
            event.feedbackTuples = tuples.count
            inbox.gatewayAnswered(event)
        }
        log("feedback connection #\(id) from \(connection.handshake.remoteAddress): sending \(tuples.count) tuple(s)")
        connection.write(tuples.flatMap(\.encoded))
        connection.close()
    }
}
