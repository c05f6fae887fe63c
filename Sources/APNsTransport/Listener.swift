#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on the loop: accepts every pending connection and hands each to
/// `onAccept`. Owns the listening `Socket`.
final class Listener: PollHandler, @unchecked Sendable {
    let socket: Socket
    let port: Int
    var onAccept: ((Socket, String) -> Void)?

    init(socket: Socket, port: Int) {
        self.socket = socket
        self.port = port
    }

    var fd: Int32 { socket.fd }
    var wantsRead: Bool { onAccept != nil }
    var wantsWrite: Bool { false }

    func handleEvents(_ events: Int16) {
        while let (client, peer) = socket.accept() {
            onAccept?(client, peer)
        }
    }
}
