import APNsCredentials
import APNsTransport
import Foundation
import Testing

/// The ES256 provider token, checked by `openssl dgst -verify` (after turning r||s back into DER).
@Suite("Provider token (ES256 JWT)")
struct ProviderTokenTests {
    let fixtures = Fixtures.shared

    static func base64urlDecode(_ text: Substring) -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Array(Data(base64Encoded: base64) ?? Data())
    }

    /// DER SEQUENCE { INTEGER r, INTEGER s } from 32-byte big-endian halves.
    static func der(_ raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    @Test func tokenHasAppleShapeAndVerifiesWithOpenSSL() async throws {
        let key = try IdentityLoader.privateKey(fixtures.authKey, passphrases: .none)
        let token = try ProviderToken.make(key: key, keyID: "ABC123DEFG", teamID: "TEAMID1234", issuedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        #expect(String(decoding: Self.base64urlDecode(parts[0]), as: UTF8.self) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(String(decoding: Self.base64urlDecode(parts[1]), as: UTF8.self) == #"{"iss":"TEAMID1234","iat":1700000000}"#)
        let signature = Self.base64urlDecode(parts[2])
        #expect(signature.count == 64)
        let dir = fixtures.dir + "/jwt-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data((parts[0] + "." + parts[1]).utf8).write(to: URL(fileURLWithPath: dir + "/input"))
        try Data(Self.der(signature)).write(to: URL(fileURLWithPath: dir + "/sig.der"))
        let result = try await ChildProcess.run(tool("openssl"), ["dgst", "-sha256", "-verify", fixtures.authKeyPublic,
                                                                  "-signature", dir + "/sig.der", dir + "/input"])
        #expect(result.status == 0 && result.output.contains("Verified OK"), "\(result.output)")
    }

    @Test func rsaKeyIsRefused() throws {
        let key = try IdentityLoader.privateKey(fixtures.clientKey, passphrases: .none)
        #expect(throws: TransportError.self) { try ProviderToken.make(key: key, keyID: "K", teamID: "T") }
    }
}
