// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Issue 21: a service that depends on the `APNs` library resolves only what the library uses,
/// not the CLI's, the inbox's or the tests' packages (ArgumentParser, Hummingbird, NIO: 26
/// packages before). It turns the default `CommandLineTool` trait off, as the README says.
@Suite("A package depending on the APNs library")
struct LibraryDependenciesTests {
    @Test("With traits: [] it resolves swift-log, swift-metrics and swift-service-lifecycle (and their own), nothing of the CLI's", .timeLimit(.minutes(2)))
    func resolvesOnlyTheLibrarysPackages() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let service = try TemporaryDirectory("apnskit-downstream")
        try FileManager.default.createDirectory(atPath: service.file("Sources/PushService"), withIntermediateDirectories: true)
        try """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "PushService",
            platforms: [.macOS(.v13)],
            dependencies: [.package(path: "\(root.path)", traits: [])],
            targets: [.executableTarget(name: "PushService", dependencies: [.product(name: "APNs", package: "\(root.lastPathComponent)")])]
        )
        """.write(toFile: service.file("Package.swift"), atomically: true, encoding: .utf8)
        try "import APNs\n".write(toFile: service.file("Sources/PushService/main.swift"), atomically: true, encoding: .utf8)

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
        let library: Set = ["swift-log", "swift-metrics", "swift-service-lifecycle", "swift-async-algorithms", "swift-collections"]
        #expect(resolved.isSubset(of: library), "resolved beyond the library's needs: \(resolved.subtracting(library).sorted())")
        #expect(resolved.contains("swift-log") && resolved.contains("swift-metrics"), "\(resolved.sorted())")
    }
}
