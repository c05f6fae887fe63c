// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsSender
import APNsCredentials
import OpenSSLCore
import Foundation
import Testing

/// `GatewayTrust.evaluate` on Debian's copy of the root: trusted now, expired after 2038.
@Suite struct GatewayTrustTests {
    @Test func expiredCopyOfTheRoot() throws {
        let root = try IdentityLoader.certificate("/etc/ssl/certs/USERTrust_RSA_Certification_Authority.pem").0
        let now = GatewayTrust.evaluate([root], source: "debian", now: Date())
        #expect(now.accepted && now.verdicts.map(\.status) == [.trusted, .trusted])
        let later = GatewayTrust.evaluate([root], source: "debian", environments: [.production], now: root.notAfter.addingTimeInterval(86_400))
        #expect(!later.accepted && later.verdicts.map(\.status) == [.expired])
        #expect(GatewayTrust.evaluate([], source: "empty").verdicts.map(\.status) == [.missing, .missing])
    }
}
