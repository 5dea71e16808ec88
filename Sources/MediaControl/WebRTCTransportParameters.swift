/// ICE credentials of one side of a WebRTC transport (RFC 8445 section 5.3).
public struct ICEParameters: Equatable, Sendable, Codable {
    public var usernameFragment: String
    public var password: String

    public init(usernameFragment: String, password: String) {
        self.usernameFragment = usernameFragment
        self.password = password
    }
}

/// A certificate fingerprint as SDP's `a=fingerprint` carries it: a hash name (`sha-256`) and the digest.
public struct CertificateFingerprint: Equatable, Sendable, Codable {
    public var algorithm: String
    public var bytes: [UInt8]

    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm
        self.bytes = bytes
    }
}

/// The router's side of a WebRTC transport: what its SDP announces.
public struct WebRTCTransportParameters: Equatable, Sendable, Codable {
    public var transportID: TransportID
    public var ice: ICEParameters
    /// Host candidates, UDP: the announced (or listen) address and the transport's port.
    public var candidates: [TransportAddress]
    /// Passive TCP host candidates (RFC 6544): the worker's ICE-TCP port, when it listens on one.
    public var tcpCandidates: [TransportAddress]
    /// The daemon's DTLS certificate.
    public var fingerprint: CertificateFingerprint

    public init(
        transportID: TransportID, ice: ICEParameters, candidates: [TransportAddress], tcpCandidates: [TransportAddress] = [],
        fingerprint: CertificateFingerprint
    ) {
        self.transportID = transportID
        self.ice = ice
        self.candidates = candidates
        self.tcpCandidates = tcpCandidates
        self.fingerprint = fingerprint
    }

    private enum CodingKeys: String, CodingKey {
        case transportID, ice, candidates, tcpCandidates, fingerprint
    }

    /// Reads parameters from a node that predates TCP candidates as having none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transportID = try container.decode(TransportID.self, forKey: .transportID)
        ice = try container.decode(ICEParameters.self, forKey: .ice)
        candidates = try container.decode([TransportAddress].self, forKey: .candidates)
        tcpCandidates = try container.decodeIfPresent([TransportAddress].self, forKey: .tcpCandidates) ?? []
        fingerprint = try container.decode(CertificateFingerprint.self, forKey: .fingerprint)
    }
}

/// The client's side of a WebRTC transport, from its SDP.
public struct WebRTCRemoteParameters: Equatable, Sendable, Codable {
    public var ice: ICEParameters
    /// The certificate the client's DTLS must present; the transport closes on a mismatch.
    public var fingerprint: CertificateFingerprint
    /// The header extension id both sides agreed on for the transport-wide sequence number, when
    /// they did: the router then numbers what it sends and estimates the client's downlink from its
    /// transport-wide feedback.
    public var transportWideSequenceID: UInt8?
    /// How the router sends the client audio that arrives as RFC 2198 redundant audio: at the
    /// payload type the client agreed to take `red/48000/2` at, or the primary frames alone.
    public var redundantAudio: RedundantAudioDelivery

    public init(
        ice: ICEParameters, fingerprint: CertificateFingerprint, transportWideSequenceID: UInt8? = nil,
        redundantAudio: RedundantAudioDelivery = .primaryOnly
    ) {
        self.ice = ice
        self.fingerprint = fingerprint
        self.transportWideSequenceID = transportWideSequenceID
        self.redundantAudio = redundantAudio
    }

    private enum CodingKeys: String, CodingKey {
        case ice, fingerprint, transportWideSequenceID, redundantAudio
    }

    /// Reads parameters from a node that predates RED as taking the primary frames alone.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ice = try container.decode(ICEParameters.self, forKey: .ice)
        fingerprint = try container.decode(CertificateFingerprint.self, forKey: .fingerprint)
        transportWideSequenceID = try container.decodeIfPresent(UInt8.self, forKey: .transportWideSequenceID)
        redundantAudio = try container.decodeIfPresent(RedundantAudioDelivery.self, forKey: .redundantAudio) ?? .primaryOnly
    }
}
