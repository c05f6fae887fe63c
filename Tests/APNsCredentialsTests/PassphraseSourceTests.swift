// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation
import Testing
import TestSupport

@Suite("Passphrase sources")
struct PassphraseSourceTests {
    @Test("Parses every form, as openssl spells them")
    func parsing() async throws {
        #expect(try PassphraseSource(parsing: "env:P") == .environment("P"))
        #expect(try PassphraseSource(parsing: "file:/x") == .file("/x"))
        #expect(try PassphraseSource(parsing: "fd:3") == .fileDescriptor(3))
        #expect(try PassphraseSource(parsing: "stdin") == .standardInput)
        #expect(try PassphraseSource(parsing: "pass:a:b") == .literal("a:b"))
        #expect(try PassphraseSource(parsing: "empty") == .empty)
        #expect(try PassphraseSource(parsing: "pass:x").isVisibleToOtherProcesses)
        for bad in ["secret", "env:", "fd:x", "file:", "foo:bar"] {
            let error = #expect(throws: APNsCredentialError.self) { try PassphraseSource(parsing: bad) }
            #expect(error?.kind == .invalidArgument)
        }
    }

    @Test("A file source gives its first line without the newline")
    func fileFirstLine() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("pass", text: "hunter2\r\nsecond line\n")
        #expect(try PassphraseSource.file(path).read().bytes == Array("hunter2".utf8))
    }

    @Test("An unset environment variable is a missing passphrase naming the variable")
    func unsetEnvironment() {
        let error = #expect(throws: APNsCredentialError.self) { try PassphraseSource.environment("APNSKIT_TEST_UNSET_VAR").read() }
        #expect(error?.kind == .missingPassphrase)
        #expect(error?.message.contains("APNSKIT_TEST_UNSET_VAR") == true)
    }

    @Test("A passphrase never prints its text")
    func redacted() {
        let secret = Passphrase("hunter2")
        #expect("\(secret)" == "<passphrase>")
        #expect(String(reflecting: secret) == "<passphrase>")
    }
}
