// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// An advisory lock (`flock(2)`) on a folder, for check-then-create steps that several
/// processes may run at once on the same folder (two `apnskit mock issue --profile` runs
/// making the CA folder's profile signer: without it, the second could see the first's key
/// file but not yet its certificate).
package enum FolderLock {
    /// Runs `body` while holding an exclusive lock on `folder`; the lock ends with the
    /// descriptor, so a crash inside `body` never leaves it held.
    package static func withExclusiveLock<T>(on folder: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CredentialError(.unreadable, "\(folder) cannot be opened (\(String(cString: strerror(errno)))); check that the folder exists and is readable.")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw CredentialError(.internalFailure, "\(folder) cannot be locked (\(String(cString: strerror(errno)))); retry, or check the file system supports flock.")
            }
        }
        return try body()
    }
}
