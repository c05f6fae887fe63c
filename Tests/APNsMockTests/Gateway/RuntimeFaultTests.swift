// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsTransport
import Foundation
import Testing

/// Faults changed on a running gateway (`PUT /api/faults`) act on the connections already open.
@Suite("ProviderAPIHandlerFaultTests: run-time faults on open connections")
struct RuntimeFaultTests {
    @Test("drop_after set at run time counts from then: a connection already past N requests is dropped at its N-th from then on")
    func dropAfterCountsFromWhenSet() async throws {
        let f = try GatewayFixture()
        let client = try await f.client(try f.identity(.universal))
        for _ in 0..<5 { #expect(try await push(client).status == 200) }
        var faults = GatewayFaults()
        faults.dropAfter = 2
        faults.dropMode = .accepted
        f.gateway.handler.replaceFaults(with: faults)
        #expect(try await push(client).status == 200, "the first request under the new faults is answered")
        // The second is recorded, then the connection drops unanswered (before the fix it was
        // the connection's 7th request, never its 2nd, and so never dropped).
        await #expect(throws: TransportError.self) { _ = try await push(client) }
        #expect(try f.records().count == 7, "the dropped request is in the record")
        // A new connection counts from its first request.
        let second = try await f.client(try f.identity(.universal))
        #expect(try await push(second).status == 200)
        await #expect(throws: TransportError.self) { _ = try await push(second) }
    }
}
