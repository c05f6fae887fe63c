import APNsCredentials
import APNsMock
import APNsProtocol
import APNsSender
import APNsTransport
import Foundation
import Testing
import TestSupport

@Suite("The library path: load an identity, verify it, hand it to the sender", .serialized)
struct LibraryPathTests {
    @Test("The README's example, against the mock gateway")
    func loadVerifySend() async throws {
        let f = try GatewayFixture()
        let issued = try f.identity(.development)
        let path = try f.dir.write("apns.pem", try issued.combinedPEM())

        // README "Libraries" example, with the mock's endpoint and CA instead of Apple's.
        let identity = try IdentityLoader.load([path], passphrases: .none)
        let report = await GatewayCheck(endpoint: f.endpoint, credentials: .certificate(identity), trust: .caFile(f.caBundle)).run()
        #expect(report.outcome == .accepted, "\(report.summary)")

        let client = APNsClient(endpoint: f.endpoint, caFile: f.caBundle, authentication: .certificate(identity))
        var payload = Payload()
        payload.title = "Hello"
        payload.body = "From apnskit"
        let token = try DeviceToken(parsing: "c9d4c07c fbbc26d6 ef87a44d 53e19838 31b5f8eb 4d7b6e3a 27e6c9b2 a1f0e5d4")
        let result = await client.send(PushNotification(token: token, payload: payload.json(), topic: "com.example.app"))
        #expect(result.outcome == .delivered)
        #expect(result.uniqueID != nil, "sandbox answers carry apns-unique-id")
        await client.close()
        let records = try f.records().filter { ($0["token"] as? String) == token.hex }
        #expect(records.count == 1)
        #expect(records.first?["apns_id"] as? String == result.apnsID)
    }
}
