// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore

/// The CLI's wording of a library error: the library's sentence (which file, what is wrong)
/// plus the flag that fixes it, which only the CLI knows (`APNsCredentialError.remedy`/`option`).
enum CredentialErrorText {
    static func sentence(_ error: APNsCredentialError) -> String {
        guard let hint = hint(error) else { return error.message }
        return error.message + " " + hint
    }

    /// The hint for an inspect/check report's error (which carries the error's kind only).
    static func sentence(report error: String, kind: String?) -> String {
        switch kind.flatMap(APNsCredentialError.Kind.init(rawValue:)) {
        case .wrongPassphrase?: return error + " Check the value given to --passin."
        case .missingPassphrase?: return error + " Pass --passin env:VAR, file:PATH, fd:N, stdin or pass:TEXT."
        default: return error
        }
    }

    static func hint(_ error: APNsCredentialError) -> String? {
        switch error.remedy {
        case .passphrase?:
            let option = error.option ?? "--passin"
            return error.kind == .wrongPassphrase
                ? "Check the value given to \(option)."
                : "Pass \(option) env:VAR, file:PATH, fd:N, stdin or pass:TEXT."
        case .replaceOutput?:
            return "Pass --force to replace it."
        case .keyID?:
            return "Pass --key-id."
        case .identityChoice?:
            return "Pick one with --identity N (its number) or --identity NAME (its friendlyName or common name)."
        case nil:
            return nil
        }
    }
}
