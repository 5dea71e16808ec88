import ICE
import MediaControl
import SRTP

/// A WebRTC client for tests, as a browser behaves toward an ICE-lite router: it sends connectivity
/// checks (controlling, with USE-CANDIDATE), then runs DTLS in the active role and keys SRTP from it.
public final class WebRTCTestPeer {
    public let peer: TestPeer
    public let credentials = ICECredentials.random()
    public let dtls: DTLSTestClient
    public private(set) var router: WebRTCTransportParameters?

    /// A peer on a UDP socket of its own, or with `tcpToRouterPort` one connected to the router's
    /// ICE-TCP port.
    public init(srtpProfiles: String = "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80", tcpToRouterPort: UInt16? = nil) throws {
        peer = try tcpToRouterPort.map { try TestPeer(tcpToRouterPort: $0) } ?? TestPeer()
        dtls = try DTLSTestClient(srtpProfiles: srtpProfiles)
    }

    /// What the router must be told: this peer's ICE credentials and certificate fingerprint.
    public var remoteParameters: WebRTCRemoteParameters {
        WebRTCRemoteParameters(
            ice: ICEParameters(usernameFragment: credentials.usernameFragment, password: credentials.password),
            fingerprint: CertificateFingerprint(algorithm: "sha-256", bytes: dtls.certificate.sha256Fingerprint))
    }

    public func target(_ router: WebRTCTransportParameters) {
        self.router = router
        if !peer.isStream { peer.routerPort = router.candidates[0].port }
    }

    public enum CheckOutcome: Equatable, Sendable {
        case success(mappedPort: UInt16)
        case error(code: Int)
        case noAnswer
    }

    /// Sends one Binding request (from `path`, another socket of the same client, when given) and
    /// waits for the answer.
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func check(
        useCandidate: Bool = true, usernameFragment: String? = nil, password: String? = nil, waitMilliseconds: Int = 500,
        via path: TestPeer? = nil
    ) -> CheckOutcome {
        guard let router else { return .noAnswer }
        let peer = path ?? peer
        var request = [UInt8](repeating: 0, count: 512)
        let transaction = STUNTransactionID.random()
        let length = request.withUnsafeMutableBytes { buffer in
            STUNMessageWriter.bindingRequest(
                transactionID: transaction, username: "\(usernameFragment ?? router.ice.usernameFragment):\(credentials.usernameFragment)",
                priority: 2_130_706_431, controllingTieBreaker: 42, useCandidate: useCandidate,
                integrityKey: Array((password ?? router.ice.password).utf8), into: buffer)
        }
        peer.sendRaw(Array(request.prefix(length)))
        peer.setReceiveTimeout(milliseconds: waitMilliseconds)
        defer { peer.setReceiveTimeout(milliseconds: 1000) }
        while let datagram = peer.receiveRaw() {
            guard PacketClass.demultiplex(firstByte: datagram[0]) == .stun else { continue }
            let outcome: CheckOutcome? = datagram.withUnsafeBytes { bytes in
                guard let message = try? STUNMessage(parsing: bytes), message.transactionID == transaction else { return nil }
                if let code = message.errorCode { return .error(code: code) }
                guard message.hasValidMessageIntegrity(key: Array(router.ice.password.utf8)), message.hasValidFingerprint(),
                    let mapped = message.xorMappedIPv4
                else { return .error(code: 0) }
                return .success(mappedPort: mapped.port)
            }
            if let outcome { return outcome }
        }
        return .noAnswer
    }

    /// Runs the DTLS handshake over the socket and keys SRTP; returns the negotiated profile, or nil
    /// when the handshake did not finish within `rounds` exchanges.
    @discardableResult
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func handshake(rounds: Int = 20) throws -> SRTPProfile? {
        peer.setReceiveTimeout(milliseconds: 300)
        defer { peer.setReceiveTimeout(milliseconds: 1000) }
        for _ in 0..<rounds {
            let flight = dtls.step()
            if !flight.isEmpty { peer.sendRaw(flight) }
            if dtls.isHandshakeDone { break }
            var next = peer.receiveRaw()
            while let datagram = next {
                if PacketClass.demultiplex(firstByte: datagram[0]) == .dtls { dtls.receive(datagram) }
                next = peer.receiveRawIfQueued()
            }
        }
        guard dtls.isHandshakeDone, let keys = try dtls.srtpKeys() else { return nil }
        try peer.useKeys(local: keys.local, remote: keys.remote)
        return keys.local.profile
    }
}
