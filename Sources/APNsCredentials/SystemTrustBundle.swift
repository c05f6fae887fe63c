// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import COpenSSL
import Foundation

/// Where OpenSSL (and so every program linked with it, curl and apnskit included) finds the
/// system's trusted CA certificates: the file named by `SSL_CERT_FILE`, else OpenSSL's built-in
/// default (Debian: /usr/lib/ssl/cert.pem, a link to /etc/ssl/certs/ca-certificates.crt); when
/// that file does not exist, the certificates in the folder named by `SSL_CERT_DIR` or OpenSSL's
/// default folder.
package enum SystemTrustBundle {
    /// At most this many files are read from a certificate folder (Debian's holds about 300
    /// entries: a link per certificate and one per subject hash).
    package static let maximumFolderEntries = 4_096

    /// The file or folder OpenSSL would read, as a label for reports.
    package static var location: String {
        let file = configured(X509_get_default_cert_file_env(), fallback: X509_get_default_cert_file())
        if FileManager.default.fileExists(atPath: file) { return file }
        return configured(X509_get_default_cert_dir_env(), fallback: X509_get_default_cert_dir())
    }

    /// The system's trusted certificates. A folder's duplicate entries (the subject-hash links
    /// beside each file) are read once.
    package static func certificates() throws -> [Certificate] {
        let path = location
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw APNsCredentialError(.unreadable, "The system CA store (\(path)) does not exist; install the ca-certificates package, or name a bundle.")
        }
        guard isFolder.boolValue else { return try CredentialFile.load(path, passphrases: .none).certificates }
        let entries = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        guard entries.count <= maximumFolderEntries else {
            throw APNsCredentialError(.unreadable, "The system CA folder \(path) holds \(entries.count) entries, more than the \(maximumFolderEntries) apnskit reads; name a bundle file instead.")
        }
        var seen = Set<String>()
        var certificates: [Certificate] = []
        for entry in entries {
            let file = (path as NSString).appendingPathComponent(entry)
            let target = (file as NSString).resolvingSymlinksInPath
            guard seen.insert(target).inserted,
                  let contents = try? CredentialFile.load(file, passphrases: .none) else { continue }
            certificates += contents.certificates
        }
        return certificates
    }

    private static func configured(_ variable: UnsafePointer<CChar>?, fallback: UnsafePointer<CChar>?) -> String {
        if let variable, let value = ProcessInfo.processInfo.environment[String(cString: variable)], !value.isEmpty { return value }
        return fallback.map { String(cString: $0) } ?? ""
    }
}
