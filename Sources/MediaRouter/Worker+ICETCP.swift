import CSystemShims
import Glibc
import ICE
import MediaControl

/// ICE over TCP (RFC 6544, passive candidates; RFC 4571 framing). A worker with an ICE-TCP port
/// accepts connections on it, reads each one's frames and hands them, as datagrams from the
/// connection's peer, to the WebRTC transport its first STUN check names; that transport's ICE must
/// verify the check, or the connection closes. The transport's sends to that peer are queued on the
/// connection and written at the flush.
///
/// A peer can hold only so much: `maximumUnverifiedTCPConnections` connections not yet verified per
/// worker and `maximumUnverifiedTCPConnectionsPerHost` per client address, each closed unless a valid
/// check comes within the configuration's `iceTCPVerificationTimeout`; `maximumTCPConnectionsPerTransport` verified ones per
/// transport; one frame's buffer and `ICETCPConnection.sendQueueBytes` per connection; and a verified
/// connection that receives nothing for the ICE consent timeout closes.
extension Worker {
    static let maximumUnverifiedTCPConnections = 256
    static let maximumUnverifiedTCPConnectionsPerHost = 16
    static let maximumTCPConnectionsPerTransport = 4
    static let tcpSweepInterval: UInt64 = 500_000_000
    /// Bytes one readiness event reads from a connection before the worker turns to others.
    static let tcpReadBudget = 64 * 1024
    /// How long accepting pauses when the process has no descriptor left for a connection.
    static let tcpAcceptPause: UInt64 = 1_000_000_000

    /// Starts listening for ICE-TCP connections on `address`:`port` (0: a port the kernel picks).
    func openTCPListener(address: String, port: UInt16) throws(MediaControlError) {
        assertOnThread()
        let listener = try TCPListener(address: address, port: port)
        guard switchyard_poller_add(poller, listener.descriptor, UInt64(listener.descriptor)) == 0 else {
            throw .system(call: "epoll_ctl", errno: errno)
        }
        tcpListener = listener
        nextTCPSweepAt = MediaClock.monotonicNow() + Self.tcpSweepInterval
    }

    /// Accepts what waits on the listener, refusing connections past the limits on unverified ones.
    func acceptTCPConnections() {
        guard let listener = tcpListener else { return }
        let now = MediaClock.monotonicNow()
        for _ in 0..<64 {
            var peer = sockaddr_in()
            let descriptor = switchyard_tcp_accept(listener.descriptor, &peer, ICETCPConnection.kernelSendBufferBytes)
            guard descriptor >= 0 else {
                if errno == EMFILE || errno == ENFILE {
                    // The connection stays in the backlog and the listener readable: stop watching it
                    // for a moment instead of spinning on it.
                    _ = switchyard_poller_remove(poller, listener.descriptor)
                    tcpListenerPausedUntil = now + Self.tcpAcceptPause
                }
                return
            }
            let host = peer.sin_addr.s_addr
            guard unverifiedTCPConnections < Self.maximumUnverifiedTCPConnections,
                unverifiedTCPConnectionsByHost[host, default: 0] < Self.maximumUnverifiedTCPConnectionsPerHost,
                switchyard_poller_add(poller, descriptor, UInt64(descriptor)) == 0
            else {
                close(descriptor)
                tcpCounters.refused &+= 1
                continue
            }
            tcpConnections[descriptor] = ICETCPConnection(descriptor: descriptor, peer: IPv4Address(peer), now: now)
            unverifiedTCPConnections += 1
            unverifiedTCPConnectionsByHost[host, default: 0] += 1
            tcpCounters.accepted &+= 1
        }
    }

    /// A connection is readable (or writable again, or closed by its peer): writes what waits, reads
    /// up to the budget and handles every whole frame.
    func handleTCPReadiness(_ connection: ICETCPConnection) {
        if connection.writer.queuedBytes > 0 { write(connection) }
        var budget = Self.tcpReadBudget
        while budget > 0, !connection.isClosed {
            guard let count = connection.read() else { break }
            guard count > 0 else {
                closeTCPConnection(connection)
                break
            }
            budget -= count
            connection.lastReceivedAt = MediaClock.monotonicNow()
            handleFrames(of: connection, now: connection.lastReceivedAt)
        }
        flush()
    }

    private func handleFrames(of connection: ICETCPConnection, now: UInt64) {
        while !connection.isClosed {
            let frame: UnsafeMutableRawBufferPointer?
            do throws(FramedStreamReader.Failure) {
                frame = try connection.reader.nextFrame()
            } catch {
                if !connection.isVerified { tcpCounters.closedUnverified &+= 1 }
                closeTCPConnection(connection)
                return
            }
            guard let frame else { return }
            if connection.isVerified {
                guard let transport = connection.transport else {
                    closeTCPConnection(connection)
                    return
                }
                deliver(frame, from: connection, to: transport, now: now)
            } else {
                verify(connection, firstFrame: frame, now: now)
            }
        }
    }

    /// The first frame of a connection must be a STUN check that names one of this worker's WebRTC
    /// transports and that the transport's ICE accepts; anything else closes the connection.
    private func verify(_ connection: ICETCPConnection, firstFrame frame: UnsafeMutableRawBufferPointer, now: UInt64) {
        let bytes = UnsafeRawBufferPointer(frame)
        guard PacketClass.demultiplex(firstByte: bytes[0]) == .stun, let fragment = Self.localUsernameFragment(of: bytes),
            let transport = webRTCTransportsByUsernameFragment[fragment], let link = transport.webRTC,
            transport.tcpConnections.values.count(where: { !$0.isClosed }) < Self.maximumTCPConnectionsPerTransport
        else {
            tcpCounters.closedUnverified &+= 1
            closeTCPConnection(connection)
            return
        }
        // Registered first so that the check's answer goes out on this connection.
        let key = connection.peer.key
        transport.tcpConnections = transport.tcpConnections.filter { !$0.value.isClosed || transport.remote?.key == $0.key }
        transport.tcpConnections[key] = connection
        connection.transport = transport
        deliver(frame, from: connection, to: transport, now: now)
        guard link.ice.isVerified(connection.peer) else {
            transport.tcpConnections[key] = nil
            tcpCounters.closedUnverified &+= 1
            closeTCPConnection(connection)
            return
        }
        connection.isVerified = true
        forgetUnverified(connection)
    }

    /// Hands a frame to the transport in the worker's frame slot, as a datagram from the peer.
    private func deliver(_ frame: UnsafeMutableRawBufferPointer, from connection: ICETCPConnection, to transport: Transport, now: UInt64) {
        tcpFrameSlot.pointee.buffer.copyMemory(from: frame.baseAddress!, byteCount: frame.count)
        tcpFrameSlot.pointee.length = frame.count
        connection.peer.write(into: tcpFrameSlot)
        tcpFrameSource = connection
        transport.handleDatagram(tcpFrameSlot, now: now)
        tcpFrameSource = nil
    }

    /// Queues a datagram the transport sends to a connection's peer.
    @inline(__always)
    func queue(_ datagram: UnsafeRawBufferPointer, on connection: ICETCPConnection, of transport: Transport) {
        transport.bytesSent &+= UInt64(datagram.count)
        guard connection.queue(datagram) else {
            if !connection.isClosed { transport.router?.drops.sendQueueFull += 1 }
            return
        }
        packetsSent &+= 1
        if !connection.isQueuedForWrite {
            connection.isQueuedForWrite = true
            tcpConnectionsToWrite.append(connection)
        }
    }

    /// Writes every connection that got frames since the last flush.
    func writeTCPConnections() {
        for connection in tcpConnectionsToWrite {
            connection.isQueuedForWrite = false
            write(connection)
        }
        tcpConnectionsToWrite.removeAll(keepingCapacity: true)
    }

    /// Writes what the socket takes; while some stays queued the worker also waits for it to be
    /// writable.
    private func write(_ connection: ICETCPConnection) {
        guard !connection.isClosed else { return }
        let before = connection.writer.queuedBytes
        guard connection.writeQueued() else {
            closeTCPConnection(connection)
            return
        }
        bytesSent &+= UInt64(before - connection.writer.queuedBytes)
        let wantsWritable = connection.writer.queuedBytes > 0
        if wantsWritable != connection.wantsWritable,
            switchyard_poller_set_writable_interest(poller, connection.descriptor, UInt64(connection.descriptor), wantsWritable ? 1 : 0) == 0
        {
            connection.wantsWritable = wantsWritable
        }
    }

    /// Closes unverified connections past their time, verified ones silent past the consent timeout,
    /// and resumes a paused listener.
    func sweepTCPConnections(now: UInt64) {
        if let pausedUntil = tcpListenerPausedUntil, now >= pausedUntil, let listener = tcpListener {
            tcpListenerPausedUntil = nil
            _ = switchyard_poller_add(poller, listener.descriptor, UInt64(listener.descriptor))
        }
        let consentTimeout = UInt64(configuration.iceConsentTimeout.nanoseconds)
        let verificationTimeout = UInt64(configuration.iceTCPVerificationTimeout.nanoseconds)
        let expired = tcpConnections.values.filter { connection in
            connection.isVerified
                ? now &- connection.lastReceivedAt > consentTimeout || connection.transport == nil
                : now &- connection.acceptedAt > verificationTimeout
        }
        for connection in expired {
            tcpCounters.timedOut &+= 1
            closeTCPConnection(connection)
        }
    }

    /// Closes a connection and forgets it, after one last try to write what waits (the error answer
    /// to a refused check, a close_notify); a transport whose remote it is keeps it, closed, so that
    /// what it sends there is dropped.
    func closeTCPConnection(_ connection: ICETCPConnection) {
        guard !connection.isClosed else { return }
        _ = connection.writeQueued()
        _ = switchyard_poller_remove(poller, connection.descriptor)
        tcpConnections[connection.descriptor] = nil
        if !connection.isVerified { forgetUnverified(connection) }
        if let transport = connection.transport, transport.remote?.key != connection.peer.key,
            transport.tcpConnections[connection.peer.key] === connection
        {
            transport.tcpConnections[connection.peer.key] = nil
        }
        connection.close()
    }

    /// Closes the connections of a transport that is going away.
    func closeTCPConnections(of transport: Transport) {
        let connections = transport.tcpConnections.values
        transport.tcpConnections = [:]
        for connection in connections { closeTCPConnection(connection) }
    }

    /// Closes the listener and every connection (the worker is stopping).
    func closeTCP() {
        for connection in Array(tcpConnections.values) { closeTCPConnection(connection) }
        if let listener = tcpListener { _ = switchyard_poller_remove(poller, listener.descriptor) }
        tcpListener = nil
    }

    private func forgetUnverified(_ connection: ICETCPConnection) {
        let host = connection.peer.storage.sin_addr.s_addr
        unverifiedTCPConnections -= 1
        let remaining = unverifiedTCPConnectionsByHost[host, default: 1] - 1
        unverifiedTCPConnectionsByHost[host] = remaining > 0 ? remaining : nil
    }
}
