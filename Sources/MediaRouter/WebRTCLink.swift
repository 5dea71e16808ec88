import DTLS
import ICE

/// The WebRTC front of a transport: its ICE-lite agent, its DTLS association, and what the peer's SDP
/// said to expect. Confined to the worker's thread, like its transport.
final class WebRTCLink {
    var ice: ICELiteAgent<IPv4Address>
    let dtls: DTLSConnection
    /// Whether the transport reads the worker's shared socket (demultiplexed by ufrag and address)
    /// rather than a port of its own.
    let sharesWorkerSocket: Bool
    /// The worker's shared-socket routes to this transport, by remote address key, oldest first.
    var sharedSocketAddressKeys: [UInt64] = []
    static let maximumSharedSocketRoutes = 16
    /// Where DTLS last came from: handshake replies and retransmissions go there until ICE nominates.
    var dtlsPeer: IPv4Address?
    /// When the transport was created; a handshake that has not finished by `handshakeDeadline` fails.
    let createdAt: UInt64
    var failed = false
    /// When the client sent close_notify: media has stopped, and the failure is reported a moment later.
    var closedByClientAt: UInt64?

    init(ice: ICELiteAgent<IPv4Address>, dtls: DTLSConnection, sharesWorkerSocket: Bool, now: UInt64) {
        self.ice = ice
        self.dtls = dtls
        self.sharesWorkerSocket = sharesWorkerSocket
        createdAt = now
    }
}
