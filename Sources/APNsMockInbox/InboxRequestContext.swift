// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Hummingbird
import NIOCore

/// Hummingbird's basic request context plus the connection: a long search asks it whether its
/// client is still there (Hummingbird does not cancel a handler whose client left).
struct InboxRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
