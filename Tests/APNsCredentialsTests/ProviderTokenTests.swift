// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation
import Testing
import TestSupport

@Suite("Provider tokens (JWT ES256)")
struct ProviderTokenTests {
    @Test("A token verifies with its key, fails with another, expires after an hour")
    func roundTrip() async throws {
        let key = try PrivateKey.generate(.ec256)
        let signer = try APNsTokenSigner(key: key, keyID: "ABC123DEFG", teamID: "TEAM123456")
        let now = Date()
        let token = try signer.token(issuedAt: now)
        let keys = ["ABC123DEFG": try PublicKey(of: key)]
        #expect(try ProviderTokenVerifier.verify(token, keys: keys, now: now).get() == ProviderTokenClaims(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: Int(now.timeIntervalSince1970)))
        let otherKeys = ["ABC123DEFG": try PublicKey(of: try PrivateKey.generate(.ec256))]
        #expect(ProviderTokenVerifier.verify(token, keys: otherKeys, now: now) == .failure(.badSignature))
        #expect(ProviderTokenVerifier.verify(token, keys: [:], now: now) == .failure(.unknownKey("ABC123DEFG")))
        #expect(ProviderTokenVerifier.verify(token, keys: keys, now: now.addingTimeInterval(3601)) == .failure(.expired))
        #expect(ProviderTokenVerifier.verify("a.b", keys: keys, now: now) == .failure(.malformed))
        var tampered = Array(token.utf8)
        tampered[tampered.count - 5] = tampered[tampered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(ProviderTokenVerifier.verify(String(decoding: tampered, as: UTF8.self), keys: keys, now: now) != .success(ProviderTokenClaims(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: Int(now.timeIntervalSince1970))))
    }

    @Test("The JWS signature is raw r||s that openssl verifies after conversion to DER")
    func opensslVerifies() async throws {
        let dir = try TemporaryDirectory()
        let key = try PrivateKey.generate(.ec256)
        let token = try APNsTokenSigner(key: key, keyID: "ABC123DEFG", teamID: "TEAM123456").token()
        let parts = token.split(separator: ".")
        let raw = try #require(Base64URL.decode(parts[2]))
        #expect(raw.count == 64)
        // DER-encode r||s by hand (INTEGERs with a leading 0 when the high bit is set).
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        let der = [0x30, UInt8(body.count)] + body
        let sig = try dir.write("sig.der", der)
        let msg = try dir.write("msg", Array("\(parts[0]).\(parts[1])".utf8))
        let pub = try dir.write("pub.pem", try PublicKey(of: key).pem())
        let result = try await Binaries.openssl(["dgst", "-sha256", "-verify", pub, "-signature", sig, msg])
        #expect(result.status == 0, "\(result)")
        let header = String(decoding: try #require(Base64URL.decode(parts[0])), as: UTF8.self)
        #expect(header == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
    }

    @Test("Refuses RSA keys, bad ids; reads the key id from AuthKey_<KEYID>.p8")
    func validation() async throws {
        #expect(throws: APNsCredentialError.self) { try APNsTokenSigner(key: try PrivateKey.generate(.rsa2048), keyID: "ABC123DEFG", teamID: "TEAM123456") }
        #expect(throws: APNsCredentialError.self) { try APNsTokenSigner(key: try PrivateKey.generate(.ec256), keyID: "short", teamID: "TEAM123456") }
        #expect(APNsTokenSigner.keyIDFromFileName("/x/AuthKey_ABC123DEFG.p8") == "ABC123DEFG")
        #expect(APNsTokenSigner.keyIDFromFileName("key.p8") == nil)
    }
}

/// Issue 30: the token shapes APNs serves though Apple's documentation does not show them are
/// accepted with a mark; what Apple refuses still is (docs/apns-protocol.md §1). The tokens are
/// signed here from hand-written JSON, as other clients write it; PyJWT-made ones are checked by
/// the conformance suite.
@Suite("Provider token shapes in the wild")
struct ProviderTokenShapeTests {
    let key: PrivateKey
    static let now = Date(timeIntervalSince1970: 1_764_300_000)

    init() throws { key = try PrivateKey.generate(.ec256) }

    func token(header: String = #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claims: String) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try ES256.sign(Array(input.utf8), with: key))
    }

    func verify(_ token: String) throws -> Result<ProviderTokenClaims, ProviderTokenVerifier.Failure> {
        ProviderTokenVerifier.verify(token, keys: ["ABC123DEFG": try PublicKey(of: key)], now: Self.now)
    }

    @Test("iat as a digit string, with a fraction, extra claims and header fields: accepted, each marked", arguments: [
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"TEAM123456","iat":"1764300000"}"#, [ProviderTokenQuirk.iatString]),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"TEAM123456","iat":1764299999.75}"#, [.iatFraction]),
        (#"{"alg":"ES256","kid":"ABC123DEFG","typ":"JWT"}"#, #"{"iss":"TEAM123456","iat":"1764300000","kid":"ABC123DEFG"}"#,
         [.iatString, .extraClaims, .extraHeader]),
        (#"{"alg":"ES256","kid":"ABC123DEFG"}"#, #"{"iss":"TEAM123456","iat":1764300000}"#, []),
    ])
    func accepted(header: String, claims: String, quirks: [ProviderTokenQuirk]) throws {
        let claimsRead = try verify(try token(header: header, claims: claims)).get()
        #expect(claimsRead.quirks == quirks)
        #expect(claimsRead.issuedAt == 1_764_299_999 || claimsRead.issuedAt == 1_764_300_000)
        let inspection = ProviderTokenInspection(try token(header: header, claims: claims), key: try PublicKey(of: key), now: Self.now)
        #expect(inspection.isValid, "\(inspection.checks)")
        #expect(inspection.checks.filter { $0.check.hasPrefix("jwt-") }.map(\.check) == quirks.map(\.rawValue))
    }

    @Test("Still refused: wrong alg, no iss, iat neither a number nor digits, over an hour old, over 5 minutes ahead")
    func refused() throws {
        #expect(try verify(try token(header: #"{"alg":"HS256","kid":"ABC123DEFG"}"#, claims: #"{"iss":"TEAM123456","iat":1764300000}"#)) == .failure(.malformed))
        #expect(try verify(try token(claims: #"{"iat":1764300000}"#)) == .failure(.malformed))
        for iat in [#""soon""#, #""1.5e9""#, "true", #""""#, #""1764300000000""#, "null", "1e300"] {
            #expect(try verify(try token(claims: #"{"iss":"TEAM123456","iat":\#(iat)}"#)) == .failure(.malformed), "iat \(iat)")
        }
        #expect(try verify(try token(claims: #"{"iss":"TEAM123456","iat":"1764296399"}"#)) == .failure(.expired))
        #expect(try verify(try token(claims: #"{"iss":"TEAM123456","iat":"1764300301"}"#)) == .failure(.issuedInFuture))
        #expect(try verify(try token(claims: #"{"iss":"TEAM123456","iat":"1764300300"}"#)).get().issuedAt == 1_764_300_300)
    }
}
