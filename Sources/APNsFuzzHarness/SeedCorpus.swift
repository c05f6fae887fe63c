// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsProtocol
internal import COpenSSL
import Foundation

/// Valid inputs for every target, made in-process from fresh throwaway keys (never a real
/// person's), once per process. The keys differ between runs; the mutations applied to them by
/// the deterministic pass do not, and a failing input is printed in full for replay.
enum SeedCorpus {
    static func seeds(for target: FuzzTarget) throws -> [[UInt8]] {
        switch target {
        case .certificate, .privateKey, .csr, .pkcs12, .credentialFile:
            return try credentialSeeds(for: target, try CredentialFixtures.shared.get())
        case .topics:
            let fixtures = try CredentialFixtures.shared.get()
            return [
                APNsTopics.encode([APNsTopic(topic: "com.example.app", kinds: ["app"]), APNsTopic(topic: "com.example.app.voip", kinds: ["voip"]),
                                   APNsTopic(topic: "com.example.app.complication", kinds: ["complication"])]),
                APNsTopics.encode([APNsTopic(topic: "com.example.ü", kinds: ["app", "voip"])]),
                APNsTopics.encode([APNsTopic(topic: String(repeating: "a", count: 300), kinds: [])]),
                [0x30, 0x00],
            ] + (fixtures.rsaCertificate.extensionValue(oid: APNsTopics.oid).map { [$0] } ?? [])
        case .providerToken:
            let fixture = try TokenFixture.shared.get()
            let other = try APNsTokenSigner(key: PrivateKey.generate(.ec256), keyID: "OTHERKEY12", teamID: TokenFixture.teamID)
            return [
                try fixture.signer.token(issuedAt: TokenFixture.now.addingTimeInterval(-60)),
                try fixture.signer.token(issuedAt: TokenFixture.now.addingTimeInterval(-7200)),
                try other.token(issuedAt: TokenFixture.now),
            ].map { Array($0.utf8) }
        case .deviceToken:
            return deviceTokens.map { Array($0.utf8) }
        case .json:
            return payloads.map { Array($0.utf8) }
        case .batchLine:
            return [deviceTokens[0], "\(deviceTokens[1]) \(payloads[0])", "# a comment", "   ", "\t\(deviceTokens[2])\t{\"aps\":{}}  ",
                    "\(deviceTokens[0]) not json"].map { Array($0.utf8) }
                + extremeNumberPayloads.map { Array("\(deviceTokens[0]) \($0)".utf8) }
        case .request:
            return requests.map { Array($0.utf8) }
        case .legacyFrames:
            return legacyStreams
        case .provisioningProfile:
            return try ProfileHarness.seeds()
        case .legacyReplies:
            let tuples = (0..<3).flatMap { FeedbackTuple(timestamp: 1_700_000_000 + UInt32($0), token: Array(repeating: UInt8($0), count: 32)).encoded }
            return [LegacyErrorResponse(status: .invalidToken, identifier: 0x0102_0304).encoded, tuples, tuples + [0, 0, 0]]
        case .http2:
            return HTTP2Harness.seeds
        }
    }

    private static func credentialSeeds(for target: FuzzTarget, _ f: CredentialFixtures) throws -> [[UInt8]] {
        // Mode bytes for CredentialHarnesses.unframe: 0 = as is, (label index << 1) | 1 = PEM-wrapped.
        func wrapped(_ label: String, _ der: [UInt8]) -> [UInt8] {
            [UInt8(CredentialHarnesses.labels.firstIndex(of: label)! << 1 | 1)] + der
        }
        let certificates = [f.rsaCertificate, f.ecCertificate, f.ca.intermediate]
        switch target {
        case .certificate:
            return try certificates.flatMap { [[0] + $0.der, wrapped("CERTIFICATE", $0.der), [0] + (try $0.pem())] }
        case .privateKey:
            return try [f.rsaKey, f.ecKey].flatMap { key -> [[UInt8]] in
                let traditional = try key.traditionalPEM()
                let encrypted = try key.pkcs8PEM(encryptedWith: Passphrase(CredentialHarnesses.passphrase))
                return [[0] + (try key.pkcs8PEM()), [0] + encrypted, [0] + traditional, [0] + (try legacyEncryptedPEM(key)),
                        [0] + (try key.pkcs8DER()), [0] + PEMText.unwrap(encrypted),
                        wrapped("PRIVATE KEY", try key.pkcs8DER()), wrapped("ENCRYPTED PRIVATE KEY", PEMText.unwrap(encrypted)),
                        wrapped(key.curveName == nil ? "RSA PRIVATE KEY" : "EC PRIVATE KEY", PEMText.unwrap(traditional))]
            }
        case .csr:
            return try [f.ecRequest, f.rsaRequest].flatMap { [[0] + (try $0.pem()), [0] + $0.der, wrapped("CERTIFICATE REQUEST", $0.der)] }
        case .pkcs12:
            return f.pkcs12Files
        default:
            let combined = try f.rsaCertificate.pem() + f.rsaKey.pkcs8PEM() + f.ca.intermediate.pem()
            return [combined, try f.ecKey.pkcs8PEM(encryptedWith: Passphrase(CredentialHarnesses.passphrase)), try f.ecRequest.pem(),
                    f.rsaCertificate.der, try f.ecKey.pkcs8DER(), f.ecRequest.der,
                    PEMText.wrap(try f.ecKey.publicKeyDER(), label: "PUBLIC KEY") + (try f.ecCertificate.pem())] + f.pkcs12Files
                // Base64 as CI secret variables hold credentials: one line, and 76-column lines.
                + [Array(Data(f.rsaCertificate.der).base64EncodedString().utf8), Array(Data(combined).base64EncodedString().utf8)]
                + f.pkcs12Files.prefix(1).map { Array(Data($0).base64EncodedString(options: .lineLength76Characters).utf8) }
        }
    }

    /// `BEGIN RSA/EC PRIVATE KEY` with `Proc-Type: 4,ENCRYPTED` (DES-EDE3-CBC), the form old
    /// guides produce with `openssl rsa -des3`; apnskit itself never writes it.
    private static func legacyEncryptedPEM(_ key: PrivateKey) throws -> [UInt8] {
        let bio = try MemoryBIO()
        var secret = Array(CredentialHarnesses.passphrase.utf8)
        let ok = secret.withUnsafeMutableBufferPointer { buffer in
            bio.withUnsafePointer { bio in
                key.withUnsafePointer { PEM_write_bio_PrivateKey_traditional(bio, $0, EVP_des_ede3_cbc(), buffer.baseAddress, Int32(buffer.count), nil, nil) }
            }
        }
        guard ok == 1 else { throw HarnessViolation("OpenSSL could not write a Proc-Type encrypted key fixture") }
        return bio.bytes
    }

    static let deviceTokens = [
        "c9d4c07cfbbc26d6ef87a44d53e1983fba6e3a1b0b5fc2d5c3c7c2a8e12a3d45",
        "c9d4c07c fbbc26d6 ef87a44d 53e1983f ba6e3a1b 0b5fc2d5 c3c7c2a8 e12a3d45",
        "<C9D4C07C FBBC26D6 EF87A44D 53E1983F BA6E3A1B 0B5FC2D5 C3C7C2A8 E12A3D45>",
        String(repeating: "ab", count: 100),
        "{length = 32, bytes = 0xc9d4c07c fbbc26d6 ef87a44d 53e1983f ... c3c7c2a8 e12a3d45 }",
    ]

    static let payloads = [
        #"{"aps":{"alert":"Hello","badge":1,"sound":"default"}}"#,
        #"{"aps":{"alert":{"title":"T\u00e9st \"q\"","body":"b","loc-args":["a",1,-2.5e10,true,false,null]},"content-available":1},"x":{}}"#,
        #" { "a" : [ [ [ { "b" : [ ] } ] ] ] } "#,
        #"[1,2,"three"]"#,
        "0",
    ] + extremeNumberPayloads

    /// Numbers past every integer type and at the edges of Double, where a converting
    /// `Int(...)` traps: Live Activity dates (LiveActivityLint), schema Dates (SchemaLint),
    /// badges and relevance scores. `-0`, `1e-400` (zero after rounding) and `1e400` (infinity
    /// as Double parses it) are valid JSON too.
    static let extremeNumbers = ["1e19", "-1e19", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                                 "-9223372036854775809", "18446744073709551615", "18446744073709551616", "-0", "-0.0",
                                 "1e308", "-1e308", "1e400", "-1e400", "1e-400", "1E+99999", "4.9e-324", "99999999999999999999999999999"]

    static var extremeNumberPayloads: [String] {
        extremeNumbers.map { number in
            #"{"aps":{"timestamp":\#(number),"event":"update","content-state":{"at":\#(number),"n":\#(number)},"stale-date":\#(number),"dismissal-date":\#(number),"relevance-score":\#(number),"badge":\#(number)}}"#
        } + [#"{"aps":{"timestamp":NaN,"event":"end"}}"#, #"{"aps":{"timestamp":Infinity}}"#, #"{"aps":{"timestamp":-Infinity,"stale-date":nan}}"#,
             #"{"aps":{"timestamp":1e19,"event":"start","attributes-type":"A","attributes":{"since":-1e19},"content-state":{"at":1e308},"alert":"a"}}"#]
    }

    static var requests: [String] {
        let token = deviceTokens[0]
        return [
            "POST\n/3/device/\(token)\napns-topic:com.example.app\napns-push-type:alert\napns-priority:10\napns-id:123e4567-e89b-12d3-a456-426614174000\napns-expiration:0\napns-collapse-id:group-1\nauthorization:bearer a.b.c\n\n\(payloads[0])",
            "POST\n/3/device/\(token)\napns-push-type:voip\napns-priority:5\n\n\(payloads[1])",
            "GET\n/3/device/\(token)\n\n{}",
            "POST\n/3/device/\napns-topic:a\napns-topic:b\n\n{}",
        ] + extremeNumbers.flatMap { number in [
            "POST\n/3/device/\(token)\napns-topic:com.example.app.push-type.liveactivity\napns-push-type:liveactivity\napns-priority:\(number)\napns-expiration:\(number)\n\n\(extremeNumberPayloads[0])",
            "POST\n/3/device/\(token)\napns-push-type:alert\napns-expiration:\(number)\napns-priority:5\n\n{\"aps\":{\"badge\":\(number)}}",
        ] }
    }

    static var legacyStreams: [[UInt8]] {
        let token = Array(repeating: UInt8(0xAB), count: 32)
        let note = LegacyNotification(token: token, payload: Array(payloads[0].utf8), identifier: 7, expiry: 1_700_000_000, priority: 10)
        let all = LegacyFormat.allCases.flatMap { note.encoded($0) }
        return [[3] + note.encoded(.simple), [17] + note.encoded(.enhanced), [42] + note.encoded(.framed), [99] + all,
                [5] + note.encoded(.framed) + [9, 0, 0]]
    }
}
