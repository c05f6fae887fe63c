// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Credentials as CI systems hold them: standard input, `env:VAR`, base64 (recognised, or
/// insisted on with `--base64`); `--min-remaining P%`; token keys judged on shape and key id.
@Suite struct CheckInputTests {
    func check(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
        try await Binaries.apnskit(["check"] + arguments, stdin: stdin, environment: environment)
    }

    /// `base64` from coreutils, as a CI how-to has people make the secret (76-column lines
    /// unless `-w0`).
    func base64(_ path: String, wrap: Bool) async throws -> String {
        let result = try await ProcessRunner.run("base64", (wrap ? [] : ["-w0"]) + [path])
        #expect(result.status == 0, "\(result)")
        return result.stdout
    }

    @Test func standardInput() async throws {
        let f = try await Fixtures.shared.get()
        let pem = try Data(contentsOf: URL(fileURLWithPath: f.path("good/apns-universal.pem")))
        let result = try await check(["--ca-file", f.bundle, "--require-key", "-"], stdin: pem)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("OK         standard input: combined PEM: certificate + matching RSA-2048 key"), "\(result)")
        let twice = try await check(["-", "-"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("Standard input can be read once"))
        let withPassin = try await check(["--passin", "stdin", "-"])
        #expect(withPassin.status == 2)
    }

    @Test func environmentVariableWithBase64P12NoFileWritten() async throws {
        let f = try await Fixtures.shared.get()
        for wrap in [false, true] {
            let secret = try await base64(f.path("universal.p12"), wrap: wrap)
            let environment = ["APNS_P12_BASE64": secret, "APNS_P12_PASS": "secret"]
            let recognised = try await check(["--ca-file", f.bundle, "--passin", "env:APNS_P12_PASS", "env:APNS_P12_BASE64"], environment: environment)
            #expect(recognised.status == 0, "\(recognised)")
            #expect(recognised.stdout.hasPrefix("OK         environment variable APNS_P12_BASE64: PKCS#12: certificate + matching"), "\(recognised)")
            let forced = try await check(["--base64", "--ca-file", f.bundle, "--passin", "env:APNS_P12_PASS", "env:APNS_P12_BASE64"],
                                   environment: environment)
            #expect(forced.status == 0, "\(forced)")
        }
        // PEM text as it is, and base64 of a PEM (GitLab masks only single-line values).
        let pemText = try String(contentsOfFile: f.path("good/apns-universal.pem"), encoding: .utf8)
        let pem = try await check(["--ca-file", f.bundle, "env:APNS_PEM"], environment: ["APNS_PEM": pemText])
        #expect(pem.status == 0, "\(pem)")
        let pemBase64 = try await check(["--ca-file", f.bundle, "--base64", "env:APNS_PEM"],
                                  environment: ["APNS_PEM": try await base64(f.path("good/apns-universal.pem"), wrap: false)])
        #expect(pemBase64.status == 0, "\(pemBase64)")
        #expect(pemBase64.stdout.contains("combined PEM"))
        // The same input layer serves every command, e.g. inspect.
        let inspect = try await Binaries.apnskit(["inspect", "env:APNS_P12", "--passin", "env:P"],
                                           environment: ["APNS_P12": try await base64(f.path("universal.p12"), wrap: true), "P": "secret"])
        #expect(inspect.status == 0, "\(inspect)")
        #expect(inspect.stdout.contains("environment variable APNS_P12: PKCS#12: certificate + matching RSA-2048 key"), "\(inspect)")
    }

    @Test func badSecretsAreUnreadableWithASentence() async throws {
        let f = try await Fixtures.shared.get()
        let pemText = try String(contentsOfFile: f.path("universal-cert.pem"), encoding: .utf8)
        let notBase64 = try await check(["--base64", "env:APNS_CERT"], environment: ["APNS_CERT": pemText])
        #expect(notBase64.status == 3, "\(notBase64)")
        #expect(notBase64.stdout.contains("UNREADABLE environment variable APNS_CERT: environment variable APNS_CERT is not base64 text (--base64)"), "\(notBase64)")
        let unset = try await check(["env:APNSKIT_TEST_UNSET_VARIABLE"])
        #expect(unset.status == 3)
        #expect(unset.stdout.contains("environment variable APNSKIT_TEST_UNSET_VARIABLE is not set"), "\(unset)")
        let empty = try await check(["env:APNS_EMPTY"], environment: ["APNS_EMPTY": "  \n"])
        #expect(empty.status == 3)
        #expect(empty.stdout.contains("environment variable APNS_EMPTY is empty"), "\(empty)")
        // Base64 of something that is not a credential stays "not a credential", not a decoding riddle.
        let text = try await check(["env:APNS_TEXT"], environment: ["APNS_TEXT": "aGVsbG8gd29ybGQ="])
        #expect(text.status == 3)
        #expect(text.stdout.contains("is not a certificate, private key, CSR or PKCS#12 file"), "\(text)")
        // A wrong passphrase for a base64 .p12 is the usual wrong-passphrase sentence.
        let wrong = try await check(["--passin", "env:P", "env:APNS_P12"],
                              environment: ["APNS_P12": try await base64(f.path("universal.p12"), wrap: false), "P": "nope"])
        #expect(wrong.status == 3)
        #expect(wrong.stdout.lowercased().contains("passphrase"), "\(wrong)")
        // Neither the secret nor its passphrase is ever echoed.
        let secret = try await base64(f.path("universal.p12"), wrap: false)
        for run in [wrong, notBase64] {
            #expect(!(run.stdout + run.stderr).contains(secret.prefix(40)))
            #expect(!(run.stdout + run.stderr).contains("nope"))
        }
        #expect(!(notBase64.stdout + notBase64.stderr).contains(pemText.split(separator: "\n")[1]))
    }

    @Test func minRemainingIsAShareOfTheLifetime() async throws {
        let f = try await Fixtures.shared.get()
        // About 10 of 390 days left: 2.57% of the lifetime (printed rounded down).
        let tight = try await check(["--ca-file", f.bundle, "--min-days", "0", "--min-remaining", "5%", f.path("expiring-10-days.cer")])
        #expect(tight.status == 1, "\(tight)")
        #expect(tight.stdout.contains("expires in 10 days"))
        #expect(tight.stdout.contains("2.5% of its lifetime left (--min-remaining 5%)"), "\(tight)")
        let loose = try await check(["--ca-file", f.bundle, "--min-days", "0", "--min-remaining", "2%", f.path("expiring-10-days.cer")])
        #expect(loose.status == 0, "\(loose)")
        let fresh = try await check(["--ca-file", f.bundle, "--min-remaining", "90%", f.path("good/production.cer")])
        #expect(fresh.status == 0, "\(fresh)")
        for bad in ["10", "150%", "-1%", "ten%", "nan%"] {
            let usage = try await check(["--min-remaining=\(bad)", f.path("good/production.cer")])
            #expect(usage.status == 2, "\(bad): \(usage)")
            #expect(usage.stderr.contains("--min-remaining must be a percentage"))
        }
    }

    @Test func tokenKeysNeedP256AndAKeyID() async throws {
        let f = try await Fixtures.shared.get()
        let folder = try TemporaryDirectory()
        let renamed = folder.file("signing-key.p8")
        try FileManager.default.copyItem(atPath: f.path("AuthKey_ABC123DEFG.p8"), toPath: renamed)

        let named = try await check([f.path("AuthKey_ABC123DEFG.p8")])
        #expect(named.status == 0 && named.stdout.contains("key id ABC123DEFG"), "\(named)")
        let noID = try await check([renamed])
        #expect(noID.status == 1)
        #expect(noID.stdout.contains("no key id"), "\(noID)")
        let withID = try await check(["--key-id", "ABC123DEFG", renamed])
        #expect(withID.status == 0, "\(withID)")
        let mismatch = try await check(["--key-id", "ZZZ999ZZZ9", f.path("AuthKey_ABC123DEFG.p8")])
        #expect(mismatch.status == 1)
        #expect(mismatch.stdout.contains("the file name says key id ABC123DEFG but --key-id is ZZZ999ZZZ9"), "\(mismatch)")
        let rsa = try await check([f.path("AuthKey_RSAKEY0001.p8")])
        #expect(rsa.status == 1)
        #expect(rsa.stdout.contains("APNs auth keys are EC P-256"), "\(rsa)")

        // From a CI variable: the name carries nothing, so --key-id says what it is.
        let p8 = try String(contentsOfFile: f.path("AuthKey_ABC123DEFG.p8"), encoding: .utf8)
        let fromEnvironment = try await check(["--key-id", "ABC123DEFG", "env:APNS_AUTH_KEY"], environment: ["APNS_AUTH_KEY": p8])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
        #expect(fromEnvironment.stdout.contains("APNs auth key: EC P-256, key id ABC123DEFG (--key-id)"), "\(fromEnvironment)")
        let rsaKey = try String(contentsOfFile: f.path("AuthKey_RSAKEY0001.p8"), encoding: .utf8)
        let rsaFromEnvironment = try await check(["--key-id", "ABC123DEFG", "env:APNS_AUTH_KEY"], environment: ["APNS_AUTH_KEY": rsaKey])
        #expect(rsaFromEnvironment.status == 1)
        #expect(rsaFromEnvironment.stdout.contains("APNs auth keys are EC P-256"))

        let badID = try await check(["--key-id", "abc", renamed])
        #expect(badID.status == 2)
        #expect(badID.stderr.contains("--key-id must be the key's 10-character id"))
    }
}
