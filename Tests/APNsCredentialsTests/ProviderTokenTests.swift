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
