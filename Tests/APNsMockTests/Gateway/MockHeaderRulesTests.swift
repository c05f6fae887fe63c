// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import Foundation
import Testing
import TestSupport

/// The transport knows no APNs header: the mock gateway hands it the APNs rules
/// (`APNsHeaderRules`, docs/apns-protocol.md §1 "Header compression"). python's h2/hpack, as
/// the client, tells which answer headers arrived never indexed.
@Suite("The mock gateway's APNs header rules")
struct MockHeaderRulesTests {
    @Test("The mock answers with apns-id (and apns-unique-id) never indexed, its other headers indexable")
    func mockNeverIndexesTheIDs() async throws {
        let gateway = try await APNsMockGateway.start(environment: .sandbox)
        defer { gateway.shutdown() }
        let directory = try TemporaryDirectory("apnskit-mock-hpack")
        let caFile = directory.file("ca.pem")
        try gateway.caCertificatesPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        let script = try HPACKIndexingPeer.script(in: directory.path)
        // GET: the mock answers 405 MethodNotAllowed, with an apns-id and a JSON body.
        let result = try await ProcessRunner.run(HPACKIndexingPeer.python, [script, "get", String(gateway.port), caFile, gateway.host,
                                                                "/3/device/" + String(repeating: "ab", count: 32), "2"])
        #expect(result.status == 0, "\(result)")
        let fields = HPACKIndexingPeer.fields(in: result.stdout)
        #expect(fields.filter { $0.name == "apns-id" }.count == 2, "\(result)")
        #expect(fields.contains { $0.name == "content-type" }, "\(result)")
        for field in fields {
            #expect(field.never == ["apns-id", "apns-unique-id"].contains(field.name), "\(field)")
        }
    }
}
