// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Test fixtures made by the real `openssl` CLI: a throwaway CA and certificates it signs.
/// Nothing here is a real person's key; everything lives in the test's temporary folder.
public struct OpenSSLCA: Sendable {
    public let folder: String
    public let certificate: String
    public let key: String

    /// A self-signed RSA-2048 CA in `directory/name/`.
    public static func make(in directory: TemporaryDirectory, name: String = "ca", subject: String = "/CN=apnskit Test CA/O=apnskit tests") async throws -> OpenSSLCA {
        let folder = directory.file(name)
        try FileManager.default.createDirectory(atPath: folder + "/newcerts", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/index.txt", contents: Data())
        try "1000\n".write(toFile: folder + "/serial", atomically: true, encoding: .utf8)
        let config = """
        [ ca ]
        default_ca = local
        [ local ]
        dir = \(folder)
        database = $dir/index.txt
        new_certs_dir = $dir/newcerts
        serial = $dir/serial
        default_md = sha256
        policy = anything
        unique_subject = no
        email_in_dn = yes
        [ anything ]
        emailAddress = optional
        commonName = optional
        countryName = optional
        organizationName = optional
        organizationalUnitName = optional
        userId = optional
        [ client ]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = clientAuth
        """
        try config.write(toFile: folder + "/ca.cnf", atomically: true, encoding: .utf8)
        let ca = OpenSSLCA(folder: folder, certificate: folder + "/ca.pem", key: folder + "/ca.key")
        let result = try await Binaries.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca.key,
                                           "-out", ca.certificate, "-subj", subject, "-days", "3650"])
        guard result.status == 0 else { throw FixtureError(result.description) }
        return ca
    }

    /// Signs `csr` as a client certificate valid from `start` to `end` (openssl's
    /// YYYYMMDDHHMMSSZ); the default is valid now for a year.
    public func sign(csr: String, out: String, start: Date = Date().addingTimeInterval(-3600),
                     end: Date = Date().addingTimeInterval(365 * 86_400)) async throws {
        let result = try await Binaries.openssl(["ca", "-batch", "-config", folder + "/ca.cnf", "-in", csr, "-out", out,
                                           "-cert", certificate, "-keyfile", key, "-preserveDN", "-notext",
                                           "-extensions", "client",
                                           "-startdate", Self.stamp(start), "-enddate", Self.stamp(end)])
        guard result.status == 0 else { throw FixtureError(result.description) }
    }

    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: date)
    }
}

public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A client key + certificate pair made with the openssl CLI, the way the portal flow would.
public struct ClientFixture: Sendable {
    public let key: String
    public let certificate: String

    public static func make(in directory: TemporaryDirectory, ca: OpenSSLCA, name: String = "client",
                            keyType: String = "rsa:2048", subject: String = "/UID=com.example.app/CN=Apple Development IOS Push Services: com.example.app/OU=TEAM123456/O=Example Inc/C=US",
                            start: Date = Date().addingTimeInterval(-3600), end: Date = Date().addingTimeInterval(365 * 86_400)) async throws -> ClientFixture {
        let key = directory.file("\(name).key")
        let csr = directory.file("\(name).csr")
        let certificate = directory.file("\(name).pem")
        var result = try await Binaries.openssl(["req", "-new", "-newkey", keyType, "-nodes", "-keyout", key, "-out", csr, "-subj", subject])
        guard result.status == 0 else { throw FixtureError(result.description) }
        try await ca.sign(csr: csr, out: certificate, start: start, end: end)
        result = try await Binaries.openssl(["x509", "-in", certificate, "-noout"])
        guard result.status == 0 else { throw FixtureError(result.description) }
        return ClientFixture(key: key, certificate: certificate)
    }
}
