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
