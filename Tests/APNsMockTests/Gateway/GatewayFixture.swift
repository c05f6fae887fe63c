// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsProtocol
import APNsTransport
import Foundation
import Testing
import TestSupport

/// A running mock gateway on free ports with a fresh mock CA and a set of identities, for one
/// test. `stop()` is called by `deinit` too, so a failing test never leaves a server behind.
final class GatewayFixture: @unchecked Sendable {
    let dir: TemporaryDirectory
    let ca: MockCA
    let gateway: MockGateway
    let authKey: PrivateKey
    let keyID = "ABC123DEFG"
    let teamID = "TEAM123456"
    let recordPath: String

    init(environment: APNsEnvironment = .sandbox, registry: DeviceRegistry? = nil, faults: GatewayFaults = GatewayFaults(),
         extraKeys: [AuthKeyRegistry.Entry] = [], channelLimit: Int = ChannelStore.appleLimit) throws {
        dir = try TemporaryDirectory("apnskit-gateway")
        ca = try MockCA.create()
        try ca.write(to: dir.file("ca"), force: false)
        authKey = try PrivateKey.generate(.ec256)
        try AuthKeyRegistry.register(.init(keyID: keyID, teamID: teamID, publicKey: try PublicKey(of: authKey)), caFolder: dir.file("ca"), force: false)
        var configuration = MockGateway.Configuration()
        configuration.api.environment = environment
        configuration.api.registry = registry
        configuration.api.faults = faults
        configuration.api.channelLimit = channelLimit
        recordPath = dir.file("record.jsonl")
        configuration.recordPath = recordPath
        if !extraKeys.isEmpty {
            var keys = try AuthKeyRegistry.load(caFolder: dir.file("ca"))
            for key in extraKeys { keys.add(key) }
            configuration.api.authKeys = keys
        }
        gateway = try MockGateway(ca: ca, caFolder: dir.file("ca"), configuration: configuration)
    }

    deinit { gateway.stop() }

    var caBundle: String { dir.file("ca/\(MockCALayout.bundle)") }
    var endpoint: Endpoint { Endpoint(host: "127.0.0.1", port: gateway.providerPort) }
    /// The channel management port (apns-protocol.md §8).
    var channelsEndpoint: Endpoint { Endpoint(host: "127.0.0.1", port: gateway.channelsPort ?? 0) }

    /// A certificate identity as the portal would issue it.
    func identity(_ type: APNsCertificateType, bundle: String = "com.example.app", environments: [APNsEnvironment]? = nil,
                  validity: PortalRequest.Validity = .portalDefault) throws -> APNsIdentity {
        let key = try PrivateKey.generate(.rsa2048)
        var request = PortalRequest(bundleID: bundle, type: type, validity: validity)
        request.environmentsOverride = environments
        let certificate = try ca.issue(forKey: key, request)
        return try APNsIdentity(certificate: certificate, privateKey: key, chain: [ca.intermediate])
    }

    func client(_ identity: APNsIdentity?, to target: Endpoint? = nil) async throws -> HTTP2Client {
        try await HTTP2Client.connect(to: target ?? endpoint, tls: .client(identity: identity, trust: .caFile(caBundle)))
    }

    func token(issuedAt: Date = Date(), key: PrivateKey? = nil, keyID: String? = nil, teamID: String? = nil) throws -> String {
        try APNsTokenSigner(key: key ?? authKey, keyID: keyID ?? self.keyID, teamID: teamID ?? self.teamID).token(issuedAt: issuedAt)
    }

    /// The apns-ids in the gateway's record once the client has gone: first the event, every
    /// connection closed on the gateway's side (it has read all the client wrote), then the
    /// record stops growing (its delayed handlers record after their delay, even for streams the
    /// client reset). Callers close their client first. Quiet alone was not enough: in a root CI
    /// run at load 15 the gateway's thread went unscheduled for longer than 2 s of quiet.
    func settledRecord() async throws -> Set<String> {
        let gateway = self.gateway
        let closed = await Wait.until(seconds: 120) { gateway.connectionLimit.open == 0 }
        #expect(closed, "the gateway still has \(gateway.connectionLimit.open) connections open after the client closed")
        // Then two seconds without a change, at most 60 s.
        _ = try await Wait.settled(quiet: .seconds(2), seconds: 60) { try records().count }
        return Set(try records().compactMap { $0["apns_id"] as? String })
    }

    /// The record's lines as dictionaries.
    func records() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

let sampleToken = String(repeating: "ab", count: 32)
let samplePayload = Array(#"{"aps":{"alert":"hello"}}"#.utf8)

func push(_ client: HTTP2Client, token: String = sampleToken, method: String = "POST", path: String? = nil,
          headers: [(String, String)] = [("apns-topic", "com.example.app")], body: [UInt8] = samplePayload) async throws -> HTTP2Response {
    try await client.send(HTTP2Request(method: method, path: path ?? "/3/device/\(token)", headers: headers.map { (name: $0.0, value: $0.1) }, body: body),
                          timeout: 10)
}

func reason(_ response: HTTP2Response) -> String? {
    (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["reason"] as? String
}
