import CSystemShims
import DTLS
import ICE
import MediaControl
import SRTP

/// ICE-lite and DTLS-SRTP in front of a transport: RFC 7983 demultiplexing of what arrives, STUN
/// answers, the DTLS handshake that yields the SRTP keys, and the timers of both.
extension Transport {
    /// How long after a client's close_notify the transport is reported failed.
    static let clientCloseGrace: UInt64 = 2_000_000_000

    /// Demultiplexes one datagram of a WebRTC transport. STUN and DTLS are handled here; returns true
    /// for SRTP or SRTCP from an address ICE verified, which the caller unprotects.
    func handleWebRTCDatagram(
        _ slot: UnsafeMutablePointer<switchyard_datagram_slot>, buffer: UnsafeMutableRawBufferPointer, link: WebRTCLink,
        router: Router, now: UInt64
    ) -> Bool {
        let length = slot.pointee.length
        guard length > 0, !link.failed else {
            router.drops.notRTP += 1
            return false
        }
        let packetClass = PacketClass.demultiplex(firstByte: buffer[0])
        if packetClass == .stun {
            handleSTUN(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), slot: slot, link: link, router: router, now: now)
            return false
        }
        var source = remote
        if !(remote?.matches(slot) ?? false) {
            guard let address = IPv4Address(slot: slot.pointee), link.ice.isVerified(address) else {
                router.drops.unverifiedSource += 1
                return false
            }
            source = address
        }
        switch packetClass {
        case .dtls:
            handleDTLS(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), from: source!, link: link, now: now)
            return false
        case .rtpOrRTCP:
            return true
        default:
            router.drops.notRTP += 1
            return false
        }
    }

    private func handleSTUN(
        _ bytes: UnsafeRawBufferPointer, slot: UnsafeMutablePointer<switchyard_datagram_slot>, link: WebRTCLink, router: Router,
        now: UInt64
    ) {
        guard let source = IPv4Address(slot: slot.pointee) else {
            router.drops.stun += 1
            return
        }
        let message: STUNMessage
        do throws(STUNError) {
            message = try STUNMessage(parsing: bytes)
        } catch {
            router.drops.stun += 1
            return
        }
        let wasVerified = link.ice.isVerified(source)
        let action = link.ice.handle(message, from: source, now: now)
        if let response = action.response {
            sendSTUN(to: source) { response.write(mappedIPv4: source.hostOrderAddress, mappedPort: source.port, into: $0) }
        }
        switch action {
        case .respond:
            break
        case .nominated(let address, _):
            remote = address
            if isConnected { worker.events.yield(.transportConnected(id, remote: address.transportAddress)) }
        case .respondError(let code, let reason, let authenticated):
            router.drops.stun += 1
            let key = authenticated ? link.ice.localIntegrityKey : nil
            sendSTUN(to: source) { buffer in
                STUNMessageWriter.bindingError(
                    transactionID: message.transactionID, code: code, reason: reason, integrityKey: key, into: buffer)
            }
        case .drop:
            router.drops.stun += 1
        }
        if !wasVerified, link.ice.isVerified(source) {
            if link.ice.nominated == nil { remote = link.ice.selected }
            if link.sharesWorkerSocket, worker.tcpFrameSource == nil { routeSharedSocket(from: source.key, link: link) }
        }
    }

    private func sendSTUN(to destination: IPv4Address, _ write: (UnsafeMutableRawBufferPointer) -> Int) {
        let slot = worker.sendSlot()
        let length = write(slot.buffer)
        guard length > 0 else {
            worker.releaseLastSendSlot(slot.index)
            return
        }
        worker.enqueue(slot: slot.index, length: length, on: self, to: destination)
    }

    private func handleDTLS(_ bytes: UnsafeRawBufferPointer, from source: IPv4Address, link: WebRTCLink, now: UInt64) {
        link.dtlsPeer = source
        let event = link.dtls.receive(bytes)
        sendDTLSFlight(link, to: source)
        handle(event, link: link, now: now)
    }

    private func sendDTLSFlight(_ link: WebRTCLink, to destination: IPv4Address) {
        for datagram in link.dtls.takeOutgoing() {
            let slot = worker.sendSlot()
            datagram.withUnsafeBytes { slot.buffer.copyMemory(from: $0) }
            worker.enqueue(slot: slot.index, length: datagram.count, on: self, to: destination)
        }
    }

    /// The peer's SDP arrived: its ICE credentials and the fingerprint its certificate must match.
    func connectWebRTC(remote parameters: WebRTCRemoteParameters, now: UInt64) {
        guard let webRTC, !webRTC.failed else { return }
        webRTC.ice.setRemote(
            ICECredentials(usernameFragment: parameters.ice.usernameFragment, password: parameters.ice.password))
        transportWideSequenceID = parameters.transportWideSequenceID
        redundantAudio = parameters.redundantAudio
        let event = webRTC.dtls.expect(fingerprint: parameters.fingerprint.algorithm, parameters.fingerprint.bytes)
        handle(event, link: webRTC, now: now)
    }

    private func handle(_ event: DTLSEvent, link: WebRTCLink, now: UInt64) {
        switch event {
        case .none:
            return
        case .connected(let keys):
            do throws(SRTPError) {
                inbound = try SRTPSession(
                    keyMaterial: keys.remote, direction: .inbound, replayWindowSize: worker.configuration.replayWindowSize)
                outbound = try SRTPSession(keyMaterial: keys.local, direction: .outbound)
            } catch {
                failWebRTC(link, reason: "SRTP keys from DTLS: \(error)")
                return
            }
            if remote == nil { remote = link.ice.selected ?? link.dtlsPeer }
            if let remote { worker.events.yield(.transportConnected(id, remote: remote.transportAddress)) }
            startConsumersFromKeyFrames(now: now)
        case .failed(let error):
            failWebRTC(link, reason: "DTLS: \(error)")
        case .closed:
            // A page that closes sends close_notify just before its WebSocket goes: signaling gets that
            // moment to end the stream for the person's reason rather than as a media failure.
            inbound = nil
            outbound = nil
            link.closedByClientAt = now
        }
    }

    /// Timer work: DTLS retransmission, the connect deadline and ICE consent.
    func tickWebRTC(now: UInt64) {
        guard let webRTC, !webRTC.failed else { return }
        if let closedAt = webRTC.closedByClientAt {
            if now &- closedAt >= Self.clientCloseGrace { failWebRTC(webRTC, reason: "the client closed DTLS") }
            return
        }
        if webRTC.dtls.retransmissionDelaySeconds == 0 {
            let event = webRTC.dtls.handleTimer()
            if let destination = remote ?? webRTC.dtlsPeer { sendDTLSFlight(webRTC, to: destination) }
            handle(event, link: webRTC, now: now)
        }
        if !isConnected, now &- webRTC.createdAt > UInt64(worker.configuration.webRTCConnectTimeout.nanoseconds) {
            failWebRTC(webRTC, reason: "ICE and DTLS did not connect within \(worker.configuration.webRTCConnectTimeout)")
            return
        }
        if case .consentExpired = webRTC.ice.tick(now: now) {
            failWebRTC(webRTC, reason: "ICE consent expired: no connectivity check from the client for \(worker.configuration.iceConsentTimeout)")
        }
    }

    /// Routes the worker's shared socket's packets from a newly verified address here. A client that
    /// keeps verifying new addresses holds at most `WebRTCLink.maximumSharedSocketRoutes`: the oldest
    /// route goes first, as ICE forgets the oldest address.
    private func routeSharedSocket(from key: UInt64, link: WebRTCLink) {
        worker.sharedSocketTransportsByAddress[key] = self
        link.sharedSocketAddressKeys.removeAll { $0 == key }
        link.sharedSocketAddressKeys.append(key)
        guard link.sharedSocketAddressKeys.count > WebRTCLink.maximumSharedSocketRoutes else { return }
        let oldest = link.sharedSocketAddressKeys.removeFirst()
        if worker.sharedSocketTransportsByAddress[oldest] === self { worker.sharedSocketTransportsByAddress[oldest] = nil }
    }

    /// ICE restart: new local credentials (and the client's, when known); DTLS and SRTP stay.
    func restartICE(remote parameters: ICEParameters?, now: UInt64) -> ICEParameters? {
        guard let webRTC else { return nil }
        let local = ICECredentials.random()
        let remoteCredentials = parameters.map { ICECredentials(usernameFragment: $0.usernameFragment, password: $0.password) }
        let previous = webRTC.ice.localCredentials.usernameFragment
        webRTC.ice.restart(local: local, remote: remoteCredentials, now: now)
        worker.webRTCTransportsByUsernameFragment[previous] = nil
        worker.webRTCTransportsByUsernameFragment[local.usernameFragment] = self
        return ICEParameters(usernameFragment: local.usernameFragment, password: local.password)
    }

    /// Stops media on a transport that cannot carry it any more and tells signaling, once.
    private func failWebRTC(_ link: WebRTCLink, reason: String) {
        guard !link.failed else { return }
        link.failed = true
        inbound = nil
        outbound = nil
        worker.events.yield(.transportFailed(id, reason: reason))
    }

    /// Sends close_notify and forgets the transport's routes on the worker.
    func closeWebRTC(_ link: WebRTCLink) {
        if link.dtls.isConnected, let destination = remote {
            link.dtls.close()
            sendDTLSFlight(link, to: destination)
            worker.flush()
        }
        worker.removeWebRTCRoutes(of: self)
    }
}
