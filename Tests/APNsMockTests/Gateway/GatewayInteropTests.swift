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

@Suite("Mock gateway: real clients agree with it")
struct GatewayInteropTests {
    /// Writes an identity's certificate and key as PEM files for command-line clients.
    func pemFiles(_ identity: APNsIdentity, in f: GatewayFixture) throws -> (cert: String, key: String) {
        (try f.dir.write("client.pem", try identity.certificate.pem()), try f.dir.write("client.key", try identity.privateKey.pkcs8PEM()))
    }

    @Test("nghttp with --cert/--key gets 200 and APNs' headers; the record has the notification")
    func nghttp() async throws {
        let f = try GatewayFixture()
        let files = try pemFiles(try f.identity(.universal), in: f)
        let payload = try f.dir.write("payload.json", samplePayload)
        let result = try await ProcessRunner.run("nghttp", ["-v", "--cert=\(files.cert)", "--key=\(files.key)", "-H", ":method: POST",
                                                      "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert", "-d", payload,
                                                      "https://127.0.0.1:\(f.gateway.providerPort)/3/device/\(sampleToken)"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains(":status: 200"))
        #expect(result.stdout.contains("apns-id: "))
        #expect(result.stdout.contains("apns-unique-id: "))
        #expect(try f.records().count == 1)
        // Without a client certificate or token, the same request is refused as APNs does.
        let anonymous = try await ProcessRunner.run("nghttp", ["-H", ":method: POST", "-H", "apns-topic: com.example.app", "-d", payload,
                                                         "https://127.0.0.1:\(f.gateway.providerPort)/3/device/\(sampleToken)"])
        #expect(anonymous.stdout.contains("MissingProviderToken"), "\(anonymous)")
    }

    @Test("h2load with a bearer JWT: 2,000 requests over one connection, every answer 200; a token of an unknown key: every answer 403")
    func h2load() async throws {
        let f = try GatewayFixture()
        let payload = try f.dir.write("payload.json", samplePayload)
        let url = "https://127.0.0.1:\(f.gateway.providerPort)/3/device/\(sampleToken)"
        let good = try await ProcessRunner.run("h2load", ["-n", "2000", "-c", "1", "-m", "50", "-H", "authorization: bearer \(try f.token())",
                                                    "-H", "apns-topic: com.example.app", "-d", payload, url])
        #expect(good.status == 0, "\(good)")
        // The connection starts with 1 stream (Apple's rule for tokens): h2load's first burst
        // may be refused (REFUSED_STREAM, "errored", never processed); everything answered is
        // a 200, and exactly those are recorded.
        let delivered = Int(good.stdout.firstMatch(of: /status codes: (\d+) 2xx, 0 3xx, 0 4xx, 0 5xx/)?.1 ?? "") ?? -1
        let refusedFirst = Int(good.stdout.firstMatch(of: /(\d+) errored/)?.1 ?? "") ?? -1
        #expect(delivered > 0 && delivered + refusedFirst == 2000, "\(good.stdout)")
        #expect(try f.records().count == delivered)
        let stranger = try f.token(key: try PrivateKey.generate(.ec256))
        let bad = try await ProcessRunner.run("h2load", ["-n", "100", "-c", "1", "-m", "10", "-H", "authorization: bearer \(stranger)",
                                                   "-H", "apns-topic: com.example.app", "-d", payload, url])
        // A token connection is offered 1 stream until a valid token succeeds (as Apple's is):
        // h2load's first burst goes out before that SETTINGS arrives, and the streams beyond
        // the first are refused (REFUSED_STREAM, "errored"); every request answered is a 403.
        let answered = Int(bad.stdout.firstMatch(of: /0 2xx, 0 3xx, (\d+) 4xx, 0 5xx/)?.1 ?? "") ?? -1
        let refused = Int(bad.stdout.firstMatch(of: /(\d+) errored/)?.1 ?? "") ?? -1
        #expect(answered > 0 && answered + refused == 100, "\(bad.stdout)")
    }

    @Test("openssl s_client: handshake with a client certificate on the provider and legacy ports; without one the legacy port refuses")
    func sClient() async throws {
        let f = try GatewayFixture()
        let files = try pemFiles(try f.identity(.development), in: f)
        let legacyPort = try #require(f.gateway.legacyPort)
        let h2 = try await ProcessRunner.run("openssl", ["s_client", "-connect", "127.0.0.1:\(f.gateway.providerPort)", "-alpn", "h2",
                                                   "-CAfile", f.caBundle, "-cert", files.cert, "-key", files.key, "-verify_return_error"],
                                       stdin: Data())
        #expect(h2.stdout.contains("ALPN protocol: h2"), "\(h2)")
        #expect(h2.stdout.contains("Verify return code: 0 (ok)"), "\(h2)")
        // A framed notification with a token the registry-less gateway accepts, then a bad frame.
        let good = LegacyNotification(token: Array(repeating: 0xAB, count: 32), payload: samplePayload, identifier: 1).encoded(.framed)
        let bad = LegacyNotification(token: Array(repeating: 0xAB, count: 31), payload: samplePayload, identifier: 2).encoded(.framed)
        let legacy = try await ProcessRunner.run("openssl", ["s_client", "-connect", "127.0.0.1:\(legacyPort)", "-CAfile", f.caBundle,
                                                       "-cert", files.cert, "-key", files.key, "-quiet", "-verify_return_error"],
                                           stdin: Data(good + bad))
        let reply = Array(legacy.stdoutData)
        #expect(reply == LegacyErrorResponse(status: .invalidTokenSize, identifier: 2).encoded, "\(legacy)")
        #expect(try f.records().count == 1)
        let anonymous = try await ProcessRunner.run("openssl", ["s_client", "-connect", "127.0.0.1:\(legacyPort)", "-CAfile", f.caBundle, "-quiet"],
                                              stdin: Data(good))
        #expect(try f.records().count == 1, "nothing accepted without a client certificate: \(anonymous.stderr)")
    }
}

@Suite("Mock gateway: legacy binary gateway and feedback service")
struct LegacyGatewayTests {
    @Test("A bad token in the middle of 10,000 frames: error response for that identifier, the rest dropped with the connection")
    func badTokenMidStream() async throws {
        var devices: [APNsDeviceToken: DeviceRegistry.Device] = [:]
        var tokens: [[UInt8]] = []
        for index in 0..<10_000 {
            let bytes = (0..<32).map { UInt8(truncatingIfNeeded: index >> ($0 % 4 * 8)) ^ UInt8($0) }
            tokens.append(bytes)
            if index != 4_321 { devices[try APNsDeviceToken(bytes: bytes)] = .init(topic: "com.example.app", environment: .sandbox) }
        }
        let f = try GatewayFixture(registry: DeviceRegistry(devices: devices))
        let identity = try f.identity(.development)
        let client = try await TLSClient.connect(to: Endpoint(host: "127.0.0.1", port: try #require(f.gateway.legacyPort)),
                                                 tls: .client(identity: identity, trust: .caFile(f.caBundle)))
        var stream: [UInt8] = []
        for (index, token) in tokens.enumerated() {
            stream += LegacyNotification(token: token, payload: samplePayload, identifier: UInt32(index)).encoded(.framed)
        }
        client.write(stream)
        var reply: [UInt8] = []
        while let bytes = try await client.read(timeout: 10) { reply += bytes }
        #expect(LegacyErrorResponse(bytes: reply) == LegacyErrorResponse(status: .invalidToken, identifier: 4_321))
        let records = try f.records()
        #expect(records.count == 4_321)
        #expect(records.last?["identifier"] as? Int == 4_320)
    }

    @Test("Feedback: unregistered tokens as (timestamp, token) tuples, then close; the list is cleared once read")
    func feedback() async throws {
        let gone = try APNsDeviceToken(parsing: String(repeating: "0f", count: 32))
        let registry = DeviceRegistry(devices: [gone: .init(topic: "com.example.app", environment: .sandbox, unregisteredAt: 1_700_000_000_000)])
        let f = try GatewayFixture(registry: registry)
        let identity = try f.identity(.development)
        let port = try #require(f.gateway.feedbackPort)
        func read() async throws -> [UInt8] {
            let client = try await TLSClient.connect(to: Endpoint(host: "127.0.0.1", port: port), tls: .client(identity: identity, trust: .caFile(f.caBundle)))
            var bytes: [UInt8] = []
            while let chunk = try await client.read(timeout: 10) { bytes += chunk }
            return bytes
        }
        let first = FeedbackTuple.decodeAll(try await read())
        #expect(first.tuples == [FeedbackTuple(timestamp: 1_700_000_000, token: gone.bytes)])
        #expect(first.remainder == 0)
        #expect(try await read().isEmpty)
    }
}
