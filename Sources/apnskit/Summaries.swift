// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import Foundation

/// One-line descriptions shared by several commands.
enum Summaries {
    static let day: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter
    }()

    /// `"Apple Development IOS Push Services: com.example.app", expires 2027-12-22 10:00:00 UTC (395 days left)`
    static func certificate(_ certificate: Certificate, now: Date = Date()) -> String {
        let name = certificate.subject.commonName.map { "\"\($0)\"" } ?? certificate.subject.description
        return "\(name), \(validity(certificate, now: now))"
    }

    static func validity(_ certificate: Certificate, now: Date = Date()) -> String {
        let days = certificate.daysLeft(at: now)
        if certificate.notBefore > now {
            return "not valid until \(day.string(from: certificate.notBefore))"
        }
        if days < 0 || certificate.notAfter <= now {
            return "EXPIRED \(day.string(from: certificate.notAfter)) (\(-days) days ago)"
        }
        return "expires \(day.string(from: certificate.notAfter)) (\(days) days left)"
    }

    /// Where the report goes: stdout normally, stderr when stdout carries the output file.
    static func report(_ text: String, stdoutIsData: Bool) {
        if stdoutIsData { Output.note(text) } else { Output.line(text) }
    }

    static func mode(_ sensitivity: FileSensitivity) -> String { sensitivity == .secret ? "0600" : "0644" }

    /// How a summary names an output: its path, or "standard output" for `-` (never
    /// `displayName`'s "standard input", which names an input).
    static func outputName(_ path: String) -> String { path == "-" ? "standard output" : path }

    /// ", mode 0600" for a key file; nothing for standard output, which has no mode of ours.
    static func modeSuffix(_ path: String, _ sensitivity: FileSensitivity = .secret) -> String {
        path == "-" ? "" : ", mode \(mode(sensitivity))"
    }

    /// " (mode 0600)" for a key file; nothing for standard output.
    static func modeNote(_ path: String, _ sensitivity: FileSensitivity = .secret) -> String {
        path == "-" ? "" : " (mode \(mode(sensitivity)))"
    }
}
