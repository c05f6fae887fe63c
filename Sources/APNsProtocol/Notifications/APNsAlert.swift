// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The `aps.alert` dictionary of an alert push: the text shown, either as is or as keys into
/// the app's `Localizable.strings` with their arguments (the device localizes). Key names are
/// Apple's ("Generating a remote notification"; apns-protocol.md §8).
public struct APNsAlert: Encodable, Sendable, Hashable {
    /// `title`: the short line shown in bold above the body.
    public var title: String?
    /// `title-loc-key` and `title-loc-args`: a localized title in place of `title`.
    public var titleLocalizationKey: String?
    /// The strings the device puts into the localized title's `%@` placeholders.
    public var titleLocalizationArguments: [String]?
    /// `subtitle`: a second line under the title.
    public var subtitle: String?
    /// `subtitle-loc-key` and `subtitle-loc-args`.
    public var subtitleLocalizationKey: String?
    /// The strings for the localized subtitle's placeholders.
    public var subtitleLocalizationArguments: [String]?
    /// `body`: the message itself.
    public var body: String?
    /// `loc-key` and `loc-args`: a localized body in place of `body`.
    public var bodyLocalizationKey: String?
    /// The strings for the localized body's placeholders.
    public var bodyLocalizationArguments: [String]?
    /// `launch-image`: the image or storyboard shown while the app launches from the alert.
    public var launchImage: String?

    /// An alert with plain text; set the localization keys afterwards to have the device translate it.
    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }

    enum CodingKeys: String, CodingKey {
        case title, subtitle, body
        case titleLocalizationKey = "title-loc-key", titleLocalizationArguments = "title-loc-args"
        case subtitleLocalizationKey = "subtitle-loc-key", subtitleLocalizationArguments = "subtitle-loc-args"
        case bodyLocalizationKey = "loc-key", bodyLocalizationArguments = "loc-args"
        case launchImage = "launch-image"
    }
}

/// `aps.sound`: a sound file's name (`"default"` for the system sound), or for a critical
/// alert the dictionary `{"critical": 1, "name": ..., "volume": 0...1}`.
public enum APNsSound: Encodable, Sendable, Hashable {
    /// A sound file in the app's bundle or `Library/Sounds`.
    case named(String)
    /// A critical alert's sound (needs Apple's critical-alert entitlement); `volume` from 0
    /// (silent) to 1 (full).
    case critical(name: String, volume: Double)

    /// The system sound.
    public static let `default` = APNsSound.named("default")

    enum CriticalKeys: String, CodingKey { case critical, name, volume }

    /// Throws `APNsPayloadError.Code.invalidValue` for a volume outside 0...1 (the device
    /// would not play it as asked).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .named(let name):
            var container = encoder.singleValueContainer()
            try container.encode(name)
        case .critical(let name, let volume):
            try APNsUnitInterval.check(volume, "aps.sound.volume")
            var container = encoder.container(keyedBy: CriticalKeys.self)
            try container.encode(1, forKey: .critical)
            try container.encode(name, forKey: .name)
            try container.encode(volume, forKey: .volume)
        }
    }
}

/// `aps.interruption-level`: how urgently the system presents the notification.
public enum APNsInterruptionLevel: String, Encodable, Sendable, Hashable, CaseIterable {
    /// Added to the notification list silently, never lights the screen.
    case passive
    /// Presented at once (the system's default).
    case active
    /// Presented at once and breaks through Focus (needs the time-sensitive capability).
    case timeSensitive = "time-sensitive"
    /// Breaks through Focus and the mute switch (needs Apple's critical-alert entitlement).
    case critical
}

/// Apple's 0...1 ranges (relevance score, critical volume), checked before encoding.
enum APNsUnitInterval {
    static func check(_ value: Double, _ key: String) throws {
        guard (0...1).contains(value) else {
            throw APNsPayloadError(.invalidValue, "\(key) is \(value); Apple takes a number from 0 to 1.")
        }
    }
}
