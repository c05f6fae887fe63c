// swift-tools-version:6.1
// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
// apnskit: APNs provider credentials on OpenSSL 3 and nghttp2.
import Foundation
import PackageDescription

// What `apnskit --version` prints: the one VERSION file (CHANGELOG.md describes each release)
// and the commit this checkout is at (7 hex digits; "unknown" outside git, as in a source
// tarball). They reach the code as defines of the CBuildInfo target only.
let buildVersion: String = {
    let url = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("VERSION")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    let version = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return version.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil ? version : "0.0.0"
}()
let buildCommit: String = {
    guard let commit = Context.gitInformation?.currentCommit,
          commit.range(of: #"^[0-9a-f]{7,}$"#, options: .regularExpression) != nil else { return "unknown" }
    return String(commit.prefix(7))
}()

let package = Package(
    name: "apnskit",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "apnskit", targets: ["apnskit"]),
        // The library: `import APNs` is all a push service needs.
        .library(name: "APNs", targets: ["APNs"]),
        .library(name: "APNsMock", targets: ["APNsMock"]),
        // Workers draining a PostgreSQL outbox table (docs/outbox.md); its code and postgres-nio
        // are behind the "Outbox" trait.
        .library(name: "APNsOutbox", targets: ["APNsOutbox"]),
    ],
    // The library is one product; the CLI, the mock's web inbox and the test suites need more
    // packages (ArgumentParser, Hummingbird, NIO). They are behind the "CommandLineTool"
    // trait, on by default here; a service that only uses the library turns it off and
    // resolves none of them (README, Libraries):
    //     .package(url: "https://github.com/...apnskit", from: "...", traits: [])
    traits: [
        .trait(name: "CommandLineTool", description: "The apnskit CLI, the mock gateway's web inbox and the test suites."),
        // postgres-nio (and its NIO, NIOSSL and swift-crypto) is resolved and built only with this
        // trait: a service on `APNs` alone with `traits: []` never sees it; one that wants the
        // outbox asks for `traits: ["Outbox"]` (docs/outbox.md).
        .trait(name: "Outbox", description: "The APNsOutbox library (a PostgreSQL outbox drained by apnskit workers, over postgres-nio) and the CLI's outbox commands."),
        .default(enabledTraits: ["CommandLineTool", "Outbox"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The server world's logging and metrics APIs: a host app's bootstrap (swift-log
        // handlers, swift-prometheus) receives the sender's logs and metrics.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // The mock gateway's inbox web UI (APNsMockInbox): HTTP/1.1 and server-sent events.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        // Only for APNsTests: an app importing NIO beside APNs compiles (no name clashes).
        // Hummingbird depends on it already, so it costs no extra build.
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // Graceful shutdown in a server's ServiceGroup: APNsClient is a Service (the APNs target).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Only for the conformance suite's AHCConformance (APNSwift's transport as a third-party
        // client of the mock); Hummingbird's own tests resolve it already. Behind the
        // CommandLineTool trait: a library user with `traits: []` resolves none of it.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        // Hummingbird's HTTP parts (NIOHTTPTypes): the inbox's and responder's connection slots
        // see where a request ends. Hummingbird depends on it already, so it costs no extra build.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        // The PostgreSQL client under APNsOutbox (only with the "Outbox" trait).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // System libraries: module maps over the Debian -dev packages (scripts/setup.sh installs them).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["nghttp2"])]
        ),
        // C wrappers for OpenSSL macros and variadic calls that Swift cannot import.
        .target(name: "CShims", dependencies: ["COpenSSL"]),
        // The version and commit of this build (see buildVersion above), for `apnskit --version`.
        .target(name: "CBuildInfo", cSettings: [.define("APNSKIT_VERSION", to: buildVersion),
                                                .define("APNSKIT_COMMIT", to: buildCommit)]),
        // The one lock primitive (`Locked<Value>`), a one-time event (`Latch`) and the queue the
        // locked states hold (`FIFO`), for every module.
        .target(name: "Synchronized"),
        // OpenSSL wrappers that know no APNs: certificates, keys, PKCS#12, PEM/DER, CSRs, CMS,
        // trust stores, passphrase sources, the TLS identity, and the error type they throw.
        // The transport depends on this and the C modules only.
        .target(name: "OpenSSLCore", dependencies: ["Synchronized", "COpenSSL", "CShims"]),
        // What a program on a terminal needs around credentials: the no-echo passphrase prompt,
        // files written 0600 and atomically, folder locks. The CLI and the mock use it; the
        // library product does not.
        .target(name: "SecureIO", dependencies: ["OpenSSLCore", "CShims"]),
        // Wire-level APNs rules shared by the sender and the mock gateway: environments and
        // their hosts, device tokens, reasons, request validation, payloads, the legacy binary
        // protocol. Pure Swift.
        .target(name: "APNsProtocol", dependencies: ["Synchronized"]),
        // APNs rules over the OpenSSL layer: push certificate kinds, topics and environments,
        // provider tokens (.p8), identity loading, provisioning profiles, credential checks.
        .target(name: "APNsCredentials", dependencies: ["Synchronized", "OpenSSLCore", "APNsProtocol", "COpenSSL", "CShims"]),
        // Event loop, TLS (OpenSSL) and HTTP/2 (nghttp2) in client and server roles.
        .target(name: "APNsTransport", dependencies: ["Synchronized", "OpenSSLCore", "COpenSSL", "CNGHTTP2", "CShims"]),
        // The sender: provider API client (certificate or token auth), batches, legacy protocol.
        .target(name: "APNsSender", dependencies: ["Synchronized", "APNsProtocol", "APNsCredentials", "OpenSSLCore", "APNsTransport",
                                                   .product(name: "Logging", package: "swift-log"),
                                                   .product(name: "Metrics", package: "swift-metrics")]),
        // The CLI's batch file formats: `--tokens` lines in (`LineReader`, `BatchLine`) and
        // `--results` JSON lines out. Not in the library product; its own module because the
        // fuzz harness parses the same lines without building the CLI.
        .target(name: "CLIFormats", dependencies: ["APNsProtocol", "APNsSender"]),
        // The umbrella a push service imports: re-exports the public API of the three below.
        .target(name: "APNs", dependencies: ["APNsCredentials", "APNsProtocol", "APNsSender",
                                             .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        // Outbox workers: claim rows of a PostgreSQL table with SKIP LOCKED leases, send them through
        // an APNsClient, write results back in batches (docs/outbox.md). Empty without "Outbox".
        .target(name: "APNsOutbox", dependencies: ["Synchronized", "APNs", "APNsProtocol", "APNsSender", "OpenSSLCore",
                                                   .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Outbox"])),
                                                   .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                   .product(name: "Logging", package: "swift-log")]),
        // Test CA issuing Apple-like push certificates, and the local mock gateway.
        // APNsSender for `APNsMockGateway.configuration`, an `APNsClient.Configuration`.
        .target(name: "APNsMock", dependencies: ["Synchronized", "APNsCredentials", "OpenSSLCore", "SecureIO", "APNsProtocol", "APNsTransport", "APNsSender", "COpenSSL", "CShims"]),
        // The mock's inbox: a bounded store of answered requests, its JSON API, live events and
        // web page on Hummingbird. Only the CLI depends on it: APNsMock stays free of NIO, and
        // the ASan build of the fuzz pass never compiles NIO or Hummingbird.
        .target(name: "APNsMockInbox", dependencies: ["Synchronized", "APNsMock", "APNsProtocol", "APNsTransport",
                                                      .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["CommandLineTool"])),
                                                      .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["CommandLineTool"])),
                                                      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["CommandLineTool"])),
                                                      .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["CommandLineTool"]))]),
        .executableTarget(
            name: "apnskit",
            dependencies: [
                "CBuildInfo",
                "Synchronized",
                "APNsCredentials",
                "OpenSSLCore",
                "SecureIO",
                "APNsProtocol",
                "APNsTransport",
                "APNsSender",
                "CLIFormats",
                "APNsMock",
                "APNsMockInbox",
                .target(name: "APNsOutbox", condition: .when(traits: ["Outbox"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CommandLineTool"])),
            ]
        ),
        // The README's long-running example (APNsClient with async/await, swift-log and
        // swift-metrics); LibraryPathTests builds it, runs it against the mock and checks the
        // README shows this very code.
        .executableTarget(
            name: "PushWorker",
            dependencies: ["APNs",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "Metrics", package: "swift-metrics")],
            path: "Examples/PushWorker"
        ),
        // The README's server example: a Hummingbird app sending through one shared APNsClient,
        // both in one ServiceGroup; LifecycleTests builds it and runs it against APNsMockGateway.
        .executableTarget(
            name: "HummingbirdPush",
            dependencies: ["APNs",
                           .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["CommandLineTool"])),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "Logging", package: "swift-log")],
            path: "Examples/HummingbirdPush"
        ),
        // Fuzz harnesses for every input parser, shared by the libFuzzer executable and the
        // deterministic pass in HardeningTests (issue 7).
        .target(name: "APNsFuzzHarness", dependencies: ["APNsCredentials", "OpenSSLCore", "APNsProtocol", "APNsTransport", "APNsSender", "CLIFormats", "APNsMock", "COpenSSL"]),
        // The same fuzz pass as a plain executable: scripts/test.sh builds only this product
        // under AddressSanitizer (the libraries, not the CLI or the test bundle).
        .executableTarget(name: "APNsFuzzPass", dependencies: ["APNsFuzzHarness"]),
        // async-http-client against the mock for scripts/conformance/mock_conformance.py: a test
        // executable that no product depends on (ConformanceTests runs it).
        .executableTarget(
            name: "AHCConformance",
            dependencies: [.product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["CommandLineTool"])),
                           .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLineTool"])),
                           .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["CommandLineTool"]))],
            path: "Tests/AHCConformance"
        ),
        // Shared test helpers: child processes (openssl, apnskit), temporary folders, fixtures.
        .target(name: "TestSupport", dependencies: ["CTestSpawn", .product(name: "Logging", package: "swift-log")], path: "Tests/TestSupport"),
        // glibc's GNU posix_spawn extensions for TestSupport's SpawnedProcess.
        .target(name: "CTestSpawn", path: "Tests/CTestSpawn"),
        // Fixtures only OpenSSL's C API can make (crafted PKCS#12 layouts), for HardeningTests.
        .target(name: "CTestFixtures", dependencies: ["COpenSSL"], path: "Tests/CTestFixtures"),
        // The library as a user sees it: `import APNs` only (plus NIO, to prove the names do not clash).
        .testTarget(name: "APNsTests", dependencies: ["APNs", "TestSupport", .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLineTool"]))]),
        .testTarget(name: "APNsCredentialsTests", dependencies: ["APNsCredentials", "OpenSSLCore", "SecureIO", "TestSupport"]),
        .testTarget(name: "APNsProtocolTests", dependencies: ["APNsProtocol"]),
        .testTarget(name: "SynchronizedTests", dependencies: ["Synchronized"]),
        // Peers and fixtures the transport's tests and the network CLI tests share: certificates made
        // by the openssl CLI, nghttpd and openssl s_server, python legacy-protocol peers.
        .target(name: "TransportTestSupport", dependencies: ["APNsTransport", "APNsCredentials", "OpenSSLCore", "TestSupport"], path: "Tests/TransportTestSupport"),
        .testTarget(name: "APNsTransportTests", dependencies: ["OpenSSLCore", "APNsTransport", "APNsCredentials", "APNsSender", "TestSupport", "TransportTestSupport"]),
        // CLI end-to-end tests of verify and push (HTTP/2 and legacy) against third-party peers.
        .testTarget(name: "NetworkCLITests", dependencies: ["OpenSSLCore", "apnskit", "APNsTransport", "APNsCredentials", "TestSupport", "TransportTestSupport"]),
        .testTarget(name: "APNsSenderTests", dependencies: ["OpenSSLCore", "APNsSender", "APNsProtocol", "APNsTransport", "APNsCredentials", "TestSupport",
                                                            .product(name: "Logging", package: "swift-log"),
                                                            .product(name: "Metrics", package: "swift-metrics"),
                                                            .product(name: "MetricsTestKit", package: "swift-metrics")]),
        // The CLI's file formats: token lines read in chunks and parsed, result lines written.
        .testTarget(name: "CLIFormatsTests", dependencies: ["CLIFormats", "APNsSender", "APNsProtocol", "TestSupport"]),
        .testTarget(name: "APNsMockTests", dependencies: ["OpenSSLCore", "APNsMock", "APNsCredentials", "APNsProtocol", "APNsTransport", "APNsSender", "TestSupport",
                                                          "PushWorker", "APNs", "HummingbirdPush",
                                                          .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                          .product(name: "MetricsTestKit", package: "swift-metrics")]),
        // CLI end-to-end tests for inspect/check/mock: run the built apnskit binary.
        .testTarget(name: "InspectCheckTests", dependencies: ["OpenSSLCore", "apnskit", "APNsMock", "APNsCredentials", "TestSupport"],
                    exclude: ["Schemas"]),
        // The outbox's rules without a database, and the worker in a ServiceGroup against PostgreSQL
        // and the in-process mock (the fleet tests are CLI tests in apnskitTests).
        .testTarget(name: "APNsOutboxTests", dependencies: ["APNsOutbox", "APNs", "APNsSender", "APNsProtocol", "APNsMock", "TestSupport",
                                                            .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Outbox"])),
                                                            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                            .product(name: "Logging", package: "swift-log")]),
        // CLI end-to-end tests; the mock inbox's (issue 16) also test its store in-process.
        .testTarget(name: "apnskitTests", dependencies: ["apnskit", "APNsCredentials", "TestSupport", "APNsMock", "APNsMockInbox"]),
        // Issue 7: the fuzz harnesses over fixed-seed mutations, secrets, resource bounds.
        .testTarget(name: "HardeningTests", dependencies: ["OpenSSLCore", "APNsFuzzHarness", "apnskit", "APNsCredentials", "APNsProtocol", "APNsSender", "CLIFormats",
                                                           "APNsTransport", "APNsMock", "TestSupport", "CTestFixtures"]),
    ]
)

// The libFuzzer executable calls LLVMFuzzerRunDriver from libFuzzer's runtime, so it links only
// with -sanitize=fuzzer; it is declared only when scripts/fuzz.sh asks for it (APNSKIT_FUZZ=1),
// keeping plain `swift build` / `swift test` unaffected.
if Context.environment["APNSKIT_FUZZ"] != nil {
    package.targets.append(.executableTarget(name: "APNsFuzz", dependencies: ["APNsFuzzHarness"]))
    package.products.append(.executable(name: "APNsFuzz", targets: ["APNsFuzz"]))
}
