import APNsCredentials
import APNsProtocol
import APNsTransport
import Foundation

/// The mock's legacy binary gateway (APNS.md section 4), one handler per connection: frames
/// are decoded with the codec the sender uses; good notifications are recorded in silence
/// (the protocol has no success reply); the first bad one gets `8|status|identifier` and the
/// connection is closed, dropping everything after it, as Apple's gateway did.
final class LegacyGatewayHandler: StreamHandler {
    private var decoder = LegacyFrameDecoder()
    private let environment: APNsEnvironment
    private let registry: DeviceRegistry?
    private let recorder: NotificationRecorder?
    private let log: @Sendable (String) -> Void
    private var topic: String?
    private var finished = false
    private var count = 0

    init(environment: APNsEnvironment, registry: DeviceRegistry?, recorder: NotificationRecorder?, log: @escaping @Sendable (String) -> Void) {
        self.environment = environment
        self.registry = registry
        self.recorder = recorder
        self.log = log
    }

    func streamOpened(_ peer: StreamPeer) {
        guard let certificate = peer.clientCertificate else { peer.close(); return }
        let info = certificate.apnsInfo()
        topic = info.bundleID
        log("legacy connection #\(peer.id) from \(peer.remoteAddress): certificate \(info.commonName ?? info.subject)")
        if !info.isAPNs || !info.environments.contains(environment) {
            // The gateway of the other environment rejects the certificate outright.
            log("legacy connection #\(peer.id): certificate not valid for \(environment.rawValue); closing")
            peer.close()
        }
    }

    func stream(_ peer: StreamPeer, received bytes: [UInt8]) {
        guard !finished else { return }
        decoder.append(bytes)
        while let event = decoder.next() {
            switch event {
            case .notification(let notification, let format):
                if let status = check(notification) {
                    fail(peer, status: status, identifier: notification.identifier, format: format)
                    return
                }
                count += 1
                let token = (try? DeviceToken(bytes: notification.token)) ?? (try! DeviceToken(bytes: Array(repeating: 0, count: 32)))
                recorder?.record(apnsID: "legacy-\(peer.id)-\(notification.identifier)", token: token, topic: topic, pushType: nil,
                                 payloadBytes: notification.payload.count, connection: peer.id, protocolName: "legacy",
                                 identifier: format == .simple ? nil : notification.identifier)
            case .invalid(let status, let identifier, let format):
                fail(peer, status: status, identifier: identifier, format: format)
                return
            }
        }
    }

    func streamClosed(_ peer: StreamPeer, error: TransportError?) {
        log("legacy connection #\(peer.id) closed after \(count) notification(s)")
    }

    private func check(_ notification: LegacyNotification) -> LegacyStatus? {
        guard let registry else { return nil }
        guard let token = try? DeviceToken(bytes: notification.token), let device = registry.devices[token],
              device.environment == environment else { return .invalidToken }
        if let registered = device.topic, let topic, registered != topic { return .invalidToken }
        return nil
    }

    private func fail(_ peer: StreamPeer, status: LegacyStatus, identifier: UInt32, format: LegacyFormat?) {
        finished = true
        log("legacy connection #\(peer.id): \(status.name) for identifier \(identifier); closing")
        // Command 0 has no identifier and gets no reply: the gateway just drops the connection.
        if format != .simple { peer.write(LegacyErrorResponse(status: status, identifier: identifier).encoded) }
        peer.close()
    }
}

/// The feedback service: on connect, writes the tuples of unregistered tokens, then closes.
/// The list is cleared once read, as Apple's service did.
final class FeedbackHandler: StreamHandler {
    private let take: @Sendable () -> [FeedbackTuple]
    private let log: @Sendable (String) -> Void

    init(take: @escaping @Sendable () -> [FeedbackTuple], log: @escaping @Sendable (String) -> Void) {
        self.take = take
        self.log = log
    }

    func streamOpened(_ peer: StreamPeer) {
        let tuples = take()
        log("feedback connection #\(peer.id) from \(peer.remoteAddress): sending \(tuples.count) tuple(s)")
        peer.write(tuples.flatMap(\.encoded))
        peer.close()
    }

    func stream(_ peer: StreamPeer, received bytes: [UInt8]) {}
    func streamClosed(_ peer: StreamPeer, error: TransportError?) {}
}
