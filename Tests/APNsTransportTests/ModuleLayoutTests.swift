// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Issue 23, item 5: the transport is built on the OpenSSL wrappers alone, not on the APNs
/// rules, provisioning profiles, terminal prompt or file writer that once shared a module with
/// them. Read from SwiftPM's own view of the manifest (`swift package dump-package`), so a
/// dependency added in Package.swift fails here, whatever the sources import.
@Suite("Module layout: what the transport and the library are built on")
struct ModuleLayoutTests {
    /// Every target of this package that `target` depends on, directly or through another.
    static func closure(of target: String, in dependencies: [String: [String]]) -> Set<String> {
        var seen: Set<String> = []
        var pending = dependencies[target] ?? []
        while let next = pending.popLast() {
            if seen.insert(next).inserted { pending += dependencies[next] ?? [] }
        }
        return seen
    }

    /// Target name to the names of the package's own targets it depends on (products of other
    /// packages are left out: they are not ours to layer).
    static func targetDependencies() async throws -> (targets: [String: [String]], products: [String: [String]]) {
        let scratch = try TemporaryDirectory("apnskit-manifest")
        let run = try await ProcessRunner.run("swift", ["package", "--scratch-path", scratch.path, "dump-package"],
                                              directory: Binaries.packageRoot)
        #expect(run.status == 0, "\(run)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: Any], "\(run)")
        var targets: [String: [String]] = [:]
        for target in manifest["targets"] as? [[String: Any]] ?? [] {
            guard let name = target["name"] as? String else { continue }
            targets[name] = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                ((dependency["byName"] ?? dependency["target"]) as? [Any])?.first as? String
            }
        }
        var products: [String: [String]] = [:]
        for product in manifest["products"] as? [[String: Any]] ?? [] {
            if let name = product["name"] as? String { products[name] = product["targets"] as? [String] ?? [] }
        }
        return (targets, products)
    }

    @Test("APNsTransport depends on OpenSSLCore, the Synchronized lock primitive and the C modules only; OpenSSLCore on the C modules and Synchronized only")
    func transportIsBuiltOnTheOpenSSLLayerOnly() async throws {
        let (targets, _) = try await Self.targetDependencies()
        #expect(targets["APNsTransport"] != nil && targets["OpenSSLCore"] != nil, "\(targets.keys.sorted())")
        #expect(Self.closure(of: "APNsTransport", in: targets) == ["OpenSSLCore", "Synchronized", "COpenSSL", "CNGHTTP2", "CShims"])
        #expect(Self.closure(of: "OpenSSLCore", in: targets) == ["COpenSSL", "CShims", "Synchronized"])
    }

    @Test("The APNs library product holds no terminal prompt or file writer (SecureIO is the CLI's and the mock's), nor the CLI's file formats")
    func libraryLeavesOutThePromptAndTheFileWriter() async throws {
        let (targets, products) = try await Self.targetDependencies()
        let library = try #require(products["APNs"], "\(products.keys.sorted())")
        let built = library.reduce(into: Set(library)) { $0.formUnion(Self.closure(of: $1, in: targets)) }
        #expect(built.contains("APNsCredentials") && built.contains("OpenSSLCore"), "\(built.sorted())")
        #expect(!built.contains("SecureIO"), "\(built.sorted())")
        // Issue 32: `--tokens` and `--results` lines are the CLI's (and its fuzz harness'), not a library user's.
        #expect(!built.contains("CLIFormats") && !Self.closure(of: "APNsMock", in: targets).contains("CLIFormats"), "\(built.sorted())")
        #expect(Self.closure(of: "apnskit", in: targets).contains("CLIFormats"))
        #expect(Self.closure(of: "apnskit", in: targets).contains("SecureIO"))
        #expect(Self.closure(of: "APNsMock", in: targets).contains("SecureIO"))
    }
}
