/// The SRTP protection profiles Switchyard negotiates, by their RFC 4568 / RFC 7714 names.
public enum SRTPProfile: String, CaseIterable, Sendable {
    case aeadAES128GCM = "AEAD_AES_128_GCM"
    case aeadAES256GCM = "AEAD_AES_256_GCM"
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    case aesCM128HMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"

    /// Bytes of master key.
    public var masterKeyLength: Int {
        switch self {
        case .aeadAES256GCM: 32
        case .aeadAES128GCM, .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32: 16
        }
    }

    /// Bytes of master salt: 14 for the AES-CM profiles (RFC 3711), 12 for the AEAD ones (RFC 7714).
    public var masterSaltLength: Int {
        switch self {
        case .aeadAES128GCM, .aeadAES256GCM: 12
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32: 14
        }
    }

    /// Bytes SRTP appends to an RTP packet: the authentication tag.
    public var rtpTrailerLength: Int {
        switch self {
        case .aeadAES128GCM, .aeadAES256GCM: 16
        case .aesCM128HMACSHA1_80: 10
        case .aesCM128HMACSHA1_32: 4
        }
    }

    /// Bytes SRTCP appends to an RTCP packet: the E flag and SRTCP index, and the tag. SRTCP keeps the
    /// 80-bit tag under the 32-bit profile (RFC 5764 section 4.1.2).
    public var rtcpTrailerLength: Int {
        switch self {
        case .aeadAES128GCM, .aeadAES256GCM: 4 + 16
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32: 4 + 10
        }
    }

    /// The profile a DTLS-SRTP handshake negotiated, by its identifier; nil for one Switchyard does not serve.
    public init?(dtlsProfileIdentifier identifier: UInt16) {
        guard let profile = Self.allCases.first(where: { $0.dtlsProfileIdentifier == identifier }) else { return nil }
        self = profile
    }

    /// The DTLS-SRTP protection profile identifier (RFC 5764 section 4.1.2, RFC 7714 section 14.2).
    public var dtlsProfileIdentifier: UInt16 {
        switch self {
        case .aesCM128HMACSHA1_80: 0x0001
        case .aesCM128HMACSHA1_32: 0x0002
        case .aeadAES128GCM: 0x0007
        case .aeadAES256GCM: 0x0008
        }
    }
}
