// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender

// The `--results` JSON line of `apnskit push` (fields documented in docs/push.md): the CLI's
// file format, made from a result's typed fields. A library user reads those fields
// (`outcome`, `mayHaveBeenDelivered`, `diagnosis`) and writes whatever its own store wants.

extension APNsSendResult {
    /// One JSON line for `--results`, newline included.
    package func jsonLine() -> [UInt8] {
        var fields: [(String, JSONValue)] = [
            ("index", .int(index)), ("token", .string(token.hex)), ("apns_id", .string(apnsIDText)),
            ("status", .string(statusWord)),
        ]
        Self.appendOutcomeFields(outcome, to: &fields)
        if let uniqueIDText { fields.append(("apns_unique_id", .string(uniqueIDText))) }
        fields.append(("attempts", .int(attempts)))
        if possiblyDuplicated { fields.append(("possibly_duplicated", .bool(true))) }
        // A rejection after an attempt lost in flight, or delivered in the other environment
        // (the diagnosis): a resend may notify twice.
        if case .rejected = outcome, mayHaveBeenDelivered { fields.append(("may_have_been_delivered", .bool(true))) }
        if let diagnosis { fields.append(("diagnosis", diagnosis.json)) }
        var bytes = JSONValue.object(fields).serialized()
        bytes.append(0x0A)
        return bytes
    }

    /// The `status` word: the outcome's case, with a cancel split by whether APNs may have it.
    private var statusWord: String {
        switch outcome {
        case .delivered: return "delivered"
        case .rejected: return "rejected"
        case .failed: return "failed"
        case .cancelled(let written): return written ? "cancelled" : "not_sent"
        }
    }

    /// An outcome's fields in a `--results` line (and in its `diagnosis` object).
    fileprivate static func appendOutcomeFields(_ outcome: Outcome, to fields: inout [(String, JSONValue)]) {
        switch outcome {
        case .delivered:
            fields.append(("http_status", .int(200)))
        case .rejected(let status, let reason, let timestamp):
            fields.append(("http_status", .int(status)))
            fields.append(("reason", .string(reason.rawValue)))
            if let timestamp { fields.append(("timestamp_ms", .int(milliseconds(timestamp)))) }
        case .failed(let error):
            fields.append(("error", .string(error.description)))
            fields.append(("error_code", .string(error.code.description)))
            fields.append(("may_have_been_delivered", .bool(error.mayHaveBeenDelivered)))
        case .cancelled(let written):
            fields.append(("may_have_been_delivered", .bool(written)))
        }
    }
}

extension APNsTokenDiagnosis {
    /// The `diagnosis` object of a `--results` line.
    fileprivate var json: JSONValue {
        var fields: [(String, JSONValue)] = [("verdict", .string(verdictWord))]
        if let environment { fields.append(("environment", .string(environment.rawValue))) }
        if let attempt {
            fields.append(("delivered", .bool(deliveredInOtherEnvironment)))
            APNsSendResult.appendOutcomeFields(attempt, to: &fields)
        }
        if let attemptID { fields.append(("apns_id", .string(attemptID))) }
        if repeated { fields.append(("repeated", .bool(true))) }
        return .object(fields)
    }

    /// The `verdict` word of the `diagnosis` object.
    private var verdictWord: String {
        switch verdict {
        case .otherEnvironment: return "other_environment"
        case .neither: return "neither"
        case .undetermined: return "undetermined"
        case .limitReached: return "limit_reached"
        }
    }
}
