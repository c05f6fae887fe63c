// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import CLIFormats
import Foundation
import Testing

/// The `--results` line of `apnskit push` (docs/push.md), made from a result's typed fields:
/// the word for each outcome, the fields a rejection, a failure and a cancel add, and the
/// token diagnosis' object.
@Suite("--results lines: one JSON line per result")
struct ResultLineTests {
    static let token = try! APNsDeviceToken(parsing: String(repeating: "ab", count: 32))

    func line(_ outcome: APNsSendResult.Outcome, attempts: Int = 1, possiblyDuplicated: Bool = false,
              diagnosis: APNsTokenDiagnosis? = nil) -> String {
        let result = APNsSendResult(index: 3, token: Self.token, apnsIDText: "id", outcome: outcome, attempts: attempts,
                                    possiblyDuplicated: possiblyDuplicated, diagnosis: diagnosis)
        return String(decoding: result.jsonLine(), as: UTF8.self)
    }

    @Test("A delivered result: the whole line, fields in order, one newline at the end")
    func delivered() {
        let hex = String(repeating: "ab", count: 32)
        #expect(line(.delivered) == #"{"index":3,"token":"\#(hex)","apns_id":"id","status":"delivered","http_status":200,"attempts":1}"# + "\n")
    }

    @Test("A rejection carries status, reason and the 410's timestamp in milliseconds")
    func rejected() {
        let text = line(.rejected(status: 410, reason: .unregistered, timestamp: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(text.contains(#""status":"rejected","http_status":410,"reason":"Unregistered","timestamp_ms":1700000000000,"attempts":1}"#), "\(text)")
        #expect(!text.contains("may_have_been_delivered"), "\(text)")
    }

    @Test("A rejection after an attempt lost in flight says a resend may notify twice")
    func rejectedAfterALostAttempt() {
        let text = line(.rejected(status: 503, reason: .serviceUnavailable, timestamp: nil), attempts: 4, possiblyDuplicated: true)
        #expect(text.contains(#""attempts":4,"possibly_duplicated":true,"may_have_been_delivered":true}"#), "\(text)")
    }

    @Test("A failure carries its sentence, its code and whether APNs may have it")
    func failed() {
        let text = line(.failed(APNsSendError(.gatewayUnreachable, "Cannot reach the gateway.", mayHaveBeenDelivered: true)))
        #expect(text.contains(#""status":"failed","error":"Cannot reach the gateway.","error_code":"gatewayUnreachable","may_have_been_delivered":true"#), "\(text)")
    }

    @Test("A cancel is 'cancelled' once written (APNs may have it), 'not_sent' before")
    func cancelled() {
        #expect(line(.cancelled(written: true)).contains(#""status":"cancelled","may_have_been_delivered":true"#))
        #expect(line(.cancelled(written: false)).contains(#""status":"not_sent","may_have_been_delivered":false"#))
    }

    @Test("A BadDeviceToken delivered in the other environment: the diagnosis object, and a resend may notify twice")
    func diagnosis() {
        let delivered = APNsTokenDiagnosis(verdict: .otherEnvironment, environment: .production, attempt: .delivered, attemptID: "other")
        let text = line(.rejected(status: 400, reason: .badDeviceToken, timestamp: nil), diagnosis: delivered)
        #expect(text.contains(#""may_have_been_delivered":true,"diagnosis":{"verdict":"other_environment","environment":"production","delivered":true,"http_status":200,"apns_id":"other"}"#), "\(text)")
        let limit = APNsTokenDiagnosis(verdict: .limitReached, environment: .production, attempt: nil, attemptID: nil, repeated: true)
        let notTried = line(.rejected(status: 400, reason: .badDeviceToken, timestamp: nil), diagnosis: limit)
        #expect(notTried.contains(#""diagnosis":{"verdict":"limit_reached","environment":"production","repeated":true}}"#), "\(notTried)")
    }
}
