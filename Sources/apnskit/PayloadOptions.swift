// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import ArgumentParser
import Foundation
import OpenSSLCore

/// The payload and header options of a notification: `push` sends them, `outbox enqueue` puts
/// them in the outbox table. One group, so that the same flags build the same notification in
/// both (and are checked with the same sentences).
struct PayloadOptions: ParsableArguments {
    @Option(help: "Alert body text.") var alert: String?
    @Option(help: "Alert title.") var title: String?
    @Option(help: "Alert subtitle.") var subtitle: String?
    @Option(help: "Badge number.") var badge: Int?
    @Option(help: "Sound name.") var sound: String?
    @Option(help: "Notification category.") var category: String?
    @Option(name: .customLong("thread-id"), help: "Thread id for grouping.") var threadID: String?
    @Flag(name: .customLong("content-available"), help: "Set content-available (background update).") var contentAvailable = false
    @Flag(name: .customLong("mutable-content"), help: "Set mutable-content (service extension).") var mutableContent = false

    @Option(help: ArgumentHelp("Raw JSON payload from a file, or - for stdin (instead of --alert and friends).", valueName: "FILE"))
    var payload: String?

    @Option(name: .customLong("push-type"), help: "apns-push-type: alert, background, voip, ... (default alert, background for --content-available alone).")
    var pushType: APNsPushType?

    @Option(help: "apns-priority: 10, 5 or 1.") var priority: Int?
    @Option(help: "apns-expiration: UNIX seconds (0 = deliver once, do not store).") var expiration: UInt64?
    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id (at most 64 bytes).") var collapseID: String?
    @Option(help: "apns-topic (default: the certificate's bundle id plus the push type's suffix).") var topic: String?

    func validate() throws {
        if payload != nil && (alert != nil || title != nil || subtitle != nil || badge != nil || sound != nil || category != nil
                              || threadID != nil || contentAvailable || mutableContent) {
            throw ValidationError("--payload gives the whole payload; drop --alert, --title, --badge and the other payload options.")
        }
        if let priority, APNsPriority(rawValue: priority) == nil { throw ValidationError("--priority must be 10, 5 or 1.") }
        if let collapseID, collapseID.utf8.count > 64 { throw ValidationError("--collapse-id is longer than 64 bytes.") }
    }

    /// Headers and default payload every notification of a run shares. `livePayload` is the
    /// Live Activity payload `push --live-activity` built (it replaces the body and implies
    /// the push type); `bundleID` the certificate's, for the default topic.
    func template(bundleID: String?, livePayload: [UInt8]? = nil, apnsID: UUID? = nil) throws -> APNsNotification {
        var body: [UInt8]
        if let livePayload {
            body = livePayload
        } else if let payload {
            body = try Self.readPayload(payload)
        } else {
            var built = Payload()
            built.body = alert
            built.title = title
            built.subtitle = subtitle
            built.badge = badge
            built.sound = sound
            built.category = category
            built.threadID = threadID
            built.contentAvailable = contentAvailable
            built.mutableContent = mutableContent
            body = built.json()
        }
        let alertless = alert == nil && title == nil && subtitle == nil && badge == nil && sound == nil
        let type = pushType ?? (livePayload != nil ? .liveactivity : (payload == nil && contentAvailable && alertless ? .background : .alert))
        var topic = self.topic
        // A Live Activity goes to <bundle>.push-type.liveactivity: a bare bundle id gets the suffix.
        if livePayload != nil, let given = topic { topic = APNsNotification.topic(bundleID: given, pushType: type) }
        if topic == nil, let bundleID { topic = APNsNotification.topic(bundleID: bundleID, pushType: type) }
        let chosenPriority = priority.flatMap(APNsPriority.init(rawValue:)) ?? APNsNotification.defaultPriority(for: type)
        // The token is filled in per notification; a placeholder keeps the template a value.
        let placeholder = try APNsDeviceToken(bytes: [UInt8](repeating: 0, count: 32))
        return APNsNotification(token: placeholder, payload: body, topic: topic, pushType: type, priority: chosenPriority,
                                expiration: expiration, collapseID: collapseID, apnsID: apnsID)
    }

    /// The largest `--payload` file read. APNs takes at most 5 KB (VoIP; 4 KB otherwise,
    /// apns-protocol.md §2); room is left for whitespace, and the size check per push type
    /// comes later. Reading stops one byte past it: `--payload -` from `/dev/zero` once
    /// crashed at 2.1 GB, and a 100 MB file cost 221 MB before it was refused.
    static let maxPayloadFile = 64 * 1024

    private static func readPayload(_ path: String) throws -> [UInt8] {
        var bytes = try CredentialFile.readBytes(path, limit: maxPayloadFile, kind: "an APNs payload (at most 5 KB of JSON); check --payload")
        while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 { bytes.removeLast() }
        guard JSONSyntax.isObject(bytes) else {
            throw CommandFailure(message: "The payload \(path == "-" ? "on stdin" : "in \(path)") is not a JSON object; fix the JSON.", status: ExitStatus.input)
        }
        return bytes
    }
}
