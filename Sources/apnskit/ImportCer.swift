// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser

/// `apnskit import-cer`: the portal's DER `.cer` download to PEM, with a summary line.
struct ImportCer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-cer",
        abstract: "Convert the portal's .cer (DER) certificate to PEM.",
        discussion: """
        Examples:
          apnskit import-cer aps_development.cer -o cert.pem
          apnskit import-cer aps.cer -o -
        """
    )

    @Argument(help: ArgumentHelp("The .cer file from Apple (DER; PEM is accepted too).", valueName: "CER"))
    var input: String

    @Option(name: [.short, .customLong("out")], help: ArgumentHelp("Where to write the PEM (- for stdout).", valueName: "PATH"))
    var out: String

    @OptionGroup var common: CommonOptions

    func run() throws {
        common.apply()
        try SecureFileWriter.preflight(out, force: common.force)
        let (certificate, chain) = try IdentityLoader.certificate(input)
        var pem = try certificate.pem()
        for extra in chain { pem += try extra.pem() }
        try SecureFileWriter.write(pem, to: out, sensitivity: .public, force: common.force)
        Summaries.report("Wrote \(Summaries.outputName(out)): \(Summaries.certificate(certificate))", stdoutIsData: out == "-")
    }
}
