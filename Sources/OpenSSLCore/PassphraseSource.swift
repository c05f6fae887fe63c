// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where a passphrase comes from, spelled as OpenSSL's `-passin`/`-passout` arguments are,
/// so users can carry their habits (and scripts) over: `env:VAR`, `file:PATH`, `fd:N`,
/// `stdin`, `pass:TEXT`, plus `empty` for the deliberately empty passphrase.
package enum PassphraseSource: Sendable, Equatable {
    case environment(String)
    case file(String)
    case fileDescriptor(Int32)
    case standardInput
    case literal(String)
    case empty

    /// Parses a `--passin`/`--passout` value. The error message never repeats a `pass:` text.
    package init(parsing text: String) throws {
        if text == "stdin" { self = .standardInput; return }
        if text == "empty" { self = .empty; return }
        guard let colon = text.firstIndex(of: ":") else {
            throw CredentialError(.invalidArgument, "Passphrase source must be env:VAR, file:PATH, fd:N, stdin, pass:TEXT or empty.")
        }
        let scheme = String(text[..<colon])
        let value = String(text[text.index(after: colon)...])
        switch scheme {
        case "env":
            guard !value.isEmpty else { throw CredentialError(.invalidArgument, "Passphrase source env: needs a variable name, as in env:APNS_P12_PASS.") }
            self = .environment(value)
        case "file":
            guard !value.isEmpty else { throw CredentialError(.invalidArgument, "Passphrase source file: needs a path, as in file:/run/secrets/p12-pass.") }
            self = .file(value)
        case "fd":
            guard let fd = Int32(value), fd >= 0 else { throw CredentialError(.invalidArgument, "Passphrase source fd: needs a file descriptor number, as in fd:3.") }
            self = .fileDescriptor(fd)
        case "pass":
            self = .literal(value)
        default:
            throw CredentialError(.invalidArgument, "Unknown passphrase source '\(scheme):'; use env:VAR, file:PATH, fd:N, stdin, pass:TEXT or empty.")
        }
    }

    /// `pass:TEXT` puts the passphrase on the command line, where `ps` shows it to every user.
    package var isVisibleToOtherProcesses: Bool {
        if case .literal = self { return true }
        return false
    }

    /// Reads the passphrase. Files and descriptors give their first line, as OpenSSL does.
    package func read() throws -> Passphrase {
        switch self {
        case .empty:
            return .empty
        case .literal(let text):
            return Passphrase(text)
        case .environment(let name):
            guard let value = ProcessInfo.processInfo.environment[name] else {
                throw CredentialError(.missingPassphrase, "Environment variable \(name) named by env:\(name) is not set; export it or choose another passphrase source.")
            }
            return Passphrase(value)
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CredentialError(.unreadable, "Cannot read passphrase file \(path); check that it exists and is readable.")
            }
            return Passphrase(bytes: Self.firstLine(Array(data)))
        case .fileDescriptor(let fd):
            return Passphrase(bytes: try Self.readLine(fd: fd, what: "file descriptor \(fd)"))
        case .standardInput:
            return Passphrase(bytes: try Self.readLine(fd: 0, what: "standard input"))
        }
    }

    static func firstLine(_ bytes: [UInt8]) -> [UInt8] {
        var line = bytes.prefix { $0 != 0x0A }
        if line.last == 0x0D { line = line.dropLast() }
        return Array(line)
    }

    /// Reads one line byte by byte, so nothing past the newline is consumed from a shared fd.
    package static func readLine(fd: Int32, what: String) throws -> [UInt8] {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 65_536 {
            let n = Foundation.read(fd, &byte, 1)
            if n < 0 {
                if errno == EINTR { continue }
                throw CredentialError(.unreadable, "Cannot read a passphrase from \(what): \(String(cString: strerror(errno))).")
            }
            if n == 0 || byte == 0x0A { break }
            line.append(byte)
        }
        if line.last == 0x0D { line.removeLast() }
        return line
    }
}
