// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
import APNsTransport
import ArgumentParser
import Foundation

/// Which of Apple's three services a command talks to. `push` and `verify` pick the provider API
/// or, with `--legacy`, the binary gateway; `feedback` always reads the feedback service. The
/// service decides Apple's host, the default port, which ports make sense and the default timeout,
/// so that the same flags mean the same thing in every command.
enum GatewayService {
    case provider, legacy, feedback
    /// Broadcast channel management (apns-protocol.md §8): its own hosts and ports.
    case channels

    /// apns-protocol.md §1, §4 and §5.
    func host(in environment: APNsEnvironment) -> String {
        switch self {
        case .provider: return environment.host
        case .legacy: return environment.legacyHost
        case .feedback: return environment.feedbackHost
        case .channels: return environment.channelManagementHost
        }
    }

    var defaultPort: Int {
        switch self {
        case .provider: return APNsEnvironment.providerPorts[0]
        case .legacy: return APNsEnvironment.legacyPort
        case .feedback: return APNsEnvironment.feedbackPort
        // Sandbox's; production's is chosen in `endpoint(for:)`, which knows the environment.
        case .channels: return APNsEnvironment.sandbox.channelManagementPort
        }
    }

    /// The feedback service streams its list and then closes; a slow start should not cut it off.
    var defaultTimeout: Double { self == .feedback ? 30 : 10 }
}

/// Where a gateway command connects and whom it trusts: `--environment`, `--gateway HOST:PORT`,
/// `--port`, `--ca-file` and `--timeout`, shared by `push`, `verify` and `feedback` so that one
/// input gets one answer (the same sentence, the same exit code) in all three.
struct GatewayOptions: ParsableArguments {
    @Option(help: "APNs environment: sandbox or production.")
    var environment: APNsEnvironment = .sandbox

    @Option(help: ArgumentHelp("Any other endpoint, e.g. a local mock gateway.", valueName: "HOST:PORT"))
    var gateway: String?

    @Option(help: "Port on Apple's host: 443 (default) or 2197 for the HTTP/2 provider API; any port for the legacy gateway (default 2195) and the feedback service (default 2196).")
    var port: Int?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("CA certificates (PEM) to trust instead of the system store.", valueName: "FILE"))
    var caFile: String?

    @Option(help: ArgumentHelp("Reach the gateway through this HTTP proxy (CONNECT): http://[user:password@]host:port. Default: https_proxy / HTTPS_PROXY unless no_proxy / NO_PROXY lists the host, as curl does; --proxy '' connects directly.", valueName: "URL"))
    var proxy: String?

    @Option(help: "Seconds to wait for the connection and its TLS handshake; verify also waits this long for the probe's answer, feedback for each read (default: 10; feedback: 30).")
    var timeout: Double?

    /// Rules that hold whichever service is asked for. ArgumentParser runs this before the
    /// command's own `validate()`, so these sentences win over any command-specific one.
    func validate() throws {
        if let gateway, (try? Endpoint(parsing: gateway)) == nil { throw ValidationError("--gateway \(gateway) is not HOST:PORT (a port from 1 to 65535).") }
        if gateway != nil && port != nil { throw ValidationError("--port applies to Apple's hosts; put the port in --gateway HOST:PORT instead.") }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be between 1 and 65535.") }
        // A day: past any wait that means something, and every conversion to a timer's
        // integer stays in range.
        if let timeout, !(timeout > 0 && timeout <= 86_400) { throw ValidationError("--timeout must be a positive number of seconds, at most 86400.") }
        if let proxy, !proxy.isEmpty {
            do { _ = try HTTPProxy(url: proxy) } catch { throw ValidationError("--proxy: \(error)") }
        } else if proxy == nil {
            // The environment's setting is checked whatever the host: a typo there is a usage error too.
            do { _ = try HTTPProxy.fromEnvironment(for: "") } catch { throw ValidationError("The environment's proxy setting (https_proxy/HTTPS_PROXY): \(error)") }
        }
    }

    /// The proxy for `host`: `--proxy`, else the environment's (validate() checked both parse).
    func proxy(for host: String) -> HTTPProxy? {
        if let proxy { return proxy.isEmpty ? nil : try? HTTPProxy(url: proxy) }
        return (try? HTTPProxy.fromEnvironment(for: host)) ?? nil
    }

    /// The one rule that depends on the service: Apple's provider API listens on 443 and 2197 only,
    /// so any other port there is a typo; the legacy services are often reached through tunnels.
    func validate(for service: GatewayService) throws {
        if service == .provider, let port, !APNsEnvironment.providerPorts.contains(port) {
            throw ValidationError("--port must be \(APNsEnvironment.providerPorts.map(String.init).joined(separator: " or ")).")
        }
    }

    func endpoint(for service: GatewayService) -> Endpoint {
        var endpoint: Endpoint
        if let gateway, let parsed = try? Endpoint(parsing: gateway) {
            endpoint = parsed
        } else if service == .channels, port == nil {
            endpoint = BroadcastRequest.managementEndpoint(environment)
        } else {
            endpoint = Endpoint(host: service.host(in: environment), port: port ?? service.defaultPort)
        }
        endpoint.proxy = proxy(for: endpoint.host)
        return endpoint
    }

    func timeout(for service: GatewayService) -> Double { timeout ?? service.defaultTimeout }

    /// Checked here, before any connection, so a mistyped path is "cannot read" (exit 3) in
    /// every command instead of a TLS failure that looks like the gateway's fault.
    func trust() throws -> TLSConfiguration.Trust {
        guard let caFile else { return .system }
        guard FileManager.default.isReadableFile(atPath: caFile) else {
            throw CommandFailure(message: "Cannot read the CA file \(caFile); check the path.", status: ExitStatus.input)
        }
        // Read it here, before connecting: a file without certificates is bad input (exit 3),
        // not a TLS failure found mid-handshake (exit 4).
        _ = try TrustStore(caFile: caFile)
        return .caFile(caFile)
    }
}

/// `--format` and `--verbose` of the commands that report on a gateway conversation.
struct OutputOptions: ParsableArguments {
    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Flag(help: "On errors, also print OpenSSL's error queue.")
    var verbose = false

    /// Applies process-wide settings; call first in `run()`.
    func apply() { Output.verbose = verbose }
}

extension APNsEnvironment: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
