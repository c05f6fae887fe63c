// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import TestSupport

/// Certificates and keys made at test time with the `openssl` CLI, once per test process:
/// a CA, a server certificate for localhost/127.0.0.1, an APNs-like client certificate from
/// that CA, another CA with its own client certificate ("wrong CA"), and server certificates
/// with a wrong host name and an expired validity period.
package final class Fixtures: Sendable {
    package static let shared: Fixtures = {
        do {
            let fixtures = try Fixtures()
            Fixtures.createdDir = fixtures.dir
            atexit { if let dir = Fixtures.createdDir { try? FileManager.default.removeItem(atPath: dir) } }
            return fixtures
        } catch {
            fatalError("Could not create test fixtures: \(error)")
        }
    }()

    /// Removed when the test process exits (set once, before the atexit handler can run).
    nonisolated(unsafe) private static var createdDir: String?

    package let dir: String
    package var caCert: String { dir + "/ca.pem" }
    package var serverCert: String { dir + "/server.pem" }
    package var serverKey: String { dir + "/server.key" }
    package var clientCert: String { dir + "/client.pem" }
    package var clientKey: String { dir + "/client.key" }
    package var otherCACert: String { dir + "/other-ca.pem" }
    package var otherClientCert: String { dir + "/other-client.pem" }
    package var otherClientKey: String { dir + "/other-client.key" }
    package var wrongHostCert: String { dir + "/wronghost.pem" }
    package var wrongHostKey: String { dir + "/wronghost.key" }
    package var expiredCert: String { dir + "/expired.pem" }
    package var expiredKey: String { dir + "/expired.key" }
    package var docroot: String { dir + "/www" }
    package var usertrustServerCert: String { dir + "/usertrust-server.pem" }
    package var usertrustServerKey: String { dir + "/usertrust-server.key" }
    /// A token-auth key as Apple's portal gives it: PKCS#8 PEM, EC P-256.
    package var authKey: String { dir + "/AuthKey_ABC123DEFG.p8" }
    package var authKeyPublic: String { dir + "/authkey-public.pem" }

    package static let bundleID = "com.example.app"

    private init() throws {
        dir = NSTemporaryDirectory() + "apnskit-transport-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir + "/www", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/newcerts", withIntermediateDirectories: true)
        try Data("hello from nghttpd\n".utf8).write(to: URL(fileURLWithPath: docroot + "/index.html"))
        try Data().write(to: URL(fileURLWithPath: dir + "/index.txt"))
        try Data("1000\n".utf8).write(to: URL(fileURLWithPath: dir + "/serial"))
        try Data("""
        subjectAltName=DNS:localhost,IP:127.0.0.1
        extendedKeyUsage=serverAuth
        basicConstraints=CA:FALSE

        """.utf8).write(to: URL(fileURLWithPath: dir + "/server.ext"))
        try Data("""
        subjectAltName=DNS:wrong.example.com
        extendedKeyUsage=serverAuth
        basicConstraints=CA:FALSE

        """.utf8).write(to: URL(fileURLWithPath: dir + "/wronghost.ext"))
        try Data("""
        extendedKeyUsage=clientAuth
        keyUsage=critical,digitalSignature
        basicConstraints=CA:FALSE

        """.utf8).write(to: URL(fileURLWithPath: dir + "/client.ext"))
        try Data("""
        [ ca ]
        default_ca = test_ca
        [ test_ca ]
        database = \(dir)/index.txt
        new_certs_dir = \(dir)/newcerts
        serial = \(dir)/serial
        default_md = sha256
        policy = any
        unique_subject = no
        [ any ]
        commonName = supplied

        """.utf8).write(to: URL(fileURLWithPath: dir + "/ca.cnf"))

        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for (name, cn) in [("ca", "apnskit Test Root CA"), ("other-ca", "apnskit Other Test CA"),
                           ("usertrust", "USERTrust RSA Certification Authority")] {
            try openssl(["req", "-x509"] + ec + ["-keyout", "\(name).key", "-out", "\(name).pem", "-days", "30", "-subj", "/CN=\(cn)"])
        }
        func issue(_ name: String, subject: String, ca: String, ext: String, rsa: Bool = false) throws {
            let keyArgs = rsa ? ["-newkey", "rsa:2048", "-nodes"] : ec
            try openssl(["req"] + keyArgs + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject])
            try openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-set_serial", String(Int.random(in: 1000...9_999_999)),
                         "-out", "\(name).pem", "-days", "30", "-extfile", ext])
        }
        try issue("server", subject: "/CN=localhost", ca: "ca", ext: "server.ext")
        try issue("usertrust-server", subject: "/CN=localhost", ca: "usertrust", ext: "server.ext")
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "AuthKey_ABC123DEFG.p8"])
        try openssl(["pkey", "-in", "AuthKey_ABC123DEFG.p8", "-pubout", "-out", "authkey-public.pem"])
        try issue("wronghost", subject: "/CN=wrong.example.com", ca: "ca", ext: "wronghost.ext")
        let apnsSubject = "/UID=\(Self.bundleID)/CN=Apple Development IOS Push Services: \(Self.bundleID)/OU=TEAMID1234/O=Example Inc/C=US"
        try issue("client", subject: apnsSubject, ca: "ca", ext: "client.ext", rsa: true)
        try issue("other-client", subject: apnsSubject, ca: "other-ca", ext: "client.ext")
        try openssl(["req"] + ec + ["-keyout", "expired.key", "-out", "expired.csr", "-subj", "/CN=localhost"])
        try openssl(["ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "expired.csr",
                     "-out", "expired.pem", "-startdate", "20200101000000Z", "-enddate", "20200201000000Z",
                     "-extfile", "server.ext", "-notext"])
    }

    private func openssl(_ arguments: [String]) throws {
        let result = try ProcessRunner.run(tool("openssl"), arguments, directory: dir, combineOutput: true)
        guard result.status == 0 else {
            throw TransportError(.configuration, "openssl \(arguments.joined(separator: " ")) failed: \(result.output)")
        }
    }

    package func identity(cert: String, key: String) throws -> APNsIdentity {
        try IdentityLoader.load([cert, key], passphrases: .none)
    }

    package var clientIdentity: APNsIdentity { get throws { try identity(cert: clientCert, key: clientKey) } }
    package var otherClientIdentity: APNsIdentity { get throws { try identity(cert: otherClientCert, key: otherClientKey) } }
    package var serverIdentity: APNsIdentity { get throws { try identity(cert: serverCert, key: serverKey) } }
}
