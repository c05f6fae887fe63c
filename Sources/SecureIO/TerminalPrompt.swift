// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import CShims
import Foundation

/// Reads a line from the controlling terminal with echo off, the way `openssl` and `ssh` ask
/// for passphrases: the prompt goes to /dev/tty, never to stdout, so piped output stays clean.
package enum TerminalPrompt {
    package static func read(prompt: String, confirm: String? = nil) -> Passphrase? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let first = readHidden(fd: fd, prompt: prompt) else { return nil }
        if let confirm {
            guard let second = readHidden(fd: fd, prompt: confirm), second == first else {
                _ = "Passphrases do not match.\n".withCString { write(fd, $0, strlen($0)) }
                return nil
            }
        }
        return Passphrase(bytes: first)
    }

    private static func readHidden(fd: Int32, prompt: String) -> [UInt8]? {
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        // Echo off, and back on even if a signal ends the process at the prompt (Ctrl-C).
        let haveTermios = shim_tty_echo_off(fd) == 0
        defer {
            if haveTermios { shim_tty_restore() }
            _ = "\n".withCString { write(fd, $0, 1) }
        }
        return try? PassphraseSource.readLine(fd: fd, what: "the terminal")
    }
}
