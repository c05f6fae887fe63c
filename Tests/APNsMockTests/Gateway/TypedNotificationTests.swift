// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsProtocol
import APNsSender
import Foundation
import Testing
import TestSupport

/// Every typed payload sent through `APNsClient` (token authentication, the client's bundle
/// id) to the in-process mock gateway: each is accepted, and the gateway's record shows the
/// push type the payload set and the topic the client derived from it.
@Suite("Typed notifications through APNsClient to the mock gateway", .serialized)
struct TypedNotificationTests {
    struct Call: Codable, Sendable {
        let caller: String
        let callID: UUID
    }

    struct Score: Codable, Sendable {
        let home: Int
        let away: Int
    }

    struct Match: Codable, Sendable {
        let homeTeam: String
    }

    func client(_ f: GatewayFixture) throws -> APNsClient {
        let signer = try APNsTokenSigner(key: f.authKey, keyID: f.keyID, teamID: f.teamID)
        var configuration = APNsClient.Configuration(gateway: .custom(host: "127.0.0.1", port: f.gateway.providerPort, environment: .sandbox),
                                                     authentication: .token(signer))
        configuration.trust = .caFile(f.caBundle)
        configuration.bundleID = "com.example.app"
        return try APNsClient(configuration: configuration)
    }

    @Test("Alert, background, VoIP, complication, File Provider, location, Push to Talk, widgets, Live Activity start/update/end: 200, push type and topic as recorded")
    func everyTypeIsAccepted() async throws {
        let f = try GatewayFixture()
        let client = try client(f)
        let token = { (n: Int) in try APNsDeviceToken(parsing: String(format: "%064x", n)) }
        var alert = APNsAlertPayload(alert: APNsAlert(title: "Hello", body: "From a typed payload"), custom: ["deep-link": "app://inbox"])
        alert.sound = .default
        alert.interruptionLevel = .timeSensitive
        let sends: [(APNsNotification, APNsPushType, String)] = [
            (try APNsNotification(token: token(1), payload: alert), .alert, "com.example.app"),
            (try APNsNotification(token: token(2), payload: APNsBackgroundPayload(custom: ["sync": true])), .background, "com.example.app"),
            (try APNsNotification(token: token(3), payload: APNsVoIPPayload(Call(caller: "Ada", callID: UUID()))), .voip, "com.example.app.voip"),
            (try APNsNotification(token: token(4), payload: APNsComplicationPayload(Score(home: 1, away: 0))), .complication, "com.example.app.complication"),
            (try APNsNotification(token: token(5), payload: APNsFileProviderPayload(["container-identifier": "NSFileProviderRootContainerItemIdentifier"])),
             .fileprovider, "com.example.app.pushkit.fileprovider"),
            (try APNsNotification(token: token(6), payload: APNsLocationPayload()), .location, "com.example.app.location-query"),
            (try APNsNotification(token: token(7), payload: APNsPushToTalkPayload(["activeSpeaker": "Ada"])), .pushtotalk, "com.example.app.voip-ptt"),
            (try APNsNotification(token: token(8), payload: APNsWidgetsPayload()), .widgets, "com.example.app.push-type.widgets"),
            (try APNsNotification(token: token(9), payload: APNsLiveActivityStartPayload(attributesType: "MatchAttributes", attributes: Match(homeTeam: "A"),
                                                                                          contentState: Score(home: 0, away: 0),
                                                                                          alert: APNsLiveActivityAlert(title: "Kickoff"), updates: .pushToken)),
             .liveactivity, "com.example.app.push-type.liveactivity"),
            (try APNsNotification(token: token(10), payload: APNsLiveActivityPayload(event: .update, contentState: Score(home: 1, away: 0))),
             .liveactivity, "com.example.app.push-type.liveactivity"),
            (try APNsNotification(token: token(11), payload: APNsLiveActivityPayload(event: .end, contentState: Score(home: 1, away: 0),
                                                                                     dismissalDate: Date()), collapseID: "match-1"),
             .liveactivity, "com.example.app.push-type.liveactivity"),
        ]
        for (notification, _, _) in sends {
            let result = await client.send(notification)
            #expect(result.outcome == .delivered, "\(notification.pushType?.rawValue ?? "?"): \(result.outcome)")
        }
        // The shorthand: build and send in one call.
        let widgetsResult = try await client.send(APNsWidgetsPayload(), to: token(12))
        #expect(widgetsResult.outcome == .delivered)
        await client.close()
        let records = try f.records()
        #expect(records.count == sends.count + 1)
        let shorthand = records.first { ($0["token"] as? String) == (try? token(12))?.hex }
        #expect(shorthand?["push_type"] as? String == "widgets" && shorthand?["topic"] as? String == "com.example.app.push-type.widgets")
        for (notification, pushType, topic) in sends {
            let record = records.first { ($0["token"] as? String) == notification.token.hex }
            #expect(record?["push_type"] as? String == pushType.rawValue)
            #expect(record?["topic"] as? String == topic)
            #expect(record?["payload_bytes"] as? Int == notification.payload.count)
        }
    }

    @Test("A typed payload over its push type's limit is refused with the typed error before any request; the gateway records nothing")
    func oversizeIsNeverSent() async throws {
        let f = try GatewayFixture()
        let client = try client(f)
        let token = try APNsDeviceToken(parsing: String(repeating: "ab", count: 32))
        let huge = Score(home: 0, away: 0)
        var refused: APNsPayloadError?
        do {
            let notification = try APNsNotification(token: token, payload: APNsLiveActivityPayload(event: .update, contentState: huge,
                                                                                               alert: APNsLiveActivityAlert(title: String(repeating: "G", count: 4_096))))
            _ = await client.send(notification)
        } catch {
            refused = error  // typed throws: `error` is an APNsPayloadError, no cast
        }
        #expect(refused?.code == .tooLarge)
        #expect(refused?.description.contains("APNs takes at most 4096 for liveactivity pushes") == true, "\(String(describing: refused))")
        // The client is still good for a payload that fits.
        let fits = try APNsNotification(token: token, payload: APNsLiveActivityPayload(event: .update, contentState: huge))
        #expect(await client.send(fits).outcome == .delivered)
        await client.close()
        #expect(try f.records().count == 1, "only the notification that fits reached the gateway")
    }
}
