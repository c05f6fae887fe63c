// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNs
import Foundation
import NIOCore
import Testing
import TestSupport

/// Issue 21: a push service needs one import, and its names are the library's own. This file
/// imports NIO beside APNs and uses NIO's `EventLoop` unqualified: it compiles only while APNs
/// exports no `EventLoop`. The symbol-graph test checks every public name of the three
/// re-exported modules, which also covers NIOSSL's `TLSConfiguration` and swift-certificates'
/// `Certificate` and `PrivateKey` without building BoringSSL into the test run.
@Suite("One import, names of its own")
struct OneImportTests {
    @Test("A file importing NIOCore and APNs uses EventLoop and the client unqualified")
    func noClashWithNIO() {
        let loop: (any EventLoop)? = nil
        let configuration = APNsClient.Configuration(gateway: .sandbox, authentication: .token(Self.signer()))
        #expect(loop == nil && configuration.pool.connections == 1)
    }

    static func signer() -> APNsTokenSigner {
        // A throwaway P-256 key made by the openssl CLI, only to build a configuration value.
        let pem = try! Binaries.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]).stdout
        return try! APNsTokenSigner(authKeyPEM: pem, keyID: "ABC123DEFG", teamID: "TEAM123456")
    }

    /// Every public top-level symbol of the modules `APNs` re-exports, read from the compiler's
    /// symbol graph (`swift-symbolgraph-extract`, the tool DocC uses).
    @Test("Every public type, protocol and extension of the library is APNs-prefixed; none shadows NIO, NIOSSL or swift-certificates")
    func publicNamesArePrefixed() throws {
        let build = URL(fileURLWithPath: Binaries.apnskit).deletingLastPathComponent()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let output = try TemporaryDirectory("apnskit-symbols")
        let shims = try #require(FileManager.default.enumerator(atPath: build.path)?.compactMap { $0 as? String }
            .first { $0.hasSuffix("CShims.build/module.modulemap") })
        var names: Set<String> = []
        for module in ["APNsCredentials", "APNsProtocol", "APNsSender", "APNs"] {
            let run = try ProcessRunner.run("swift-symbolgraph-extract", [
                "-module-name", module, "-I", build.appendingPathComponent("Modules").path, "-target", "x86_64-unknown-linux-gnu",
                "-output-dir", output.path, "-minimum-access-level", "public",
                "-Xcc", "-fmodule-map-file=\(root.path)/Sources/COpenSSL/module.modulemap",
                "-Xcc", "-fmodule-map-file=\(root.path)/Sources/CNGHTTP2/module.modulemap",
                "-Xcc", "-fmodule-map-file=\(build.appendingPathComponent(shims).path)",
            ])
            #expect(run.status == 0, "\(run)")
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: output.path) where file.hasSuffix(".symbols.json") {
            let graph = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output.file(file)))) as? [String: Any])
            for symbol in graph["symbols"] as? [[String: Any]] ?? [] {
                if let first = (symbol["pathComponents"] as? [String])?.first { names.insert(first) }
            }
        }
        #expect(names.contains("APNsClient") && names.contains("APNsSendResult") && names.contains("APNsIdentity"), "\(names.sorted())")
        let foreign = names.filter { !$0.hasPrefix("APNs") }
        #expect(foreign.isEmpty, "public names without the APNs prefix: \(foreign.sorted())")
        for clash in ["EventLoop", "TLSConfiguration", "Certificate", "PrivateKey", "PublicKey", "Endpoint", "HTTP2Client"] {
            #expect(!names.contains(clash))
        }
    }
}
