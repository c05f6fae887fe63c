// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The app's own keys beside `aps` (`APNsAlertPayload.custom`, `APNsBackgroundPayload.custom`).
/// They are merged into the same top-level object as `aps`, which only works for a value that
/// encodes as a keyed container and does not use `aps` itself; `check` proves both before the
/// payload is encoded, so a wrong value is a typed error instead of a broken payload.
enum APNsAppKeys {
    enum RootKeys: String, CodingKey { case aps }

    static func encode(aps: some Encodable, custom: (any Encodable & Sendable)?, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RootKeys.self)
        try container.encode(aps, forKey: .aps)
        try custom?.encode(to: encoder)
    }

    static func check(_ custom: any Encodable & Sendable, with encoder: JSONEncoder, pushType: APNsPushType) throws(APNsPayloadError) {
        let data: Data
        do {
            data = try encoder.encode(custom)
        } catch {
            throw APNsPayloadError(.encodingFailed, "The \(pushType.rawValue) payload's custom keys could not be encoded as JSON: \(error).")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw APNsPayloadError(.invalidValue, "The \(pushType.rawValue) payload's custom value must encode as a JSON object (a struct or a dictionary): its keys go beside aps.")
        }
        if object["aps"] != nil {
            throw APNsPayloadError(.invalidValue, "The \(pushType.rawValue) payload's custom value has a key named aps; that key is Apple's: rename it.")
        }
    }
}

/// A payload that carries app keys beside `aps`, checked by `APNsPayload.encoded(with:)`.
protocol APNsCarriesAppKeys {
    var custom: (any Encodable & Sendable)? { get }
}

extension APNsAlertPayload: APNsCarriesAppKeys {}
extension APNsBackgroundPayload: APNsCarriesAppKeys {}
