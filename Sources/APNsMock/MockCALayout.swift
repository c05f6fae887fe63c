// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import Foundation

/// The files `apnskit mock ca -o DIR` writes, and `mock issue --ca DIR` / `mock serve --ca DIR`
/// read. Keys are written 0600, certificates 0644, all PEM.
///
/// | file | holds |
/// |---|---|
/// | `root.pem` | the mock root CA certificate ("apnskit Mock Root CA"); trust anchor for everything |
/// | `root-key.pem` | its private key |
/// | `wwdr.pem` | the intermediate named like Apple's WWDR CA (OU=G4), which signs push certificates |
/// | `wwdr-key.pem` | its private key |
/// | `server.pem` | the mock gateway's TLS certificate (issued by the root; SANs for all APNs hosts, localhost, 127.0.0.1, ::1) |
/// | `server-key.pem` | its private key |
/// | `ca-bundle.pem` | `wwdr.pem` then `root.pem`: the `--ca-file` for `apnskit check` and the mock's client verification |
/// | `README.txt` | this table, for whoever finds the folder |
package enum MockCALayout {
    package static let root = "root.pem"
    package static let rootKey = "root-key.pem"
    package static let intermediate = "wwdr.pem"
    package static let intermediateKey = "wwdr-key.pem"
    package static let server = "server.pem"
    package static let serverKey = "server-key.pem"
    package static let bundle = "ca-bundle.pem"
    package static let readme = "README.txt"

    static let readmeText = """
    apnskit mock CA (for tests only; NOT Apple's certificate authority)

    root.pem        mock root CA certificate ("apnskit Mock Root CA"), the trust anchor
    root-key.pem    its private key (0600)
    wwdr.pem        intermediate named like Apple's WWDR CA (OU=G4), signs push certificates
    wwdr-key.pem    its private key (0600)
    server.pem      TLS certificate for the local mock gateway (APNs host names, localhost, 127.0.0.1, ::1)
    server-key.pem  its private key (0600)
    ca-bundle.pem   wwdr.pem + root.pem: use as --ca-file for `apnskit check`
    profile-signing.pem, profile-signing-key.pem
                    "Apple iPhone OS Provisioning Profile Signing" (issued by the root), made by
                    the first `apnskit mock issue --profile`; signs provisioning profiles

    Issue a push certificate from a CSR:
      apnskit mock issue request.csr --ca THIS_FOLDER --bundle-id com.example.app -o aps.cer

    """
}

extension MockCA {
    /// Writes the CA into `folder` (created if missing). Refuses to replace any existing file
    /// unless `force`, checking all of them before writing the first.
    package func write(to folder: String, force: Bool) throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            try SecureFileWriter.createPrivateFolder(folder)
        } else if !isDirectory.boolValue {
            throw APNsCredentialError(.outputFailed, "\(folder) exists and is not a folder; give a folder for the mock CA.")
        }
        let files: [(String, [UInt8], FileSensitivity)] = [
            (MockCALayout.root, try root.pem(), .public),
            (MockCALayout.rootKey, try rootKey.pkcs8PEM(), .secret),
            (MockCALayout.intermediate, try intermediate.pem(), .public),
            (MockCALayout.intermediateKey, try intermediateKey.pkcs8PEM(), .secret),
            (MockCALayout.server, try server.pem(), .public),
            (MockCALayout.serverKey, try serverKey.pkcs8PEM(), .secret),
            (MockCALayout.bundle, try intermediate.pem() + root.pem(), .public),
            (MockCALayout.readme, Array(MockCALayout.readmeText.utf8), .public),
        ]
        let paths = files.map { (folder as NSString).appendingPathComponent($0.0) }
        for path in paths { try SecureFileWriter.preflight(path, force: force) }
        for (path, file) in zip(paths, files) {
            try SecureFileWriter.write(file.1, to: path, sensitivity: file.2, force: force)
        }
    }

    /// Loads a CA written by `write(to:force:)`.
    package static func load(from folder: String) throws -> MockCA {
        func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw APNsCredentialError(.unreadable, "\(folder) is not a mock CA folder; create one with `apnskit mock ca -o \(folder)`.")
        }
        try SecureFileWriter.refuseSharedFolder(folder)
        let none = PassphraseSupplier.none
        return MockCA(
            root: try IdentityLoader.certificate(path(MockCALayout.root)).0,
            rootKey: try IdentityLoader.privateKey(path(MockCALayout.rootKey), passphrases: none),
            intermediate: try IdentityLoader.certificate(path(MockCALayout.intermediate)).0,
            intermediateKey: try IdentityLoader.privateKey(path(MockCALayout.intermediateKey), passphrases: none),
            server: try IdentityLoader.certificate(path(MockCALayout.server)).0,
            serverKey: try IdentityLoader.privateKey(path(MockCALayout.serverKey), passphrases: none))
    }
}
