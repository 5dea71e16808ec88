import CSRTP

/// One direction of SRTP and SRTCP protection over libsrtp2, for every SSRC of one transport.
///
/// A session either protects what we send (`.outbound`) or unprotects what we receive (`.inbound`);
/// a transport owns one of each. Packets are transformed in place in a caller-owned buffer, which must
/// start on a 32-bit boundary and, to protect, have the profile's trailer length of tail room.
///
/// Not thread-safe: like everything on the packet path it is confined to the worker queue that owns
/// its transport.
public final class SRTPSession {
    public enum Direction: Sendable {
        /// Protects packets we send. Retransmissions (the same SSRC and sequence number again, as NACK
        /// recovery sends them) are allowed.
        case outbound
        /// Unprotects packets we receive, with replay protection.
        case inbound
    }

    public let profile: SRTPProfile
    public let direction: Direction
    private let context: srtp_t

    /// - Parameter replayWindowSize: packets of the replay window (libsrtp accepts 64–32767); a large
    ///   window keeps NACK-recovered video from being rejected as too old.
    public init(keyMaterial: SRTPKeyMaterial, direction: Direction, replayWindowSize: Int = 1024) throws(SRTPError) {
        try SRTPLibrary.ensureInitialised()
        guard (64...0x7FFF).contains(replayWindowSize) else { throw .replayWindowOutOfRange(replayWindowSize) }
        profile = keyMaterial.profile
        self.direction = direction
        var policy = srtp_policy_t()
        Self.setCryptoPolicies(for: keyMaterial.profile, on: &policy)
        policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(replayWindowSize)
        policy.allow_repeat_tx = direction == .outbound ? 1 : 0
        var key = keyMaterial.keyAndSalt
        var created: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { keyBytes in
            policy.key = keyBytes.baseAddress
            return srtp_create(&created, &policy)
        }
        key.withUnsafeMutableBufferPointer { keyBytes in
            for index in keyBytes.indices { keyBytes[index] = 0 }
        }
        guard status == srtp_err_status_ok, let created else {
            throw .library(operation: "srtp_create", status: Int32(status.rawValue))
        }
        context = created
    }

    deinit {
        srtp_dealloc(context)
    }

    /// Encrypts and authenticates the RTP packet in the first `length` bytes of `buffer`, and returns
    /// the protected length.
    @inlinable
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, trailer: profile.rtpTrailerLength, operation: .protectRTP)
    }

    /// Verifies and decrypts the SRTP packet in the first `length` bytes of `buffer`, and returns the
    /// plain RTP length.
    @inlinable
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, trailer: 0, operation: .unprotectRTP)
    }

    /// Encrypts and authenticates the RTCP compound packet in the first `length` bytes of `buffer`.
    @inlinable
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, trailer: profile.rtcpTrailerLength, operation: .protectRTCP)
    }

    /// Verifies and decrypts the SRTCP packet in the first `length` bytes of `buffer`.
    @inlinable
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, trailer: 0, operation: .unprotectRTCP)
    }

    @usableFromInline
    enum Operation {
        case protectRTP, unprotectRTP, protectRTCP, unprotectRTCP
    }

    @usableFromInline
    func transform(
        _ buffer: UnsafeMutableRawBufferPointer, length: Int, trailer: Int, operation: Operation
    ) throws(SRTPError) -> Int {
        guard let base = buffer.baseAddress, length > 0 else { throw .malformedPacket }
        guard length <= buffer.count, length + trailer <= buffer.count else {
            throw .bufferTooSmall(needed: length + trailer, capacity: buffer.count)
        }
        guard Int(bitPattern: base) & 3 == 0 else { throw .misalignedBuffer }
        var transformedLength = Int32(length)
        let status: srtp_err_status_t
        switch operation {
        case .protectRTP: status = srtp_protect(context, base, &transformedLength)
        case .unprotectRTP: status = srtp_unprotect(context, base, &transformedLength)
        case .protectRTCP: status = srtp_protect_rtcp(context, base, &transformedLength)
        case .unprotectRTCP: status = srtp_unprotect_rtcp(context, base, &transformedLength)
        }
        guard status == srtp_err_status_ok else { throw Self.error(for: status, operation: operation) }
        return Int(transformedLength)
    }

    @usableFromInline
    static func error(for status: srtp_err_status_t, operation: Operation) -> SRTPError {
        switch status {
        case srtp_err_status_auth_fail: .authenticationFailed
        case srtp_err_status_replay_fail: .replayed
        case srtp_err_status_replay_old: .tooOld
        case srtp_err_status_bad_param, srtp_err_status_parse_err: .malformedPacket
        default: .library(operation: "\(operation)", status: Int32(status.rawValue))
        }
    }

    private static func setCryptoPolicies(for profile: SRTPProfile, on policy: inout srtp_policy_t) {
        switch profile {
        case .aesCM128HMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aesCM128HMACSHA1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtcp)
        }
    }
}
