// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import APNsMock
import APNsMockInbox
import ArgumentParser
import Foundation
import OpenSSLCore

/// `mock serve`'s revocation service: started when the CA folder names a revocation URL
/// (`mock ca --revocation-url`), on that URL's host and port.
struct RevocationServeOptions: ParsableArguments {
    @Option(name: .customLong("revocation-fault"),
            help: ArgumentHelp("Make the OCSP and CRL answers unusable, for clients' tests: stale (next update in the past), future (dated a year ahead), wrong-signer (signed by another key), ocsp-unknown (OCSP knows no certificate; the CRL as usual) or http-500 (every request answered 500).", valueName: "FAULT"))
    var fault: String?

    func validate() throws {
        if let fault, MockRevocation.Fault(rawValue: fault) == nil {
            throw ValidationError("--revocation-fault must be \(MockRevocation.Fault.allCases.map(\.rawValue).joined(separator: " or ")).")
        }
    }

    /// The server, or nil when the CA folder names no revocation URL; a bind failure is exit 4.
    func start(caFolder: String, authority: MockCA) async throws -> (server: RevocationServer, url: String)? {
        guard let url = try MockRevocationURL.read(folder: caFolder) else {
            if fault != nil { Output.warning("--revocation-fault has no effect: \(caFolder) names no revocation URL (mock ca --revocation-url).") }
            return nil
        }
        let address: (host: String, port: Int)
        do { address = try MockRevocationURL.listenAddress(url) } catch {
            throw CommandFailure(message: "\(caFolder)/\(MockRevocationURL.fileName) holds '\(ControlCharacters.hexEscaped(HTTPProxy.redacted(url)))', which \(error); make the CA again with mock ca --revocation-url.",
                                 status: ExitStatus.input)
        }
        let revocation = MockRevocation(ca: authority, folder: caFolder, fault: fault.flatMap(MockRevocation.Fault.init(rawValue:)))
        do {
            return (try await RevocationServer.start(revocation: revocation, host: address.host, port: address.port), url)
        } catch let error as HTTPService.StartError {
            throw CommandFailure(message: "Cannot serve revocation answers on \(error.host):\(error.port) (the CA's revocation URL \(url)): \(error.underlying); stop what uses that port, or make a CA with another --revocation-url.",
                                 status: ExitStatus.network)
        }
    }
}
