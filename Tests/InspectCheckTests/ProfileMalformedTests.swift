// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation
import Testing

/// Damaged and hostile profiles: exit 3 with one sentence naming the file (or exit 1 when the
/// profile reads but its signature is broken), never a crash.
@Suite struct ProfileMalformedTests {
    /// Signs `plist` text as a profile named `name` with the independent signer.
    func signed(_ name: String, plist: String) async throws -> String {
        let f = try await ProfileFixtures.shared.get()
        let source = f.path(name + ".src")
        try write(Array(plist.utf8), source)
        try await f.sign(source, to: f.path(name))
        return f.path(name)
    }

    static let header = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n"

    func expectUnreadable(_ path: String, _ fragment: String) async throws {
        let result = try await run(["apnskit", "inspect", path])
        #expect(result.status == 3, "\(result.out) \(result.err)")
        #expect(result.out.contains("error: \(path)"), "\(result.out)")
        #expect(result.out.contains(fragment), "\(result.out)")
        let check = try await run(["apnskit", "check", path])
        #expect(check.status == 3)
        #expect(check.out.contains("UNREADABLE"))
    }

    @Test func truncated() async throws {
        let f = try await ProfileFixtures.shared.get()
        let whole = try Array(Data(contentsOf: URL(fileURLWithPath: f.path("production.mobileprovision"))))
        try write(Array(whole.prefix(whole.count / 2)), f.path("truncated.mobileprovision"))
        try await expectUnreadable(f.path("truncated.mobileprovision"), "is truncated")
    }

    @Test func notAPropertyList() async throws {
        try await expectUnreadable(try await signed("text.mobileprovision", plist: "hello, not a plist\n"), "does not hold an XML property list")
    }

    @Test func binaryPropertyList() async throws {
        let f = try await ProfileFixtures.shared.get()
        let made = try await run(["python3", "-c", "import plistlib,sys; open(sys.argv[1],'wb').write(plistlib.dumps({'Name':'x'}, fmt=plistlib.FMT_BINARY))",
                            f.path("binary.src")])
        #expect(made.status == 0, "\(made.err)")
        try await f.sign(f.path("binary.src"), to: f.path("binary.mobileprovision"))
        try await expectUnreadable(f.path("binary.mobileprovision"), "does not hold an XML property list")
    }

    @Test func nestedTooDeep() async throws {
        let deep = Self.header + String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000) + "</plist>\n"
        try await expectUnreadable(try await signed("deep.mobileprovision", plist: deep), "nested 33 levels deep, more than the 32")
    }

    /// Closing tags hidden in comments, CDATA or after a tab must not hide the nesting from
    /// the bound (the parser would still recurse 10,000 levels deep and crash).
    @Test(arguments: ["<!-- </array> -->", "<![CDATA[</array>]]>"])
    func hiddenClosersDoNotHideTheNesting(decoy: String) async throws {
        let open = String(repeating: "<array>\(decoy)", count: 10_000)
        let deep = Self.header + open + String(repeating: "</array>", count: 10_000) + "</plist>\n"
        try await expectUnreadable(try await signed("decoy-\(decoy.count).mobileprovision", plist: deep), "nested 33 levels deep")
        let tabbed = Self.header + String(repeating: "<array\t>", count: 10_000) + String(repeating: "</array>", count: 10_000) + "</plist>\n"
        // Each argument case writes its own file: the two run in parallel in one fixture folder.
        try await expectUnreadable(try await signed("tabbed-\(decoy.count).mobileprovision", plist: tabbed), "nested 33 levels deep")
    }

    @Test func entityDeclarationsAreRefused() async throws {
        let plist = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [<!ENTITY a \"<array><array>\">]>\n<plist version=\"1.0\"><dict/></plist>\n"
        try await expectUnreadable(try await signed("entity.mobileprovision", plist: plist), "declares XML entities")
    }

    @Test func brokenXML() async throws {
        try await expectUnreadable(try await signed("broken.mobileprovision", plist: Self.header + "<dict><key>Name</key><string>x</dict>"),
                             "does not parse")
    }

    @Test func missingAndWrongTypedKeys() async throws {
        let noUUID = Self.header + """
        <dict><key>Name</key><string>x</string><key>Entitlements</key><dict><key>application-identifier</key><string>T.b</string></dict>
        <key>CreationDate</key><date>2026-01-01T00:00:00Z</date><key>ExpirationDate</key><date>2027-01-01T00:00:00Z</date></dict></plist>
        """
        try await expectUnreadable(try await signed("no-uuid.mobileprovision", plist: noUUID), "the profile has no UUID")
        let stringEntitlements = Self.header + """
        <dict><key>Name</key><string>x</string><key>UUID</key><string>u</string><key>Entitlements</key><string>oops</string>
        <key>CreationDate</key><date>2026-01-01T00:00:00Z</date><key>ExpirationDate</key><date>2027-01-01T00:00:00Z</date></dict></plist>
        """
        try await expectUnreadable(try await signed("bad-type.mobileprovision", plist: stringEntitlements), "the profile's Entitlements is not a dictionary")
        let numberEnvironment = Self.header + """
        <dict><key>Name</key><string>x</string><key>UUID</key><string>u</string>
        <key>Entitlements</key><dict><key>application-identifier</key><string>T.b</string><key>aps-environment</key><integer>1</integer></dict>
        <key>CreationDate</key><date>2026-01-01T00:00:00Z</date><key>ExpirationDate</key><date>2027-01-01T00:00:00Z</date></dict></plist>
        """
        try await expectUnreadable(try await signed("number-aps.mobileprovision", plist: numberEnvironment), "the profile's Entitlements.aps-environment is not a string")
        try await expectUnreadable(try await signed("array.mobileprovision", plist: Self.header + "<array/></plist>"), "not a dictionary")
    }

    /// Issue 22: `99999999-12-31` was shown as "5828963-12-20" and a negative year as 0001.
    @Test(arguments: ["99999999-12-31T00:00:00Z", "-2026-01-01T00:00:00Z", "1969-12-31T00:00:00Z"])
    func datesOutOfRange(_ date: String) async throws {
        let plist = Self.header + """
        <dict><key>Name</key><string>x</string><key>UUID</key><string>u</string>
        <key>Entitlements</key><dict><key>application-identifier</key><string>T.b</string></dict>
        <key>CreationDate</key><date>2026-01-01T00:00:00Z</date><key>ExpirationDate</key><date>\(date)</date></dict></plist>
        """
        let name = "date-\(date.hasPrefix("-") ? "minus" : "")\(date.filter(\.isNumber).prefix(8)).mobileprovision"
        try await expectUnreadable(try await signed(name, plist: plist), "between the years 2000 and 9999; the profile is damaged")
    }

    @Test func garbageAndOversized() async throws {
        let f = try await ProfileFixtures.shared.get()
        try write(Array("not a profile\n".utf8), f.path("garbage.mobileprovision"))
        try await expectUnreadable(f.path("garbage.mobileprovision"), "is not a provisioning profile (not DER; a profile is a DER CMS signed message)")
        try write([0x30, 0x82, 0x01, 0x00] + [UInt8](repeating: 0x41, count: 256), f.path("der-garbage.mobileprovision"))
        try await expectUnreadable(f.path("der-garbage.mobileprovision"), "is not a readable CMS signed message")
        let big = f.path("big.mobileprovision")
        _ = FileManager.default.createFile(atPath: big, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: UInt64(ProvisioningProfileFile.maximumSize + 1))
        try handle.close()
        try await expectUnreadable(big, "more than the \(ProvisioningProfileFile.maximumSize)")
    }

    /// A `.p7b` certificate bundle is SignedData too, but carries no property list.
    @Test func certificateBundleIsNotAProfile() async throws {
        let f = try await ProfileFixtures.shared.get()
        let made = try await run(["openssl", "crl2pkcs7", "-nocrl", "-certfile", f.bundle, "-outform", "DER", "-out", f.path("bundle.p7b")])
        #expect(made.status == 0, "\(made.err)")
        try await expectUnreadable(f.path("bundle.p7b"), "without embedded content (a .p7b certificate bundle or a detached signature)")
    }

    /// A byte of the property list changed after signing: still shown, but the signature fails.
    @Test func tamperedContentFailsTheSignature() async throws {
        let f = try await ProfileFixtures.shared.get()
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: f.path("production.mobileprovision"))))
        let marker = Array("Independent Team".utf8)
        let at = try #require((0...(bytes.count - marker.count)).first { Array(bytes[$0..<($0 + marker.count)]) == marker })
        bytes[at] = UInt8(ascii: "X")
        try write(bytes, f.path("tampered.mobileprovision"))
        let result = try await run(["apnskit", "inspect", f.path("tampered.mobileprovision")])
        #expect(result.status == 1, "\(result.out)")
        #expect(result.out.contains("Xndependent Team"))
        #expect(result.out.contains("the profile's signature does not verify"), "\(result.out)")
        let check = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), f.path("tampered.mobileprovision")])
        #expect(check.status == 1)
        #expect(check.out.contains("FAIL"))
    }
}
