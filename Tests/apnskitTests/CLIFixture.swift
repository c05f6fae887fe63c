// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// A CLI workspace (`CLIWorkspace`: a folder, apnskit run in it) with a throwaway CA standing in
/// for Apple's portal.
struct CLIFixture {
    let workspace: CLIWorkspace
    let ca: OpenSSLCA

    init() async throws {
        workspace = try CLIWorkspace("apnskit-cli")
        ca = try await OpenSSLCA.make(in: workspace.dir)
    }

    var dir: TemporaryDirectory { workspace.dir }

    /// Runs apnskit in the fixture folder (stdin not a TTY: empty unless given).
    @discardableResult
    func run(_ arguments: String..., stdin: String? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
        try await workspace.run(arguments, stdin: stdin, environment: environment)
    }

    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
        try await workspace.run(arguments, stdin: stdin, environment: environment)
    }

    @discardableResult
    func openssl(_ arguments: String...) async throws -> ProcessResult {
        try await workspace.openssl(arguments)
    }

    /// key + CSR with apnskit, certificate from the stand-in portal (PEM and DER `.cer`).
    func portalCertificate(name: String = "push", start: Date = Date().addingTimeInterval(-3600),
                           end: Date = Date().addingTimeInterval(395 * 86_400)) async throws -> (key: String, pem: String, cer: String) {
        let csr = try await run("csr", "--email", "dev@example.com", "--common-name", "Example Push",
                          "--key-out", "\(name).key", "--csr-out", "\(name).csr")
        #expect(csr.status == 0, "\(csr)")
        try await ca.sign(csr: dir.file("\(name).csr"), out: dir.file("\(name).pem"), start: start, end: end)
        let der = try await openssl("x509", "-in", "\(name).pem", "-outform", "DER", "-out", "\(name).cer")
        #expect(der.status == 0, "\(der)")
        return ("\(name).key", "\(name).pem", "\(name).cer")
    }

    /// A Keychain-style legacy p12 (RC2-40 certificate bag, 3DES key bag, SHA-1 MAC).
    func keychainP12(_ cert: String, _ key: String, out: String, password: String = "s3cret", extra: [String] = []) async throws {
        let result = try await Binaries.openssl(["pkcs12", "-export", "-legacy", "-certpbe", "PBE-SHA1-RC2-40", "-keypbe", "PBE-SHA1-3DES",
                                           "-macalg", "sha1", "-in", cert, "-inkey", key, "-passout", "pass:\(password)", "-out", out] + extra,
                                          directory: dir.path)
        #expect(result.status == 0, "\(result)")
    }
}

/// Asserts a failed command: its exit status, one `apnskit:` sentence naming `mentions`, and
/// that `output` (if given) was not created.
func expectFailure(_ result: ProcessResult, status: Int32, mentions: [String], noFile output: String? = nil, in fixture: CLIFixture? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
    let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("apnskit: ") && !$0.hasPrefix("apnskit: warning") }
    #expect(errorLines.count == 1, "one error sentence expected: \(result.stderr)", sourceLocation: sourceLocation)
    for word in mentions {
        #expect(result.stderr.contains(word), "stderr should mention '\(word)': \(result.stderr)", sourceLocation: sourceLocation)
    }
    #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
    if let output, let fixture {
        #expect(!fixture.dir.exists(output), "\(output) must not be written", sourceLocation: sourceLocation)
    }
}
