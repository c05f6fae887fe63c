// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Every file other tools write reads as its writer wrote it, and the CI gate never passes a
/// bad one (expired, CA:TRUE, hidden behind a BOM, a public key as a token key). The corpus is
/// written by openssl, keytool, certtool, pk12util and Python cryptography
/// (scripts/credential-corpus.py), never by apnskit; results are read back with openssl.
@Suite struct CredentialCorpusTests {
    func corpus() async throws -> CredentialCorpus { try await CredentialCorpus.shared.get() }

    func apnskit(_ arguments: [String], _ corpus: CredentialCorpus) async throws -> Run {
        try await run(["apnskit"] + arguments, environment: corpus.environment)
    }

    /// The public key of a certificate or key file, as openssl prints it (the peer's reading).
    func publicKey(certificate path: String) async throws -> String {
        try await run(["openssl", "x509", "-in", path, "-noout", "-pubkey"]).out
    }

    func publicKey(key path: String) async throws -> String {
        try await run(["openssl", "pkey", "-in", path, "-pubout"]).out
    }

    @Test("inspect reads every file as its writer wrote it: subject, expiry, key match, identity count")
    func inspectMatchesManifest() async throws {
        let corpus = try await corpus()
        print("credential corpus: \(corpus.entries.count) files written in \(String(format: "%.1f", corpus.seconds)) s")
        let files = corpus.entries.map { corpus.path($0.file) }
        let result = try await apnskit(["inspect", "--format", "json", "--passin", "env:CORPUS_PASS"] + files, corpus)
        let reports = try result.reportsByName()
        for entry in corpus.entries {
            let report = try #require(reports[entry.file], "\(entry.file): no report")
            let what = "\(entry.file) (\(entry.writer): \(entry.format))"
            if let oid = entry.unsupported {
                #expect(report["errorKind"] as? String == "unsupportedAlgorithm", "\(what): \(report)")
                #expect((report["error"] as? String)?.contains(oid) == true, "\(what): \(report)")
                continue
            }
            #expect(report["kind"] as? String != "unreadable", "\(what): \(report["error"] ?? "")")
            let certificates = report["certificates"] as? [[String: Any]] ?? []
            #expect(certificates.count == entry.certificates, "\(what): certificates")
            #expect((report["privateKeys"] as? [Any])?.count == entry.keys, "\(what): keys")
            let identities = report["identities"] as? [[String: Any]] ?? []
            #expect(identities.count == entry.identities, "\(what): identities")
            if let name = entry.friendlyName {
                #expect(identities.first?["friendlyName"] as? String == name, "\(what): friendlyName \(identities.first?["friendlyName"] ?? "none")")
            }
            guard let subject = entry.subject else { continue }
            let leaf = try #require((report["leafIndex"] as? Int).map { certificates[$0] }, "\(what): no leaf")
            #expect(leaf["commonName"] as? String == subject, "\(what): leaf \(leaf["commonName"] ?? "none")")
            #expect((leaf["notAfter"] as? String)?.hasPrefix(entry.notAfter ?? "-") == true, "\(what): notAfter \(leaf["notAfter"] ?? "none")")
            #expect(leaf["keyMatches"] as? Bool == entry.keyMatch, "\(what): keyMatches")
            #expect(leaf["isCA"] as? Bool == entry.ca, "\(what): isCA")
        }
    }

    @Test("A wrong passphrase is exit 3 with its own sentence, never the unsupported-algorithm one")
    func wrongPassphrases() async throws {
        let corpus = try await corpus()
        let encrypted = corpus.entries.filter { $0.passphrase == corpus.passphrase && $0.unsupported == nil }
        let result = try await apnskit(["inspect", "--format", "json", "--passin", "env:CORPUS_WRONG"] + encrypted.map { corpus.path($0.file) }, corpus)
        #expect(result.status == 3)
        let reports = try result.reportsByName()
        for entry in encrypted {
            let report = try #require(reports[entry.file])
            #expect(report["errorKind"] as? String == "wrongPassphrase", "\(entry.file) (\(entry.format)): \(report["error"] ?? "")")
            #expect((report["error"] as? String)?.contains("cannot decrypt") == false, "\(entry.file)")
        }
        // The CLI's sentence: the library's words plus the flag to fix, exit 3.
        let strip = try await apnskit(["key", "strip", corpus.path("key-rsa-des.pem"), "--passin", "env:CORPUS_WRONG", "-o", "-"], corpus)
        #expect(strip.status == 3)
        #expect(strip.err.contains("The passphrase does not decrypt the private key in") && strip.err.contains("Check the value given to --passin."), "\(strip.err)")
        let unsupported = try await apnskit(["key", "strip", corpus.path("key-unknown-cipher.p8.der"), "--passin", "env:CORPUS_PASS", "-o", "-"], corpus)
        #expect(unsupported.status == 3)
        #expect(unsupported.err.contains("cannot decrypt") && unsupported.err.contains("2.16.840.1.101.3.4.1.127"), "\(unsupported.err)")
        #expect(!unsupported.err.contains("passphrase does not"), "\(unsupported.err)")
    }

    @Test("key strip opens every encrypted key openssl writes (DES and MD5 ones need the legacy provider)")
    func keyStrip() async throws {
        let corpus = try await corpus()
        // Outputs go to the test's own folder: the corpus folder is shared by tests running in parallel.
        let scratch = try TemporaryDirectory("apnskit-corpus-out")
        let out = scratch.file("stripped.pem")
        for entry in corpus.entries where entry.certificates == 0 && entry.keys == 1 && entry.unsupported == nil {
            let result = try await apnskit(["key", "strip", corpus.path(entry.file), "--passin", "env:CORPUS_PASS", "-o", out, "--force"], corpus)
            #expect(result.status == 0, "\(entry.file) (\(entry.format)): \(result.err)")
            let original = try await run(["openssl", "pkey", "-in", corpus.path(entry.file), "-passin", "env:CORPUS_PASS", "-pubout",
                                    "-provider", "legacy", "-provider", "default"], environment: corpus.environment)
            #expect(original.status == 0, "openssl could not read \(entry.file): \(original.err)")
            #expect(try await publicKey(key: out) == original.out, "\(entry.file): stripped key differs")
        }
    }

    @Test("The gate: check passes what is good and fails expired, CA:TRUE, BOM-hidden and public-only files")
    func gate() async throws {
        let corpus = try await corpus()
        let checked = corpus.entries.filter { $0.certificates > 0 || $0.file.hasSuffix(".p8") }
        let result = try await apnskit(["check", "--min-days", "0", "--require-key", "--strict", "--ca-file", corpus.path("ca.pem"),
                                  "--passin", "env:CORPUS_PASS", "--format", "json"] + checked.map { corpus.path($0.file) }, corpus)
        let results = try result.resultsByName()
        for entry in checked {
            let line = try #require(results[entry.file])
            let status = line["status"] as? String
            let reasons = (line["reasons"] as? [String] ?? []).joined(separator: "; ")
            #expect(status == entry.gate, "\(entry.file) (\(entry.format)): \(status ?? "?"), not \(entry.gate): \(reasons)")
            if entry.expired || entry.ca { #expect(status == "FAIL", "\(entry.file) must not pass") }
            if entry.expired { #expect(reasons.contains("expired on"), "\(entry.file): \(reasons)") }
        }
        #expect(result.status == 1)
        let publicOnly = try #require(results["AuthKey_PUBONLY123.p8"])
        #expect((publicOnly["reasons"] as? [String])?.first?.contains("can never sign a provider token") == true)
        // A CA with its key fails even without --strict and --require-key.
        let plain = try await apnskit(["check", "--ca-file", corpus.path("ca.pem"), corpus.path("ca-with-key.pem")], corpus)
        #expect(plain.status == 1 && plain.out.contains("CA:TRUE"), "\(plain.out)")
    }

    @Test("p12 split and prepare write the writer's identity, read back by openssl; a leaf with its own key is never chain")
    func splitAndPrepare() async throws {
        let corpus = try await corpus()
        let scratch = try TemporaryDirectory("apnskit-corpus-out")
        let cert = scratch.file("split-cert.pem"), key = scratch.file("split-key.pem"), chain = scratch.file("split-chain.pem")
        let prepared = scratch.file("prepared.pem")
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        for entry in corpus.entries where entry.identities == 1 {
            let what = "\(entry.file) (\(entry.writer): \(entry.format))"
            try? FileManager.default.removeItem(atPath: prepared)
            let prepare = try await apnskit(["prepare", corpus.path(entry.file), "--passin", "env:CORPUS_PASS", "-o", prepared, "--force"], corpus)
            if entry.expired {
                #expect(prepare.status == 1, "\(what): prepare wrote an expired identity")
                continue
            }
            if entry.ca {
                // check fails a CA certificate with its key; prepare refuses to write one.
                #expect(prepare.status == 1 && prepare.err.contains("is a CA certificate"), "\(what): prepare wrote a CA identity: \(prepare.err)")
                #expect(!FileManager.default.fileExists(atPath: prepared), "\(what): a refused prepare left its output")
                continue
            }
            #expect(prepare.status == 0, "\(what): \(prepare.err)")
            guard entry.file.hasSuffix(".p12") else {
                #expect(try await publicKey(key: prepared) == publicKey(certificate: prepared), "\(what): prepared key is not the certificate's")
                continue
            }
            for stale in [cert, key, chain] { try? FileManager.default.removeItem(atPath: stale) }
            let split = try await apnskit(["p12", "split", corpus.path(entry.file), "--passin", "env:CORPUS_PASS", "--cert-out", cert,
                                     "--key-out", key, "--chain-out", chain], corpus)
            #expect(split.status == 0, "\(what): \(split.err)")
            // One openssl call reads the certificate's subject and public key, one the key's.
            let certificate = try await run(["openssl", "x509", "-in", cert, "-noout", "-subject", "-nameopt", "multiline", "-pubkey"]).out
            #expect(certificate.contains(entry.subject ?? "?"), "\(what): \(certificate)")
            #expect(certificate.contains(try await publicKey(key: key)), "\(what): key is not the certificate's")
            #expect(text(chain).components(separatedBy: "BEGIN CERTIFICATE").count - 1 == entry.certificates - 1, "\(what): chain")
            // prepare's combined PEM is the same certificate, chain and key, in that order.
            #expect(text(prepared) == text(cert) + text(chain) + text(key), "\(what): prepare and p12 split disagree")
        }
    }

    @Test("Several identities: inspect lists them, split/prepare refuse without --identity and pick with it")
    func severalIdentities() async throws {
        let corpus = try await corpus()
        let file = corpus.path("keytool-two.p12")
        let text = try await apnskit(["inspect", file, "--passin", "env:CORPUS_PASS"], corpus)
        #expect(text.out.contains("Identity 1:") && text.out.contains("Identity 2:"), "\(text.out)")
        let refused = try await apnskit(["p12", "split", file, "--passin", "env:CORPUS_PASS", "--cert-out", corpus.path("id.pem"), "--force"], corpus)
        #expect(refused.status == 3)
        #expect(refused.err.contains("2 identities") && refused.err.contains("\"push a\"") && refused.err.contains("\"push b\"")
                && refused.err.contains("--identity"), "\(refused.err)")
        let prepareRefused = try await apnskit(["prepare", file, "--passin", "env:CORPUS_PASS", "-o", corpus.path("id.pem"), "--force"], corpus)
        #expect(prepareRefused.status == 3 && prepareRefused.err.contains("--identity"), "\(prepareRefused.err)")

        let chain = corpus.path("id-chain.pem")
        let second = try await apnskit(["p12", "split", file, "--passin", "env:CORPUS_PASS", "--identity", "2", "--cert-out", corpus.path("id.pem"),
                                  "--key-out", corpus.path("id-key.pem"), "--chain-out", chain, "--force"], corpus)
        #expect(second.status == 0, "\(second.err)")
        #expect(try await run(["openssl", "x509", "-in", corpus.path("id.pem"), "-noout", "-subject"]).out.contains("com.example.second"))
        #expect(try await publicKey(key: corpus.path("id-key.pem")) == publicKey(certificate: corpus.path("id.pem")))
        let listed = try await run(["sh", "-c", "openssl crl2pkcs7 -nocrl -certfile '\(chain)' | openssl pkcs7 -print_certs -noout"]).out
        #expect(listed.contains("Corpus WWDR-like CA") && !listed.contains("com.example.corpus"), "the other identity's leaf went into the chain: \(listed)")
        let byName = try await apnskit(["prepare", file, "--passin", "env:CORPUS_PASS", "--identity", "push a", "-o", corpus.path("id.pem"), "--force"], corpus)
        #expect(byName.status == 0, "\(byName.err)")
        #expect(try await run(["openssl", "x509", "-in", corpus.path("id.pem"), "-noout", "-subject"]).out.contains("com.example.corpus"))

        // verify (and push, feedback: the same options) takes --identity too; the identity is
        // chosen before any connection (port 9 on loopback: refused at once, exit 4).
        let verifyRefused = try await apnskit(["verify", file, "--passin", "env:CORPUS_PASS", "--gateway", "127.0.0.1:9"], corpus)
        #expect(verifyRefused.status == 3 && verifyRefused.err.contains("--identity"), "\(verifyRefused.err)")
        let verifyChosen = try await apnskit(["verify", file, "--passin", "env:CORPUS_PASS", "--identity", "2", "--gateway", "127.0.0.1:9",
                                        "--ca-file", corpus.path("ca.pem")], corpus)
        #expect(verifyChosen.status == 4, "\(verifyChosen.out) \(verifyChosen.err)")

        // The same content as PEM is read the same way.
        let pem = corpus.path("two-identities.pem")
        try (String(contentsOfFile: corpus.path("combined-crlf.pem"), encoding: .utf8) + String(contentsOfFile: corpus.path("renamed-push.pem"), encoding: .utf8))
            .write(toFile: pem, atomically: true, encoding: .utf8)
        let json = try await apnskit(["inspect", "--format", "json", pem], corpus).reportsByName()["two-identities.pem"] ?? [:]
        #expect((json["identities"] as? [Any])?.count == 2)
        let pemRefused = try await apnskit(["prepare", pem, "-o", corpus.path("id.pem"), "--force"], corpus)
        #expect(pemRefused.status == 3 && pemRefused.err.contains("2 identities"), "\(pemRefused.err)")
        // Findings say which certificate they are about when there are several.
        let soon = try await apnskit(["check", "--min-days", "250", "--passin", "env:CORPUS_PASS", file], corpus)
        #expect(soon.out.contains("Apple Push Services: com.example.second: expires in"), "\(soon.out)")
        #expect(!soon.out.contains("Apple Development IOS Push Services: com.example.corpus: expires in"), "\(soon.out)")
    }

    @Test("A combined PEM with an encrypted key and no passphrase still shows the certificate's expiry")
    func lockedKey() async throws {
        let corpus = try await corpus()
        let file = corpus.path("combined-encrypted-key.pem")
        let inspect = try await apnskit(["inspect", "--format", "json", file], corpus)
        #expect(inspect.status == 0, "\(inspect.out)")
        let report = try #require(try inspect.reportsByName()["combined-encrypted-key.pem"])
        let certificates = report["certificates"] as? [[String: Any]] ?? []
        #expect(certificates.count == 2)
        #expect((report["findings"] as? [[String: Any]])?.contains { $0["code"] as? String == "keyNotChecked" } == true, "\(report)")
        let lenient = try await apnskit(["check", "--ca-file", corpus.path("ca.pem"), file], corpus)
        #expect(lenient.status == 0 && lenient.out.hasPrefix("WARN") && lenient.out.contains("not checked"), "\(lenient.out)")
        let strict = try await apnskit(["check", "--ca-file", corpus.path("ca.pem"), "--require-key", file], corpus)
        #expect(strict.status == 1 && strict.out.hasPrefix("FAIL"), "\(strict.out)")
        #expect(!strict.out.contains("no private key in the file"), "\(strict.out)")
    }

    @Test("The type line never contradicts Apple's environment extensions")
    func renamedPush() async throws {
        let corpus = try await corpus()
        let text = try await apnskit(["inspect", corpus.path("renamed-push.pem")], corpus)
        #expect(text.out.contains("Environments: sandbox"), "\(text.out)")
        #expect(!text.out.contains("not an Apple push certificate"), "\(text.out)")
    }

    @Test("check reports a second private key the way inspect does")
    func twoKeys() async throws {
        let corpus = try await corpus()
        let pem = corpus.path("two-keys.pem")
        let renamed = try String(contentsOfFile: corpus.path("renamed-push.pem"), encoding: .utf8)
        let keyBlock = try #require(renamed.range(of: "-----BEGIN PRIVATE KEY-----").flatMap { start in
            renamed.range(of: "-----END PRIVATE KEY-----\n").map { renamed[start.lowerBound..<$0.upperBound] }
        })
        try (String(contentsOfFile: corpus.path("combined-crlf.pem"), encoding: .utf8) + keyBlock).write(toFile: pem, atomically: true, encoding: .utf8)
        let check = try await apnskit(["check", "--ca-file", corpus.path("ca.pem"), pem], corpus)
        #expect(check.out.contains("holds 2 private keys"), "\(check.out)")
        #expect(check.out.hasPrefix("WARN"), "\(check.out)")
    }

    @Test("-o - says standard output and no file mode")
    func standardOutput() async throws {
        let corpus = try await corpus()
        let runs = [
            try await apnskit(["prepare", corpus.path("openssl-default.p12"), "--passin", "env:CORPUS_PASS", "-o", "-"], corpus),
            try await apnskit(["key", "strip", corpus.path("key-rsa-aes256.pem"), "--passin", "env:CORPUS_PASS", "-o", "-"], corpus),
            try await apnskit(["import-cer", corpus.path("ca.pem"), "-o", "-"], corpus),
        ]
        for result in runs {
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("standard output") && !result.err.contains("standard input") && !result.err.contains("mode 06"), "\(result.err)")
            #expect(result.out.contains("-----BEGIN"))
        }
    }
}
