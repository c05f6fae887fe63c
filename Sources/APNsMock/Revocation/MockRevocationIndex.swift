// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsTransport
import Foundation

/// The mock CA's record of what it issued and revoked: `index.txt` in the CA folder, in the
/// format of `openssl ca`'s database, so `openssl ocsp -index DIR/index.txt -CA DIR/wwdr.pem
/// -rsigner DIR/wwdr.pem -rkey DIR/wwdr-key.pem -port N` answers for the same CA as `apnskit
/// mock serve` does (an independent responder for the tests).
///
/// A line per certificate, tab-separated: status (`V` valid, `R` revoked), expiry
/// (`YYMMDDHHMMSSZ`), revocation (`YYMMDDHHMMSSZ[,reason]`, empty when valid), serial (upper-case
/// hex), file name (`unknown`), subject (`/C=US/...`).
package struct MockRevocationIndex: Sendable {
    package struct Entry: Sendable, Equatable {
        package var serial: String
        package var expiry: Date
        package var revoked: (date: Date, reason: RevocationReason?)?
        package var subject: String

        package static func == (a: Entry, b: Entry) -> Bool {
            a.serial == b.serial && a.expiry == b.expiry && a.subject == b.subject
                && a.revoked?.date == b.revoked?.date && a.revoked?.reason == b.revoked?.reason
        }
    }

    package static let fileName = "index.txt"
    package let folder: String
    package var path: String { (folder as NSString).appendingPathComponent(Self.fileName) }

    package init(folder: String) { self.folder = folder }

    /// Every entry; no file yet means none.
    package func entries() throws -> [Entry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").compactMap { Self.parse(String($0)) }
    }

    package func entry(serial: String) throws -> Entry? {
        try entries().last { $0.serial == serial.uppercased() }
    }

    /// Records a certificate the CA issued (valid), under the folder's lock.
    package func recordIssued(_ certificate: Certificate) throws {
        try update { entries in
            entries.removeAll { $0.serial == certificate.serialNumberHex }
            entries.append(Entry(serial: certificate.serialNumberHex, expiry: certificate.notAfter, revoked: nil,
                                 subject: Self.slashName(certificate.subject)))
        }
    }

    /// Marks `certificate` revoked. A certificate issued before the CA kept an index is added.
    package func revoke(_ certificate: Certificate, at date: Date, reason: RevocationReason?) throws {
        try update { entries in
            if let index = entries.firstIndex(where: { $0.serial == certificate.serialNumberHex }) {
                entries[index].revoked = (date, reason)
            } else {
                entries.append(Entry(serial: certificate.serialNumberHex, expiry: certificate.notAfter, revoked: (date, reason),
                                     subject: Self.slashName(certificate.subject)))
            }
        }
    }

    private func update(_ change: (inout [Entry]) -> Void) throws {
        try FolderLock.withExclusiveLock(on: folder) {
            var entries = try self.entries()
            change(&entries)
            let text = entries.map(Self.line).joined()
            try SecureFileWriter.write(Array(text.utf8), to: path, sensitivity: .public, force: true)
        }
    }

    // MARK: - The openssl ca format

    static func line(_ entry: Entry) -> String {
        let revoked = entry.revoked.map { time($0.date) + ($0.reason.map { "," + $0.name } ?? "") } ?? ""
        return [entry.revoked == nil ? "V" : "R", time(entry.expiry), revoked, entry.serial, "unknown", entry.subject].joined(separator: "\t") + "\n"
    }

    static func parse(_ line: String) -> Entry? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 6, let expiry = date(fields[1]) else { return nil }
        var revoked: (Date, RevocationReason?)?
        if fields[0] == "R" {
            let parts = fields[2].split(separator: ",").map(String.init)
            guard let first = parts.first, let when = date(first) else { return nil }
            revoked = (when, parts.count > 1 ? RevocationReason(name: parts[1]) : nil)
        }
        return Entry(serial: fields[3].uppercased(), expiry: expiry, revoked: revoked, subject: fields[5])
    }

    /// `YYMMDDHHMMSSZ` (UTCTime), as `openssl ca` writes it.
    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyMMddHHmmss'Z'"
        return formatter.string(from: date)
    }

    static func date(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = text.count == 15 ? "yyyyMMddHHmmss'Z'" : "yyMMddHHmmss'Z'"
        return formatter.date(from: text)
    }

    /// `/C=US/O=.../CN=...`, the form `openssl ca` records.
    static func slashName(_ name: DistinguishedName) -> String {
        name.attributes.map { "/\($0.key)=\($0.value)" }.joined()
    }
}

/// The CA folder's revocation URL (`mock ca --revocation-url`), kept in `revocation-url.txt`:
/// `mock issue` names it in the certificates it issues, `mock serve` answers there.
package enum MockRevocationURL {
    package static let fileName = "revocation-url.txt"

    package static func read(folder: String) throws -> String? {
        let path = (folder as NSString).appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    package static func write(_ url: String, folder: String, force: Bool) throws {
        try SecureFileWriter.write(Array((url + "\n").utf8), to: (folder as NSString).appendingPathComponent(fileName), sensitivity: .public, force: force)
    }

    /// Host and port of an `http://HOST[:PORT][/]` URL, as the responder listens; for anything
    /// else, why not (`Invalid`): https, a path, a query or fragment, credentials (a
    /// certificate's URL carries none, and clients send none), a port outside 1 to 65535, or an
    /// unspecified address (0.0.0.0, ::), which listens on every interface and is no address a
    /// client can connect to.
    package static func listenAddress(_ url: String) throws(Invalid) -> (host: String, port: Int) {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host, !host.isEmpty else {
            throw Invalid("is not an http:// URL such as http://127.0.0.1:8888")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil else {
            throw Invalid("has a path, query or fragment; give http://HOST:PORT, where `mock serve` will listen")
        }
        guard components.user == nil, components.password == nil else {
            throw Invalid("has a user name or password; a certificate's revocation URL carries none")
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard !["0.0.0.0", "::", "0:0:0:0:0:0:0:0"].contains(bare) else {
            throw Invalid("names \(bare), which listens on every interface and which no client can connect to; give 127.0.0.1 or this machine's name")
        }
        switch PortNumber.inURL(url) {
        case .absent: return (bare, 80)
        case .valid(let port): return (bare, port)
        case .invalid(let written): throw Invalid("has the port \(written); a port is 1 to 65535")
        }
    }

    /// Why a revocation URL cannot be served: a phrase that follows the URL.
    package struct Invalid: Error, Sendable, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }
}
