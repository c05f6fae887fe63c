// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import Testing

/// Type detection from the common name prefix, including the kinds `mock issue` exposes
/// only from Swift (website, WatchKit) and the Mac variants of Apple's names.
@Suite struct CertificateTypeTests {
    @Test(arguments: [
        ("Apple Development IOS Push Services: com.x", APNsCertificateType.development, "com.x"),
        ("Apple Production IOS Push Services: com.x", .production, "com.x"),
        ("Apple Development Mac Push Services: com.x", .development, "com.x"),
        ("Apple Production Mac Push Services: com.x", .production, "com.x"),
        ("Apple Push Services: com.x", .universal, "com.x"),
        ("VoIP Services: com.x", .voip, "com.x"),
        ("WatchKit Services: com.x", .watchKit, "com.x"),
        ("Website Push ID: web.com.x", .website, "web.com.x"),
        ("Pass Type ID: pass.com.x", .passTypeID, "pass.com.x"),
    ])
    func prefixes(commonName: String, type: APNsCertificateType, identifier: String) {
        let classified = APNsCertificateType.classify(commonName: commonName)
        #expect(classified.type == type)
        #expect(classified.identifier == identifier)
    }

    @Test func otherNames() {
        #expect(APNsCertificateType.classify(commonName: "api.push.apple.com").type == .other)
        #expect(APNsCertificateType.classify(commonName: nil).type == .other)
        #expect(APNsCertificateType.classify(commonName: "apple push services: lower case").type == .other)
    }

    @Test(arguments: [APNsCertificateType.website, .watchKit])
    func issuedWebsiteAndWatchKitReadBack(type: APNsCertificateType) async throws {
        let ca = try Shared.ca.get()
        let info = try ca.issue(forKey: try Shared.key.get(), PortalRequest(bundleID: "com.example.w", type: type)).apnsInfo()
        #expect(info.type == type)
        #expect(info.isAPNs)
        #expect(info.environments == PortalRequest(bundleID: "b", type: type).environments)
        #expect(info.topics == PortalRequest(bundleID: "com.example.w", type: type).topics)
    }
}
