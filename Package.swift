// swift-tools-version:6.0
// apnskit: APNs provider credentials on OpenSSL 3 and nghttp2.
import PackageDescription

let package = Package(
    name: "apnskit",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "apnskit", targets: ["apnskit"]),
        .library(name: "APNsCredentials", targets: ["APNsCredentials"]),
        .library(name: "APNsTransport", targets: ["APNsTransport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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
        .target(name: "CAPNsShims", dependencies: ["COpenSSL"]),
        .target(name: "APNsCredentials", dependencies: ["COpenSSL", "CAPNsShims"]),
        // Event loop, TLS (OpenSSL) and HTTP/2 (nghttp2) in client and server roles.
        .target(name: "APNsTransport", dependencies: ["APNsCredentials", "COpenSSL", "CNGHTTP2", "CAPNsShims"]),
        .executableTarget(
            name: "apnskit",
            dependencies: [
                "APNsCredentials",
                "APNsTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "APNsCredentialsTests", dependencies: ["APNsCredentials"]),
        .testTarget(name: "apnskitTests", dependencies: ["apnskit", "APNsCredentials"]),
        .testTarget(name: "APNsTransportTests", dependencies: ["APNsTransport", "APNsCredentials"]),
    ]
)
