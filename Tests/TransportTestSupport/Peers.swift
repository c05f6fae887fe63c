// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// Starting the external peers tests talk to, each on a fresh loopback port.
package enum Peers {
    /// `nghttpd` serving the fixtures' docroot over TLS with `cert`/`key`.
    package static func nghttpd(cert: String, key: String) async throws -> (BackgroundProcess, Int) {
        let server = try await BackgroundProcess.serving(tool("nghttpd")) { port in
            ["--address=127.0.0.1", "-d", Fixtures.shared.docroot, String(port), key, cert]
        }
        return (server, server.port)
    }

    /// `openssl s_server` with `extra` flags (e.g. `-tls1`, `-alpn h2`).
    package static func sServer(cert: String, key: String, extra: [String] = []) async throws -> (BackgroundProcess, Int) {
        let server = try await BackgroundProcess.serving(tool("openssl"), keepStdinOpen: true) { port in
            ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-naccept", "4"] + extra
        }
        return (server, server.port)
    }
}
