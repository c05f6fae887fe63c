// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import CLIFormats
import APNsTransport
import ArgumentParser
import Foundation

/// `push`'s token triage (apns-protocol.md §12, docs/push.md "Token triage"): the diagnosis of
/// BadDeviceToken against the other environment, and the companion JSON of `--invalid-tokens`
/// that weighs a 410's timestamp against when the app last registered the token.
struct TokenTriageOptions: ParsableArguments {
    @Flag(name: .customLong("diagnose-tokens"), help: """
        Send each notification APNs answers BadDeviceToken once more, with the same credentials, to the other environment's \
        gateway, to learn whose token it is. APNs has no dry run: where the token is valid there, the notification IS DELIVERED there.
        """)
    var diagnoseTokens = false

    @Option(name: .customLong("diagnose-gateway"), help: ArgumentHelp("With --diagnose-tokens and --gateway: the other environment's endpoint (a second mock gateway). Default: Apple's host of the other environment.", valueName: "HOST:PORT"))
    var diagnoseGateway: String?

    @Option(name: .customLong("diagnose-limit"), help: ArgumentHelp("Tokens --diagnose-tokens tries at most in this run (default 100); later ones are reported as not tried.", valueName: "N"))
    var diagnoseLimit: Int?

    @Option(name: .customLong("invalid-tokens-json"), help: ArgumentHelp("Write one JSON line per token APNs refused for good: when it became invalid, when it was registered, whether it is safe to delete.", valueName: "FILE"))
    var invalidTokensJSON: String?

    @Option(name: .customLong("registered-at"), help: ArgumentHelp("With --token: when the app last registered it (ISO 8601); a 410 older than that does not list it for deletion.", valueName: "TIME"))
    var registeredAt: String?

    static let maximumDiagnoseLimit = 10_000

    func validate(legacy: Bool, usesGateway: Bool, deviceTokens: Bool, singleToken: Bool) throws {
        if !diagnoseTokens && (diagnoseGateway != nil || diagnoseLimit != nil) {
            throw ValidationError("--diagnose-gateway and --diagnose-limit apply with --diagnose-tokens; add it.")
        }
        if diagnoseTokens {
            if legacy { throw ValidationError("--diagnose-tokens works on the HTTP/2 provider API; drop --legacy.") }
            if !deviceTokens { throw ValidationError("--diagnose-tokens applies to device tokens (--token, --tokens), not to --channel or --print-curl.") }
            if usesGateway && diagnoseGateway == nil {
                throw ValidationError("--diagnose-tokens with --gateway needs --diagnose-gateway HOST:PORT, the other environment's endpoint (e.g. a second mock gateway started with the other --environment).")
            }
            if let diagnoseGateway, (try? Endpoint(parsing: diagnoseGateway)) == nil { throw ValidationError("--diagnose-gateway \(diagnoseGateway) is not HOST:PORT (a port from 1 to 65535).") }
            if let diagnoseLimit, !(1...Self.maximumDiagnoseLimit).contains(diagnoseLimit) {
                throw ValidationError("--diagnose-limit must be between 1 and \(Self.maximumDiagnoseLimit).")
            }
        }
        if let registeredAt {
            if !singleToken { throw ValidationError("--registered-at goes with --token; in a --tokens file put the time after each token.") }
            if RegistrationTime.parse(registeredAt) == nil {
                throw ValidationError("--registered-at '\(registeredAt)' is not an ISO 8601 date and time such as 2026-11-20T10:00:00Z.")
            }
        }
    }

    var registrationTime: Date? { registeredAt.flatMap(RegistrationTime.parse) }

    /// Where the diagnosis goes: `--diagnose-gateway`, else Apple's provider host of the other
    /// environment on the same port (apns-protocol.md §1); nil without `--diagnose-tokens`.
    func target(_ gateway: GatewayOptions) -> TokenDiagnoser.Target? {
        guard diagnoseTokens else { return nil }
        let other = gateway.environment.other
        var endpoint = diagnoseGateway.flatMap { try? Endpoint(parsing: $0) }
            ?? Endpoint(host: other.host, port: gateway.port ?? GatewayService.provider.defaultPort)
        endpoint.proxy = gateway.proxy(for: endpoint.host)
        return TokenDiagnoser.Target(endpoint: endpoint, environment: other, limit: diagnoseLimit ?? APNsClient.Configuration.TokenDiagnosis.defaultLimit)
    }
}

/// The words of token triage, for the single-notification line, the companion JSON's
/// `advice` and the summary.
enum TokenTriageText {
    /// "a production token: the app that registered it was built for production (...)".
    static func whose(_ environment: APNsEnvironment?) -> String {
        switch environment {
        case .production?: return "a production token: the app that registered it was built for production (TestFlight, App Store, Ad Hoc or Enterprise)"
        case .sandbox?: return "a sandbox token: the app that registered it was built for development (run from Xcode with a development profile)"
        case nil: return "a token of the other environment"
        }
    }

    /// What the diagnosis found, one sentence, for a BadDeviceToken result.
    static func sentence(for diagnosis: APNsTokenDiagnosis) -> String {
        let other = diagnosis.environment?.rawValue ?? "the other environment"
        let repeated = diagnosis.repeated ? " (tried once, for an earlier line with this token; not sent again)" : ""
        switch diagnosis.verdict {
        case .otherEnvironment:
            var text = "This is \(whose(diagnosis.environment))"
            switch diagnosis.attempt {
            case .delivered?: text += diagnosis.repeated ? "; \(other) accepted it" : "; \(other) accepted it and DELIVERED the notification"
            case .rejected(let status, let reason, _)?: text += "; \(other) knows it but answered \(status) \(reason.rawValue)"
            default: break
            }
            return text + repeated + ". Send its notifications to \(other)."
        case .neither:
            return "Neither environment knows this token (\(other) answered BadDeviceToken too)\(repeated): it is malformed or was never valid; delete it."
        case .undetermined:
            return "Trying \(other) told nothing about the token (\(attemptText(diagnosis.attempt)))\(repeated)."
        case .limitReached:
            return "Not tried against \(other): --diagnose-limit was reached."
        }
    }

    private static func attemptText(_ attempt: APNsSendResult.Outcome?) -> String {
        switch attempt {
        case .rejected(let status, let reason, _)?: return "\(status) \(reason.rawValue)"
        case .failed(let error)?: return error.description
        case .cancelled(let written)?: return written ? "cancelled after it was sent; it may be delivered" : "cancelled before it was sent"
        case .delivered?, nil: return "no answer"
        }
    }

    /// The companion JSON's `advice` for a removal decision.
    static func advice(_ removal: APNsTokenRemoval, _ result: APNsSendResult?) -> String {
        switch removal {
        case .keepForOtherEnvironment(let environment):
            return "This is \(whose(environment)): keep it and send its notifications to \(environment?.rawValue ?? "the other environment")."
        case .keepReregistered(let registered, let unregistered):
            return "The app registered this token again (\(RegistrationTime.text(registered))) after APNs last knew it invalid (\(RegistrationTime.text(unregistered))): keep it."
        case .keepUndetermined(let environment, let mayHaveBeenDelivered):
            let other = environment?.rawValue ?? "the other environment"
            let told = result?.diagnosis.map { sentence(for: $0) + " " } ?? ""
            return told + (mayHaveBeenDelivered
                ? "The notification may have been delivered in \(other), so this may be \(whose(environment)): keep it, and check it again later."
                : "This may be \(whose(environment)): keep it, and check it again later.")
        case .compareRegistration(let unregistered):
            return "APNs last knew this token invalid at \(RegistrationTime.text(unregistered)): delete it only if your app last registered it before then (compare with your own registration time, or give it after the token in --tokens / with --registered-at)."
        case .remove:
            if let diagnosis = result?.diagnosis {
                switch diagnosis.verdict {
                case .otherEnvironment: return "This is \(whose(diagnosis.environment)), but that environment refused it for good too: delete it."
                case .neither: return sentence(for: diagnosis)
                case .undetermined, .limitReached:
                    return "APNs answered BadDeviceToken: delete the token unless you know it is the other environment's. " + sentence(for: diagnosis)
                }
            }
            if let result, case .rejected(_, let reason, let timestamp?) = result.outcome, reason != .badDeviceToken {
                return "APNs last knew this token invalid at \(RegistrationTime.text(timestamp)), not before the app last registered it: delete it."
            }
            return "APNs refused this token for good: delete it."
        }
    }

    /// One companion JSON line for a token APNs refused for good (docs/push.md).
    static func jsonLine(_ result: APNsSendResult, removal: APNsTokenRemoval, registeredAt: Date?) -> [UInt8] {
        var fields: [(String, JSONValue)] = [("index", .int(result.index)), ("token", .string(result.token.hex))]
        if case .rejected(let status, let reason, _) = result.outcome {
            fields.append(("http_status", .int(status)))
            fields.append(("reason", .string(reason.rawValue)))
        }
        if let unregistered = unregisteredAt(removal, result) {
            fields.append(("unregistered_at", .string(RegistrationTime.text(unregistered))))
            fields.append(("unregistered_at_ms", .int(APNsSendResult.milliseconds(unregistered))))
        }
        if let registeredAt { fields.append(("registered_at", .string(RegistrationTime.text(registeredAt)))) }
        fields.append(("safe_to_delete", removal.safeToDelete.map(JSONValue.bool) ?? .null))
        if case .keepForOtherEnvironment(let environment) = removal, let environment { fields.append(("environment", .string(environment.rawValue))) }
        fields.append(("advice", .string(advice(removal, result))))
        return line(fields)
    }

    /// A malformed token from the token file: it can never be delivered.
    static func malformedLine(index: Int, token: String, reason: String) -> [UInt8] {
        line([("index", .int(index)), ("token", .string(token)), ("reason", .string("malformed")), ("safe_to_delete", .bool(true)),
              ("advice", .string("\(reason) It can never be delivered: delete it."))])
    }

    private static func line(_ fields: [(String, JSONValue)]) -> [UInt8] {
        var bytes = JSONValue.object(fields).serialized()
        bytes.append(0x0A)
        return bytes
    }

    /// The 410 timestamp the decision rests on: this environment's, or the other one's when
    /// the diagnosis found the token there, unregistered.
    private static func unregisteredAt(_ removal: APNsTokenRemoval, _ result: APNsSendResult) -> Date? {
        switch removal {
        case .keepReregistered(_, let unregistered), .compareRegistration(let unregistered): return unregistered
        case .keepForOtherEnvironment, .keepUndetermined: return nil
        case .remove:
            if case .rejected(_, let reason, let timestamp) = result.outcome, reason != .badDeviceToken { return timestamp }
            if case .rejected(_, _, let timestamp)? = result.diagnosis?.attempt { return timestamp }
            return nil
        }
    }
}
