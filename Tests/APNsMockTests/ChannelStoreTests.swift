// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsCredentials
import OpenSSLCore
import Testing

/// The channel store's bounds as a library (issue 22); the CLI tests cover the answers.
@Suite("Mock: channel store bounds")
struct ChannelStoreTests {
    @Test("The default cap over all bundle ids: 100,000 channels, then nil for any bundle; a bundle emptied by deletes is forgotten")
    func defaultTotalCap() {
        // 1,000 apps of 100 channels: the per-bundle limit alone would take them all.
        let store = ChannelStore(limit: 100)
        #expect(store.totalLimit == 100_000)
        for app in 0..<1000 {
            for _ in 0..<100 { _ = store.create(bundle: "com.example.app\(app)", policy: 1) }
        }
        #expect(store.count == 100_000 && store.bundleCount == 1000)
        #expect(store.create(bundle: "com.example.other", policy: 1) == nil)
        let channels = store.list(bundle: "com.example.app0")
        for channel in channels { #expect(store.delete(bundle: "com.example.app0", channel: channel)) }
        #expect(store.count == 99_900 && store.bundleCount == 999)
        #expect(store.create(bundle: "com.example.other", policy: 0) != nil)
    }

    @Test("Bundle ids by Apple's rule: letters, digits, hyphens, periods, no empty label, at most 155")
    func bundleIdentifierRule() {
        for valid in ["com.example.app", "com.Example-2.App", "a", String(repeating: "a", count: 155)] {
            #expect(BundleIdentifier.isValid(valid), "\(valid)")
        }
        for invalid in ["", "com..app", ".com.app", "com.app.", "com.ex%2Fample", "com.ex/ample", "com.é.app", "com app", "com_app",
                        String(repeating: "a", count: 156)] {
            #expect(!BundleIdentifier.isValid(invalid), "\(invalid)")
        }
    }
}
