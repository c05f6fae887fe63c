// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import CTestFixtures
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 11's identity model reads every key bag of a .p12 (PKCS12_parse kept one), so the
    /// number of keys is bounded like the number of certificates.
    @Suite("Hardening: private keys per .p12")
    struct KeyCountBoundTests {
        @Test("A .p12 with more private keys than PKCS12.maximumKeys is refused; at the limit it is read")
        func manyKeys() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            let pem = try await Binaries.openssl(["x509", "-inform", "DER", "-in", "push.cer", "-out", "push.pem"], directory: w.dir.path)
            #expect(pem.status == 0, "\(pem)")
            let (cert, key) = (w.dir.file("push.pem"), w.dir.file("push.key"))
            let limit = PKCS12.maximumKeys
            #expect(apns_test_write_p12_many_keys(cert, key, "keys-pass", Int32(limit + 1), w.dir.file("over.p12")) == 1)
            #expect(apns_test_write_p12_many_keys(cert, key, "keys-pass", Int32(limit), w.dir.file("limit.p12")) == 1)
            let environment = ["P": "keys-pass"]
            let over = try await w.run(["inspect", "over.p12", "--passin", "env:P"], environment: environment)
            #expect(over.status == 3 && over.stdout.contains("holds 1 certificates and \(limit + 1) private keys"), "\(over)")
            let atLimit = try await w.run(["inspect", "--format", "json", "limit.p12", "--passin", "env:P"], environment: environment)
            #expect(atLimit.stdout.contains("\"kind\" : \"pkcs12\""), "\(atLimit)")
        }
    }
}
