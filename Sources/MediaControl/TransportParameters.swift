/// A UDP endpoint, as signaling exchanges it.
public struct TransportAddress: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A dotted-quad IPv4 address.
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}

/// SRTP keying of one direction of a plain transport, as SDES-style parameters: a profile name
/// (`AEAD_AES_128_GCM`, `AES_CM_128_HMAC_SHA1_80`, ...) and an RFC 4568 `inline:` key parameter.
public struct SRTPParameters: Equatable, Sendable, Codable {
    public var profile: String
    public var keyParameter: String

    public init(profile: String, keyParameter: String) {
        self.profile = profile
        self.keyParameter = keyParameter
    }
}

/// What a client asks for when it creates a plain SRTP transport.
public struct PlainTransportOptions: Equatable, Sendable, Codable {
    /// The client's address; nil to learn it from the first packet that authenticates.
    public var remoteAddress: TransportAddress?
    /// How the client protects what it sends to the router.
    public var clientSRTP: SRTPParameters
    /// The profile the router should protect with; nil for the client's profile.
    public var routerProfile: String?
    /// The key the router protects with, when the caller chose it (a relay leg between two routers,
    /// where the far end's keys are made before this transport); nil for a fresh random key of
    /// `routerProfile`, which it then overrides.
    public var routerSRTP: SRTPParameters?
    /// The one-byte header extension id (1-14) of the transport-wide sequence number, when the client
    /// takes part in transport-wide congestion control: the router numbers what it sends with it and
    /// estimates the client's downlink from its feedback, and reports what arrives with it.
    public var transportWideSequenceID: UInt8?
    /// How the router sends the client audio that arrives as RFC 2198 redundant audio.
    public var redundantAudio: RedundantAudioDelivery
    /// The transport is a relay leg to another node's router, not one subscriber: it carries a whole
    /// edge's audience, so overload shedding never turns its video off.
    public var isRelayLeg: Bool

    public init(
        remoteAddress: TransportAddress? = nil, clientSRTP: SRTPParameters, routerProfile: String? = nil,
        transportWideSequenceID: UInt8? = nil, routerSRTP: SRTPParameters? = nil,
        redundantAudio: RedundantAudioDelivery = .primaryOnly, isRelayLeg: Bool = false
    ) {
        self.isRelayLeg = isRelayLeg
        self.remoteAddress = remoteAddress
        self.clientSRTP = clientSRTP
        self.routerProfile = routerProfile
        self.routerSRTP = routerSRTP
        self.transportWideSequenceID = transportWideSequenceID
        self.redundantAudio = redundantAudio
    }

    private enum CodingKeys: String, CodingKey {
        case remoteAddress, clientSRTP, routerProfile, routerSRTP, transportWideSequenceID, redundantAudio, isRelayLeg
    }

    /// Reads options from a node that predates RED as taking the primary frames alone, and from one
    /// that predates overload shedding as no relay leg.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        remoteAddress = try container.decodeIfPresent(TransportAddress.self, forKey: .remoteAddress)
        clientSRTP = try container.decode(SRTPParameters.self, forKey: .clientSRTP)
        routerProfile = try container.decodeIfPresent(String.self, forKey: .routerProfile)
        routerSRTP = try container.decodeIfPresent(SRTPParameters.self, forKey: .routerSRTP)
        transportWideSequenceID = try container.decodeIfPresent(UInt8.self, forKey: .transportWideSequenceID)
        redundantAudio = try container.decodeIfPresent(RedundantAudioDelivery.self, forKey: .redundantAudio) ?? .primaryOnly
        isRelayLeg = try container.decodeIfPresent(Bool.self, forKey: .isRelayLeg) ?? false
    }
}

/// What the router answers: where to send, and how the router protects what it sends.
public struct PlainTransportParameters: Equatable, Sendable, Codable {
    public var transportID: TransportID
    public var localAddress: TransportAddress
    public var routerSRTP: SRTPParameters

    public init(transportID: TransportID, localAddress: TransportAddress, routerSRTP: SRTPParameters) {
        self.transportID = transportID
        self.localAddress = localAddress
        self.routerSRTP = routerSRTP
    }
}
