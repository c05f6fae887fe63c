// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
import APNsTransport
import Foundation
import Testing
import TestSupport

/// The transport knows no APNs header: the sender hands it the APNs rules
/// (`APNsHeaderRules`, docs/apns-protocol.md §1 "Header compression"). python's h2/hpack, as
/// the server, tells which headers arrived never indexed.
@Suite("The sender's APNs header rules")
struct APNsHeaderRulesTests {
    @Test("APNsClient sends :path and apns-id never indexed, the topic and the rest indexable")
    func senderNeverIndexesPathAndID() async throws {
        let material = try HTTP2ProviderConnectionTests.Material()
        let script = try HPACKIndexingPeer.script(in: material.directory.path)
        let log = material.directory.file("hpack.log")
        let (fd, port) = bindLoopbackTCP()
        close(fd)
        let server = try BackgroundProcess(HPACKIndexingPeer.python, [script, "serve", String(port), material.serverCert, material.serverKey, log])
        defer { server.kill() }
        #expect(await server.waitForStdoutLine(containing: "listening") != nil, "\(server.stderr)")

        let client = APNsClient(endpoint: Endpoint(host: "127.0.0.1", port: port), trust: .caFile(material.serverCert),
                                authentication: .token(try material.signer()), policy: APNsRetryPolicy(maximumAttempts: 1), requestTimeout: 30)
        let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        for byte in ["ab", "cd"] {
            let notification = APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: byte, count: 32)), payload: payload,
                                                topic: "com.example.app", pushType: .alert, apnsID: UUID())
            let result = await client.send(notification)
            #expect(result.outcome == .delivered, "\(result.outcome) \(server.stderr)")
        }
        await client.close()

        let fields = HPACKIndexingPeer.fields(in: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        let names = Set(fields.map(\.name))
        #expect(names.isSuperset(of: [":path", "apns-id", "authorization", "apns-topic", "apns-push-type"]), "\(fields)")
        #expect(fields.filter { $0.name == "apns-id" }.count == 2, "\(fields)")
        // authorization too, but by nghttp2's own choice for any client (its deflater never
        // indexes that header, RFC 7541 section 7.1.3), not by ours.
        for field in fields {
            #expect(field.never == [":path", "apns-id", "authorization"].contains(field.name), "\(field)")
        }
    }
}
