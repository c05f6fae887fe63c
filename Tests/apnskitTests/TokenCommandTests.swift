// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `apnskit token` and `token inspect`, checked against PyJWT (a JWT library nobody here wrote):
/// it verifies the tokens we make, and makes the tokens we inspect.
@Suite("CLI: token, token inspect")
struct TokenCommandTests {
    /// Runs PyJWT in `dir`: `code` sees `jwt`, `time`, `key` (the .p8's text) and prints.
    func python(_ f: CLIFixture, _ code: String) async throws -> ProcessResult {
        let prelude = "import jwt, time, sys\nkey = open('AuthKey_ABC123DEFG.p8').read()\n"
        return try await ProcessRunner.run("python3", ["-c", prelude + code], directory: f.dir.path)
    }

    func keyFixture() async throws -> CLIFixture {
        let f = try await CLIFixture()
        #expect(try await f.run("mock", "ca", "-o", "mockca").status == 0)
        #expect(try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--key-id", "ABC123DEFG", "-o", ".").status == 0)
        #expect(try await f.run("mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--key-id", "OTHER00001", "-o", ".").status == 0)
        return f
    }

    @Test("token prints a JWT that PyJWT verifies with the key's public half: ES256, kid, iss, a fresh iat")
    func create() async throws {
        let f = try await keyFixture()
        let made = try await f.run("token", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456")
        #expect(made.status == 0, "\(made)")
        let token = try #require(made.stdout.split(separator: "\n").last.map(String.init))
        let checked = try await python(f, """
            from cryptography.hazmat.primitives.serialization import load_pem_private_key
            public = load_pem_private_key(key.encode(), None).public_key()
            claims = jwt.decode(sys.argv[1] if len(sys.argv) > 1 else '\(token)', public, algorithms=['ES256'])
            header = jwt.get_unverified_header('\(token)')
            print(header['alg'], header['kid'], claims['iss'], abs(int(time.time()) - claims['iat']) < 300)
            """)
        #expect(checked.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ES256 ABC123DEFG TEAM123456 True", "\(checked)")
        let renamed = try await f.run("token", "--auth-key", "mockca/README.txt", "--team-id", "TEAM123456")
        #expect(renamed.status == 2 && renamed.stderr.contains("pass --key-id"), "\(renamed)")
    }

    @Test("token inspect: a PyJWT token passes with its key; expired, foreign-signed, other kid, DER signature and garbage each get their sentence and exit 1")
    func inspect() async throws {
        let f = try await keyFixture()
        func pyToken(_ expression: String) async throws -> String {
            let made = try await python(f, "print(\(expression))")
            #expect(made.status == 0, "\(made)")
            return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let good = try await pyToken("jwt.encode({'iss': 'TEAM123456', 'iat': int(time.time())}, key, algorithm='ES256', headers={'kid': 'ABC123DEFG'})")
        let passed = try await f.run("token", "inspect", good, "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456")
        #expect(passed.status == 0, "\(passed)")
        #expect(passed.stdout.contains("signed by the given key"), "\(passed)")

        let json = try await f.run("token", "inspect", "bearer " + good, "--format", "json")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["valid"] as? Bool == true && object?["keyId"] as? String == "ABC123DEFG" && object?["teamId"] as? String == "TEAM123456", "\(json)")

        let expired = try await pyToken("jwt.encode({'iss': 'TEAM123456', 'iat': int(time.time()) - 7200}, key, algorithm='ES256', headers={'kid': 'ABC123DEFG'})")
        let old = try await f.run("token", "inspect", expired)
        #expect(old.status == 1 && old.stdout.contains("ExpiredProviderToken"), "\(old)")

        let foreign = try await f.run("token", "inspect", good, "--auth-key", "AuthKey_OTHER00001.p8")
        #expect(foreign.status == 1 && foreign.stdout.contains("Does not verify with the given key"), "\(foreign)")
        #expect(foreign.stdout.contains("the key file is AuthKey_OTHER00001.p8"), "\(foreign)")

        let team = try await f.run("token", "inspect", good, "--team-id", "OTHER12345")
        #expect(team.status == 1 && team.stdout.contains("InvalidProviderToken"), "\(team)")

        // The classic mistake: OpenSSL's DER signature instead of JWS's raw r||s.
        let der = try await python(f, """
            import base64, json
            from cryptography.hazmat.primitives.serialization import load_pem_private_key
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives import hashes
            b = lambda d: base64.urlsafe_b64encode(d).rstrip(b'=').decode()
            signing = b(json.dumps({'alg': 'ES256', 'kid': 'ABC123DEFG'}).encode()) + '.' + b(json.dumps({'iss': 'TEAM123456', 'iat': int(time.time())}).encode())
            print(signing + '.' + b(load_pem_private_key(key.encode(), None).sign(signing.encode(), ec.ECDSA(hashes.SHA256()))))
            """)
        let derToken = der.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let derInspect = try await f.run("token", "inspect", derToken)
        #expect(derInspect.status == 1 && derInspect.stdout.contains("DER-encoded"), "\(derInspect)")

        let garbage = try await f.run("token", "inspect", "not-a-jwt")
        #expect(garbage.status == 1 && garbage.stdout.contains("three base64url parts"), "\(garbage)")
        let missingKey = try await f.run("token", "inspect", good, "--auth-key", "nowhere.p8")
        #expect(missingKey.status == 3, "\(missingKey)")
    }

    /// Before: an iat of -2^63 fits an Int, and "now - iat" overflowed (a trap).
    @Test("token inspect: an iat at or past Int's ends is a problem with its sentence, never a crash", arguments: [
        "-9223372036854775808", "9223372036854775807", "1e19", "-1e19", "18446744073709551615", "true",
    ])
    func extremeIssuedAt(_ iat: String) async throws {
        let f = try await CLIFixture()
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let token = part(#"{"alg":"ES256","kid":"ABC123DEFG"}"#) + "." + part(#"{"iss":"TEAM123456","iat":\#(iat)}"#) + ".AAAA"
        let result = try await f.run("token", "inspect", token)
        #expect(result.status == 1 && result.stdout.contains("PROBLEM iat") && !result.stderr.contains("Fatal error"), "\(iat): \(result)")
    }
}
