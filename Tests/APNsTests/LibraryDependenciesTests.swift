// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Issue 21: a service that depends on the `APNs` library resolves only what the library uses,
/// not the CLI's, the inbox's or the tests' packages (ArgumentParser, Hummingbird, NIO: 26
/// packages before). It turns the default `CommandLineTool` trait off, as the README says.
/// Issue 35: the outbox's postgres-nio (with NIO, NIOSSL, swift-crypto) comes only with the
/// `Outbox` trait, whichever product the service names.
@Suite("A package depending on the APNs library")
struct LibraryDependenciesTests {
    /// The packages `swift package show-dependencies` resolves for a service depending on
    /// `product` with `traits`.
    static func resolved(product: String, traits: [String]) throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let service = try TemporaryDirectory("apnskit-downstream")
        try FileManager.default.createDirectory(atPath: service.file("Sources/PushService"), withIntermediateDirectories: true)
        try """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "PushService",
            platforms: [.macOS(.v13)],
            dependencies: [.package(path: "\(root.path)", traits: [\(traits.map { "\"\($0)\"" }.joined(separator: ", "))])],
            targets: [.executableTarget(name: "PushService", dependencies: [.product(name: "\(product)", package: "\(root.lastPathComponent)")])]
        )
        """.write(toFile: service.file("Package.swift"), atomically: true, encoding: .utf8)
        try "import \(product)\n".write(toFile: service.file("Sources/PushService/main.swift"), atomically: true, encoding: .utf8)

        let run = try ProcessRunner.run("swift", ["package", "--scratch-path", service.file(".build"), "show-dependencies", "--format", "json"],
                                        directory: service.path)
        #expect(run.status == 0, "\(run)")
        let json = try #require(run.stdout.firstIndex(of: "{").map { String(run.stdout[$0...]) }, "\(run)")
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var resolved: Set<String> = []
        func walk(_ node: [String: Any]) {
            for child in node["dependencies"] as? [[String: Any]] ?? [] {
                if let identity = child["identity"] as? String { resolved.insert(identity) }
                walk(child)
            }
        }
        walk(tree)
        resolved.remove(root.lastPathComponent.lowercased())
        return resolved
    }

    static let library: Set = ["swift-log", "swift-metrics", "swift-service-lifecycle", "swift-async-algorithms", "swift-collections"]

    @Test("With traits: [] it resolves swift-log, swift-metrics and swift-service-lifecycle (and their own), nothing of the CLI's", .timeLimit(.minutes(2)))
    func resolvesOnlyTheLibrarysPackages() throws {
        let resolved = try Self.resolved(product: "APNs", traits: [])
        #expect(resolved.isSubset(of: Self.library), "resolved beyond the library's needs: \(resolved.subtracting(Self.library).sorted())")
        #expect(resolved.contains("swift-log") && resolved.contains("swift-metrics"), "\(resolved.sorted())")
        #expect(!resolved.contains("postgres-nio"))
    }

    @Test("APNsOutbox with traits: [] brings no postgres-nio; with traits: [\"Outbox\"] it does (and nothing of the CLI's)", .timeLimit(.minutes(3)))
    func outboxOnlyWithItsTrait() throws {
        let without = try Self.resolved(product: "APNsOutbox", traits: [])
        #expect(without.isSubset(of: Self.library), "APNsOutbox entered with traits: []: \(without.subtracting(Self.library).sorted())")
        let with = try Self.resolved(product: "APNsOutbox", traits: ["Outbox"])
        #expect(with.contains("postgres-nio"), "\(with.sorted())")
        #expect(!with.contains("swift-argument-parser") && !with.contains("hummingbird"), "the CLI's packages came with Outbox: \(with.sorted())")
    }
}
