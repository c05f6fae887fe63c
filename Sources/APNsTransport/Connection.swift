// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import CShims
internal import COpenSSL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The protocol riding on a `Connection` (an HTTP/2 session, or raw bytes for the legacy
/// binary API). All calls arrive on the loop thread.
protocol ConnectionDelegate: AnyObject {
    func connectionDidHandshake(_ connection: Connection)
    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer)
    /// The outgoing buffer drained; produce more if there is any.
    func connectionCanWrite(_ connection: Connection)
    /// Final call; `error` is nil for a clean close.
    func connection(_ connection: Connection, didCloseWith error: TransportError?)
}

/// One TCP connection with TLS on top, client or server side, driven by the event loop.
///
/// Owns the socket (`Socket`) and the `SSL*` (freed in deinit). It moves through
/// connecting -> handshaking -> open -> closed, tries each resolved address in turn, and turns
/// every failure into one `TransportError` sentence.
///
/// Not `Sendable`: confined to its loop's thread, which it is made on and which every entry
/// point checks (`EventLoop.preconditionInLoop`, release builds too: the `SSL*` is not
/// thread-safe). Owners on other threads reach it through a `LoopBound` (via the session or
/// stream it carries).
///
/// Its state and output buffer are `@exclusivity(unchecked)`, as `HTTP2ServerStreams`' are:
/// every request reads or writes them several times (the session's `produce`, `flush`,
/// `writeQueued`, the loop's `wantsWrite`), each runtime check some 80 instructions, and no
/// access can overlap another: one thread, and no access spans a call that could come back in
/// (the buffer is handed to `SSL_write` only, which calls no Swift; the delegate is called
/// between accesses, never inside one).
final class Connection: PollHandler {
    /// `tunneling`: connected to an HTTP proxy, asking it to CONNECT to the server (`ProxyTunnel`).
    enum State { case connecting, tunneling, handshaking, open, closed }

    let loop: EventLoop
    let context: SSLContext
    @exclusivity(unchecked) private(set) var state: State
    var delegate: ConnectionDelegate?
    /// The host name we connect to (client): SNI and host-name checks use it.
    let host: String?
    private(set) var remoteAddress: String
    private(set) var handshakeInfo: TLSHandshakeInfo?

    private var socket: Socket?
    private var ssl: OpaquePointer?
    private let observations: UnsafeMutablePointer<shim_tls_observations>
    private var addresses: [SocketAddress] = []
    private var addressIndex = 0
    private var connectErrors: [String] = []
    /// The CONNECT exchange, when the connection goes through an HTTP proxy.
    private var tunnel: ProxyTunnel?
    @exclusivity(unchecked) private var outgoing: [UInt8] = []
    @exclusivity(unchecked) private var outgoingHead = 0
    @exclusivity(unchecked) private var handshakeWantsWrite = false
    @exclusivity(unchecked) private var writeWantsRead = false
    /// Set by `closeAfterPeer`: we sent close_notify and only wait for the peer to close.
    @exclusivity(unchecked) private var lingering = false
    /// Set by a delegate whose reader is behind (`RawStream` above its buffer bound): no more
    /// input is read until `resumeReading`, so TCP flow control holds a fast sender back
    /// instead of our memory growing with what it sends.
    @exclusivity(unchecked) private(set) var readPaused = false
    /// True while `readAvailable` hands a burst of input to the delegate. Writes asked for
    /// meanwhile wait for the burst's end, so the answers to everything a burst brought leave
    /// in one TLS record and one write() rather than one each (two busy peers otherwise settle
    /// into a syscall pair per message), unless `burstFlushThreshold` bytes pile up first.
    @exclusivity(unchecked) private var inReadBurst = false
    @exclusivity(unchecked) private var flushDeferred = false
    static let burstFlushThreshold = 4096
    /// False from `releaseIdleBuffers` (when every buffer went) until the next read or write
    /// (tests of the sweep).
    @exclusivity(unchecked) private(set) var holdsBuffers = true

    /// Bytes waiting to be encrypted and sent; delegates stop producing above this.
    var pendingOutput: Int { outgoing.count - outgoingHead }
    static let highWater = 256 * 1024
    /// How long an accepted client may take to finish its TLS handshake.
    static let serverHandshakeTimeout = 10.0

    var fd: Int32 { socket?.fd ?? -1 }

    /// A client connection to `addresses` (already resolved) for `host`; with `proxy`, the
    /// addresses are the proxy's and the connection asks it to CONNECT to `target` first.
    init(loop: EventLoop, context: SSLContext, host: String, addresses: [SocketAddress], through target: Endpoint? = nil) {
        loop.preconditionInLoop()
        if let target, let proxy = target.proxy { tunnel = ProxyTunnel(proxy: proxy, target: target) }
        self.loop = loop
        self.context = context
        self.host = host
        self.addresses = addresses
        self.state = .connecting
        self.remoteAddress = addresses.first?.description ?? host
        observations = .allocate(capacity: 1)
        observations.initialize(to: shim_tls_observations())
        loop.connectionCreated()
    }

    /// A server connection for an accepted socket.
    init(loop: EventLoop, context: SSLContext, accepted socket: Socket, peer: String) {
        loop.preconditionInLoop()
        self.loop = loop
        self.context = context
        self.host = nil
        self.socket = socket
        self.state = .handshaking
        self.remoteAddress = peer
        observations = .allocate(capacity: 1)
        observations.initialize(to: shim_tls_observations())
        loop.connectionCreated()
    }

    /// A connection with no socket and no TLS, already open, whose output is dropped: how the
    /// HTTP/2 fuzz harness drives a real `HTTP2Session` with arbitrary bytes
    /// (`HTTP2SessionFuzzing`). Loop thread only, like any connection.
    init(detachedOn loop: EventLoop, context: SSLContext, host: String) {
        loop.preconditionInLoop()
        self.loop = loop
        self.context = context
        self.host = host
        self.state = .open
        self.remoteAddress = host
        discardsOutput = true
        observations = .allocate(capacity: 1)
        observations.initialize(to: shim_tls_observations())
        loop.connectionCreated()
    }

    /// Set for a detached connection: there is nowhere to send to.
    @exclusivity(unchecked) private var discardsOutput = false

    deinit {
        if let ssl { SSL_free(ssl) }
        observations.deallocate()
        loop.connectionFreed()
    }

    // MARK: starting

    /// Registers with the loop and starts connecting (client) or handshaking (server).
    func start() {
        loop.preconditionInLoop()
        loop.register(self)
        if context.isServer {
            do { try makeSSL() } catch { fail(error as? TransportError ?? TransportError(.internalFailure, "\(error)")); return }
            SSL_set_accept_state(ssl)
            // A client that connects and never finishes its handshake must not hold a slot forever.
            loop.schedule(after: Self.serverHandshakeTimeout) { [weak self] in
                guard let self, self.state == .handshaking else { return }
                self.fail(TransportError(.timeout, "The client \(self.remoteAddress) did not complete the TLS handshake within \(HTTP2Session.seconds(Self.serverHandshakeTimeout))."))
            }
            continueHandshake()
        } else {
            tryNextAddress()
        }
    }

    private func tryNextAddress() {
        guard addressIndex < addresses.count else {
            let reason = connectErrors.last ?? "no address to connect to"
            let target = host.map { Endpoint(host: $0, port: 1).hostIsIPAddress ? remoteAddress : "\($0) (\(remoteAddress))" } ?? remoteAddress
            fail(TransportError(.connect, "Could not connect to \(target): \(reason)."))
            return
        }
        let address = addresses[addressIndex]
        addressIndex += 1
        remoteAddress = address.description
        do {
            let socket = try Socket.tcp(family: address.family)
            self.socket = socket
            loop.descriptorReplaced(self)
            let rc = socket.startConnect(address)
            if rc == 0 {
                connected()
            } else if rc != EINPROGRESS {
                connectErrors.append("\(remoteAddress) \(Self.describe(errno: rc))")
                self.socket = nil
                tryNextAddress()
            }
        } catch {
            connectErrors.append("\(error)")
            tryNextAddress()
        }
    }

    static func describe(errno code: Int32) -> String {
        if code == ECONNREFUSED { return "connection refused (nothing listens on that port)" }
        return String(cString: strerror(code)).lowercased()
    }

    private func connected() {
        if tunnel != nil {
            state = .tunneling
            continueTunnel(reading: false)
            return
        }
        startTLS()
    }

    /// Writes CONNECT and reads the proxy's answer, as far as the socket allows; opens TLS
    /// through the tunnel once the proxy said 2xx.
    private func continueTunnel(reading: Bool) {
        guard let socket, var tunnel else { return }
        while tunnel.hasOutput {
            let written = tunnel.output.withUnsafeBytes { send(socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 { tunnel.sent(written); continue }
            if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { break }
            self.tunnel = tunnel
            fail(TransportError(.connect, "Could not write to the proxy \(tunnel.proxy): \(Self.describe(errno: errno))."))
            return
        }
        var outcome: ProxyTunnel.Outcome?
        // Reads at most up to the end of the proxy's answer head: one byte at a time would be
        // exact but slow; the answer is small and nothing follows it until we speak TLS.
        while reading, outcome == nil, !tunnel.hasOutput {
            let count = loop.withReadBuffer { buffer in
                let count = recv(socket.fd, buffer.baseAddress, 1024, 0)
                if count > 0 { outcome = tunnel.received(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
                return count
            }
            if count > 0 {
                continue
            } else if count == 0 {
                outcome = .refused(tunnel.closedEarly())
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                break
            } else {
                outcome = .refused(TransportError(.connect, "The connection to the proxy \(tunnel.proxy) failed: \(Self.describe(errno: errno))."))
            }
        }
        self.tunnel = tunnel
        switch outcome {
        case .open:
            self.tunnel = nil
            startTLS()
        case .refused(let error):
            fail(error)
        case nil:
            break
        }
    }

    private func startTLS() {
        state = .handshaking
        do { try makeSSL() } catch { fail(error as? TransportError ?? TransportError(.internalFailure, "\(error)")); return }
        SSL_set_connect_state(ssl)
        continueHandshake()
    }

    private func makeSSL() throws {
        OpenSSLErrorQueue.clear()
        guard let ssl = context.withUnsafePointer({ SSL_new($0) }) else {
            throw TransportError.openssl(.internalFailure, "OpenSSL could not create a TLS connection.")
        }
        self.ssl = ssl
        guard shim_SSL_set_observations(ssl, observations) == 1 else {
            throw TransportError.openssl(.internalFailure, "OpenSSL could not attach the handshake observer.")
        }
        guard let socket, SSL_set_fd(ssl, socket.fd) == 1 else {
            throw TransportError.openssl(.internalFailure, "OpenSSL could not attach to the socket.")
        }
        if let host, !context.isServer { try expectPeerName(ssl, host) }
    }

    /// Sets SNI and the name the server's certificate must carry. Every step fails closed: a
    /// name OpenSSL will not take (an embedded NUL, an empty name, over 255 bytes for SNI)
    /// must not leave only the chain checked, which would accept any certificate the trusted
    /// CAs ever issued. Names go with their byte length, so a C string cannot silently end
    /// at an embedded NUL ("localhost\0.example.com" checked as "localhost").
    private func expectPeerName(_ ssl: OpaquePointer, _ host: String) throws {
        let bytes = Array(host.utf8)
        let refused = { (what: String) in
            TransportError.openssl(.configuration, "The host name \(host.debugDescription) cannot be \(what); the connection was not made.")
        }
        guard !bytes.isEmpty, !bytes.contains(0) else { throw refused("checked against a certificate") }
        let isIP = Endpoint(host: host, port: 1).hostIsIPAddress
        if !isIP, shim_SSL_set_tlsext_host_name(ssl, host) != 1 { throw refused("sent as the TLS server name (SNI)") }
        guard context.configuration.verification == .full else { return }
        let param = SSL_get0_param(ssl)
        let set = isIP ? X509_VERIFY_PARAM_set1_ip_asc(param, host)
                       : bytes.withUnsafeBufferPointer { buffer in
                             buffer.withMemoryRebound(to: CChar.self) { X509_VERIFY_PARAM_set1_host(param, $0.baseAddress, buffer.count) }
                         }
        guard set == 1 else { throw refused("checked against the server's certificate") }
    }

    // MARK: polling

    var wantsRead: Bool {
        switch state {
        case .connecting: return false
        case .tunneling: return !(tunnel?.hasOutput ?? false)
        case .handshaking: return !handshakeWantsWrite
        case .open: return !readPaused || lingering
        case .closed: return false
        }
    }

    /// Stops reading input until `resumeReading` (back-pressure).
    func pauseReading() {
        loop.preconditionInLoop()
        readPaused = true
        loop.interestMayHaveChanged(self)
    }

    /// Reads again; input OpenSSL already holds is handed over from the loop, not from inside
    /// the caller (which may be in the middle of handling a read).
    func resumeReading() {
        loop.preconditionInLoop()
        guard readPaused else { return }
        readPaused = false
        loop.interestMayHaveChanged(self)
        loop.schedule(after: 0) { [weak self] in
            guard let self, self.state == .open, !self.readPaused else { return }
            self.readAvailable()
        }
    }

    var wantsWrite: Bool {
        switch state {
        case .connecting: return true
        case .tunneling: return tunnel?.hasOutput ?? false
        case .handshaking: return handshakeWantsWrite
        case .open: return pendingOutput > 0 && !writeWantsRead
        case .closed: return false
        }
    }

    func handleEvents(_ events: Int16) {
        loop.preconditionInLoop()
        switch state {
        case .connecting:
            let error = socket?.pendingError ?? ECONNREFUSED
            if error == 0 {
                connected()
            } else {
                connectErrors.append(Self.describe(errno: error))
                socket = nil
                tryNextAddress()
            }
        case .tunneling:
            continueTunnel(reading: events & Int16(POLLIN | POLLERR | POLLHUP) != 0)
        case .handshaking:
            continueHandshake()
        case .open:
            if events & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
                if writeWantsRead { writeWantsRead = false; flush() }
                readAvailable()
            }
            if state == .open, events & Int16(POLLOUT) != 0 {
                flush()
                // Only here, never from inside flush(): the delegate's producer calls flush().
                if state == .open, pendingOutput < Self.highWater / 2 { delegate?.connectionCanWrite(self) }
            }
        case .closed:
            break
        }
    }

    // MARK: handshake

    private func continueHandshake() {
        guard let ssl else { return }
        OpenSSLErrorQueue.clear()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            handshakeWantsWrite = false
            handshakeInfo = TLSHandshakeInfo(ssl: ssl, observations: observations.pointee, host: host,
                                             remoteAddress: remoteAddress, presentedIdentity: context.configuration.identity != nil)
            state = .open
            delegate?.connectionDidHandshake(self)
            if state == .open {
                flush()
                // TLS 1.3: the server's verdict on our certificate (an alert) or its first bytes
                // may already be buffered.
                readAvailable()
            }
            return
        }
        let error = SSL_get_error(ssl, rc)
        switch error {
        case SSL_ERROR_WANT_READ: handshakeWantsWrite = false
        case SSL_ERROR_WANT_WRITE: handshakeWantsWrite = true
        default: fail(handshakeError(sslError: error))
        }
    }

    private func handshakeError(sslError: Int32) -> TransportError {
        let queue = OpenSSLErrorQueue.drain()
        let peer = host ?? remoteAddress
        if observations.pointee.alert_received != 0 {
            let alert = TLSAlert(code: Int(observations.pointee.alert_received_code))
            return TransportError(.tlsAlert(alert), "\(context.isServer ? "The client" : "The server") \(peer) ended the TLS handshake with alert \(alert.name).", details: queue)
        }
        if let ssl, !context.isServer, context.configuration.verification == .full, SSL_get_verify_result(ssl) != X509_V_OK {
            let info = TLSHandshakeInfo(ssl: ssl, observations: observations.pointee, host: host,
                                        remoteAddress: remoteAddress, presentedIdentity: context.configuration.identity != nil)
            if let trust = info.trustFailure(host: peer) {
                let text = info.verifyError ?? "unknown error"
                return TransportError(.untrustedServer(trust), "The certificate of \(peer) did not verify: \(text).", details: queue)
            }
        }
        // OpenSSL 3 reports a peer that closed without close_notify either with an empty queue
        // or as "unexpected eof while reading" (which one depends on how far the handshake got).
        let silentClose = queue.isEmpty || Self.readableReason(queue) == "unexpected eof while reading"
        if sslError == SSL_ERROR_SYSCALL || sslError == SSL_ERROR_ZERO_RETURN || sslError == SSL_ERROR_SSL, silentClose {
            return TransportError(.tls, "\(peer) closed the connection during the TLS handshake\(Self.silentCloseCauses)", details: queue)
        }
        let reason = Self.readableReason(queue) ?? "unknown error"
        return TransportError(.tls, "The TLS handshake with \(peer) failed: \(reason).", details: queue)
    }

    /// Ends the sentence for a peer that closed during the handshake without an alert: the
    /// likely causes, so the reader need not guess (the mock's per-address limit once showed
    /// only "closed the connection during the TLS handshake").
    static let silentCloseCauses = "; a server does that when it is at its connection limit (for all clients or for this address) or refuses the connection without saying why."

    /// The "reason" part of OpenSSL's last error line ("unsupported protocol").
    static func readableReason(_ queue: [String]) -> String? {
        guard let line = queue.last else { return nil }
        // error:0A000102:SSL routines::unsupported protocol
        let parts = line.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
        return parts.count >= 5 ? String(parts[4]) : line
    }

    // MARK: data

    /// Queues `bytes` for sending; call `flush()` (or return to the loop) to send them.
    func enqueue(_ bytes: UnsafeRawBufferPointer) {
        loop.preconditionInLoop()
        if pendingOutput == 0 { loop.interestMayHaveChanged(self) }
        outgoing.append(contentsOf: bytes)
    }

    func enqueue(_ bytes: [UInt8]) {
        loop.preconditionInLoop()
        if pendingOutput == 0 { loop.interestMayHaveChanged(self) }
        outgoing += bytes
    }

    /// Writes as much as the socket takes (inside a read burst, perhaps only at its end).
    /// Never calls back into the delegate.
    func flush() {
        loop.preconditionInLoop()
        if inReadBurst && pendingOutput < Self.burstFlushThreshold {
            flushDeferred = pendingOutput > 0
            return
        }
        writeQueued()
    }

    private func writeQueued() {
        if discardsOutput {
            outgoing.removeAll(keepingCapacity: true)
            outgoingHead = 0
            return
        }
        guard state == .open, let ssl else { return }
        if pendingOutput > 0 { holdsBuffers = true }
        while pendingOutput > 0 {
            OpenSSLErrorQueue.clear()
            let chunk = min(pendingOutput, 64 * 1024)
            let written = outgoing.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + outgoingHead, Int32(chunk)) }
            if written > 0 {
                outgoingHead += Int(written)
                if outgoingHead == outgoing.count {
                    outgoing.removeAll(keepingCapacity: true)
                    outgoingHead = 0
                } else if outgoingHead > 1 << 20 {
                    outgoing.removeFirst(outgoingHead)
                    outgoingHead = 0
                }
                continue
            }
            let error = SSL_get_error(ssl, written)
            switch error {
            case SSL_ERROR_WANT_WRITE: return
            case SSL_ERROR_WANT_READ: writeWantsRead = true; return
            default:
                // The peer may have sent an alert (TLS 1.3 client-certificate rejection) and
                // closed before our write; its alert explains the failure better than EPIPE.
                drainForAlert(ssl)
                fail(ioError(error, reading: false))
                return
            }
        }
    }

    private func readAvailable() {
        inReadBurst = true
        readBurst()
        inReadBurst = false
        if flushDeferred, state == .open {
            flushDeferred = false
            writeQueued()
            // The delegate held back whatever waits for the output to drain (a session that
            // closes once both sides are done): let it look again.
            if state == .open { delegate?.connectionCanWrite(self) }
        }
    }

    private func readBurst() {
        guard let ssl else { return }
        holdsBuffers = true
        while state == .open, !readPaused || lingering {
            OpenSSLErrorQueue.clear()
            let count = loop.withReadBuffer { buffer in
                let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                // Lingering: the session is over, discard until the peer closes.
                if count > 0, !lingering { delegate?.connection(self, didRead: UnsafeRawBufferPointer(rebasing: buffer[0..<Int(count)])) }
                return count
            }
            if count > 0 { continue }
            if lingering {
                // Peer closed (or failed): done either way.
                let error = SSL_get_error(ssl, count)
                if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE { close(error: nil) }
                return
            }
            let error = SSL_get_error(ssl, count)
            switch error {
            case SSL_ERROR_WANT_READ: return
            case SSL_ERROR_WANT_WRITE: return  // renegotiation-style need; poll for write via pending output
            case SSL_ERROR_ZERO_RETURN: close(error: nil); return
            default: fail(ioError(error, reading: true)); return
            }
        }
    }

    /// Reads whatever is still buffered so the info callback sees a pending alert.
    private func drainForAlert(_ ssl: OpaquePointer) {
        guard observations.pointee.alert_received == 0 else { return }
        // Its own small buffer: a write that fails inside a read (the loop's buffer still holds
        // that read's bytes) comes here, and what it reads is thrown away.
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 16) { scratch in
            for _ in 0..<8 {
                let count = SSL_read(ssl, scratch.baseAddress, Int32(scratch.count))
                if count <= 0 || observations.pointee.alert_received != 0 { break }
            }
        }
    }

    private func ioError(_ sslError: Int32, reading: Bool) -> TransportError {
        let queue = OpenSSLErrorQueue.drain()
        let peer = host ?? remoteAddress
        let who = context.isServer ? "The client" : "The server"
        if observations.pointee.alert_received != 0 {
            let alert = TLSAlert(code: Int(observations.pointee.alert_received_code))
            return TransportError(.tlsAlert(alert), "\(who) \(peer) closed the TLS connection with alert \(alert.name).", details: queue)
        }
        if sslError == SSL_ERROR_SYSCALL, queue.isEmpty {
            return TransportError(.connectionClosed, "\(who) \(peer) closed the connection.", details: queue)
        }
        let reason = Self.readableReason(queue) ?? "connection reset"
        return TransportError(.connectionClosed, "The TLS connection with \(peer) failed: \(reason).", details: queue)
    }

    // MARK: closing

    /// Closes after a failure.
    func fail(_ error: TransportError) { close(error: error) }  // checked in close

    /// Sends close_notify (best effort), deregisters and tells the delegate.
    /// Sends what is queued and a TLS close_notify, then keeps reading (and discarding) until
    /// the peer closes or `timeout` passes, and only then closes the socket. Closing with
    /// unread input would make the kernel send RST and destroy data the peer has not read yet
    /// (a server's GOAWAY, a legacy error response).
    /// Closes now unless `closeAfterPeer` is already waiting for the peer: what an owner that
    /// goes away (a `TLSServerConnection`'s deinit) asks for, without cutting that wait short.
    func closeUnlessLingering() {
        loop.preconditionInLoop()
        if !lingering { close(error: nil) }
    }

    func closeAfterPeer(timeout: Double) {
        loop.preconditionInLoop()
        if lingering { return }
        guard state == .open, let ssl else { close(error: nil); return }
        lingering = true
        loop.interestMayHaveChanged(self)
        flushBestEffort(ssl)
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
        loop.schedule(after: timeout) { [weak self] in self?.close(error: nil) }
    }

    func close(error: TransportError?) {
        loop.preconditionInLoop()
        guard state != .closed else { return }
        let wasOpen = state == .open
        state = .closed
        if wasOpen, error == nil, let ssl {
            flushBestEffort(ssl)
            _ = SSL_shutdown(ssl)
        }
        loop.deregister(self)
        let delegate = self.delegate
        self.delegate = nil
        delegate?.connection(self, didCloseWith: error)
        socket = nil
    }

    /// Hands back what a connection holds only for traffic: an empty output buffer's capacity
    /// and OpenSSL's record buffers (`SSL_free_buffers`, which keeps them while a record is
    /// half read or written; about 34 KB). A server calls it for connections quiet a while
    /// (`HTTP2Settings.releaseBuffersAfter`), so a busy connection allocates nothing per
    /// record and an idle one holds a few KB; the next read or write allocates them again.
    func releaseIdleBuffers() {
        loop.preconditionInLoop()
        guard state == .open, !inReadBurst, let ssl else { return }
        if pendingOutput == 0 {
            outgoing = []
            outgoingHead = 0
        }
        holdsBuffers = SSL_free_buffers(ssl) != 1 || outgoing.capacity > 0
    }

    /// One last non-blocking attempt to send queued bytes (GOAWAY) before closing.
    private func flushBestEffort(_ ssl: OpaquePointer) {
        guard pendingOutput > 0 else { return }
        _ = outgoing.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + outgoingHead, Int32(min(pendingOutput, Int(Int32.max)))) }
        OpenSSLErrorQueue.clear()
    }
}
