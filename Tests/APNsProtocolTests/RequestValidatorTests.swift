// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Testing

@Suite("Provider API request rules")
struct RequestValidatorTests {
    let token = String(repeating: "ab", count: 32)
    let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    func check(method: String = "POST", path: String? = nil, headers: [(String, String)] = [], body: [UInt8]? = nil) -> APNsReason? {
        let result = RequestValidator.validate(method: method, path: path ?? "/3/device/\(token)",
                                               headers: headers.map { (name: $0.0, value: $0.1) }, body: body ?? self.body)
        if case .failure(let error) = result { return error.reason }
        return nil
    }

    @Test("A well-formed request passes and its fields are read")
    func valid() throws {
        let result = RequestValidator.validate(method: "POST", path: "/3/device/\(token)", headers: [
            ("apns-id", "123e4567-e89b-12d3-a456-426614174000"), ("apns-priority", "5"), ("apns-expiration", "0"),
            ("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("apns-collapse-id", "c"),
        ].map { (name: $0.0, value: $0.1) }, body: body)
        let request = try result.get()
        #expect(request.token.hex == token)
        #expect(request.priority == .conservePower)
        #expect(request.expiration == 0)
        #expect(request.topic == "com.example.app")
    }

    @Test("Each rule gives APNs' reason")
    func reasons() {
        #expect(check(method: "GET") == .methodNotAllowed)
        #expect(check(path: "/3/device/") == .missingDeviceToken)
        #expect(check(path: "/2/device/\(token)") == .badPath)
        #expect(check(path: "/") == .badPath)
        #expect(check(path: "/3/device/zz\(token)") == .badDeviceToken)
        #expect(check(path: "/3/device/abc") == .badDeviceToken)
        #expect(check(headers: [("apns-id", "not-a-uuid")]) == .badMessageId)
        #expect(check(headers: [("apns-expiration", "soon")]) == .badExpirationDate)
        #expect(check(headers: [("apns-priority", "7")]) == .badPriority)
        #expect(check(headers: [("apns-push-type", "banner")]) == .invalidPushType)
        #expect(check(headers: [("apns-collapse-id", String(repeating: "c", count: 65))]) == .badCollapseId)
        #expect(check(headers: [("apns-collapse-id", String(repeating: "c", count: 64))]) == nil)
        #expect(check(headers: [("apns-topic", "a"), ("apns-topic", "b")]) == .duplicateHeaders)
        #expect(check(body: []) == .payloadEmpty)
        #expect(check(body: Array(repeating: 0x20, count: 4097)) == .payloadTooLarge)
        #expect(check(headers: [("apns-push-type", "voip")], body: Array(repeating: 0x20, count: 5120)) == nil)
        #expect(check(headers: [("apns-push-type", "voip")], body: Array(repeating: 0x20, count: 5121)) == .payloadTooLarge)
    }

    @Test("Statuses and retry classes follow APNs' documentation")
    func classes() {
        #expect(APNsReason.badDeviceToken.status == 400)
        #expect(APNsReason.badCertificateEnvironment.status == 403)
        #expect(APNsReason.unregistered.status == 410)
        #expect(APNsReason.payloadTooLarge.status == 413)
        #expect(APNsReason.tooManyRequests.status == 429)
        #expect(APNsReason.shutdown.status == 503)
        for permanent in [APNsReason.badDeviceToken, .deviceTokenNotForTopic, .forbidden, .expiredToken, .unregistered, .payloadTooLarge] {
            #expect(!permanent.isRetryable)
        }
        #expect(APNsReason.tooManyRequests.isRetryable && APNsReason.serviceUnavailable.isRetryable && APNsReason.internalServerError.isRetryable)
        #expect(APNsReason.unregistered.invalidatesToken && APNsReason.badDeviceToken.invalidatesToken && !APNsReason.tooManyRequests.invalidatesToken)
    }
}
