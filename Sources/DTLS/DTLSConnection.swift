import COpenSSL
import SRTP

/// One DTLS-SRTP association in the passive (server) role, driven by datagrams: the transport feeds
/// what arrives with `receive`, sends what `takeOutgoing` returns, and calls `handleTimer` when
/// `retransmissionDelay` has passed. OpenSSL reads and writes memory BIOs, so no socket is involved.
///
/// The peer's certificate is checked against the fingerprint of its SDP. A subscriber's answer can
/// arrive after the browser has finished the handshake, so a handshake that ends before the expected
/// fingerprint is known waits for `expect(fingerprint:)`.
///
/// Not thread-safe; owned by one transport on its worker's queue.
public final class DTLSConnection {
    /// DTLS records are packed into datagrams no larger than this (with IP and UDP, under 1280).
    public static let maximumDatagramBytes = 1200
    /// Handshake bytes that may wait to be sent; a flight is a few kilobytes.
    static let maximumPendingBytes = 64 * 1024
    /// Retransmissions of one flight before the handshake is abandoned (OpenSSL doubles from 1 s).
    static let maximumRetransmissions = 6
    static let exporterLabel = "EXTRACTOR-dtls_srtp"

    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private var expected: (algorithm: String, bytes: [UInt8])?
    private var retransmissions = 0
    private var handshakeDone = false
    private var finished = false
    /// The keys of a handshake that ended before the fingerprint was known.
    private var keysAwaitingFingerprint: DTLSSRTPKeys?

    public init(context: DTLSContext) throws(DTLSError) {
        guard let ssl = SSL_new(context.context) else { throw OpenSSLErrors.failure("SSL_new") }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw OpenSSLErrors.failure("BIO_new")
        }
        switchyard_bio_set_retry_on_empty(incoming)
        switchyard_bio_set_retry_on_empty(outgoing)
        SSL_set_bio(ssl, incoming, outgoing)
        SSL_set_accept_state(ssl)
        switchyard_ssl_set_mtu(ssl, Self.maximumDatagramBytes)
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
    }

    deinit {
        SSL_free(ssl)
    }

    /// Whether the handshake finished and the fingerprint matched.
    public private(set) var isConnected = false

    /// The fingerprint the peer's SDP announced. Checks a handshake that already ended.
    public func expect(fingerprint algorithm: String, _ bytes: [UInt8]) -> DTLSEvent {
        expected = (algorithm.lowercased(), bytes)
        guard let keys = keysAwaitingFingerprint else { return .none }
        keysAwaitingFingerprint = nil
        return verifyPeer(keys: keys)
    }

    /// Feeds one received datagram of DTLS records.
    public func receive(_ datagram: UnsafeRawBufferPointer) -> DTLSEvent {
        guard !finished, let base = datagram.baseAddress, datagram.count > 0 else { return .none }
        guard BIO_write(incoming, base, Int32(datagram.count)) == Int32(datagram.count) else {
            return fail(OpenSSLErrors.failure("BIO_write"))
        }
        if !handshakeDone { return advanceHandshake() }
        return drainApplicationData()
    }

    /// Retransmits the current flight when its timer has run out.
    public func handleTimer() -> DTLSEvent {
        guard !finished, !handshakeDone, retransmissionDelaySeconds == 0 else { return .none }
        retransmissions += 1
        guard retransmissions <= Self.maximumRetransmissions else { return fail(.handshakeTimedOut) }
        if switchyard_dtls_handle_timeout(ssl) < 0 { return fail(.handshakeFailed(detail: OpenSSLErrors.drain())) }
        return pendingBytesWithinBound()
    }

    /// Seconds until `handleTimer` has a flight to resend; nil while no handshake timer runs.
    public var retransmissionDelaySeconds: Double? {
        guard !handshakeDone, !finished else { return nil }
        var seconds = 0
        var microseconds = 0
        guard switchyard_dtls_get_timeout(ssl, &seconds, &microseconds) == 1 else { return nil }
        return Double(seconds) + Double(microseconds) / 1e6
    }

    /// Everything to send, packed record by record into datagrams of at most `maximumDatagramBytes`.
    public func takeOutgoing() -> [[UInt8]] {
        let pending = Int(switchyard_bio_pending(outgoing))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = BIO_read(outgoing, &bytes, Int32(pending))
        guard read > 0 else { return [] }
        return DTLSRecordPacker.datagrams(from: bytes[0..<Int(read)], maximumBytes: Self.maximumDatagramBytes)
    }

    /// Sends close_notify (queued for `takeOutgoing`) and stops.
    public func close() {
        guard !finished else { return }
        finished = true
        if handshakeDone { SSL_shutdown(ssl) }
    }

    private func advanceHandshake() -> DTLSEvent {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone = true
            return completeHandshake()
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return pendingBytesWithinBound()
        default:
            return fail(.handshakeFailed(detail: OpenSSLErrors.drain()))
        }
    }

    private func completeHandshake() -> DTLSEvent {
        guard let selected = SSL_get_selected_srtp_profile(ssl),
            let profile = SRTPProfile(dtlsProfileIdentifier: UInt16(truncatingIfNeeded: selected.pointee.id))
        else { return fail(.noSRTPProfile) }
        let length = 2 * (profile.masterKeyLength + profile.masterSaltLength)
        var exported = [UInt8](repeating: 0, count: length)
        let label = Self.exporterLabel
        guard SSL_export_keying_material(ssl, &exported, length, label, label.utf8.count, nil, 0, 0) == 1 else {
            return fail(OpenSSLErrors.failure("SSL_export_keying_material"))
        }
        let keys: DTLSSRTPKeys
        do throws(SRTPError) {
            keys = try DTLSSRTPKeys(profile: profile, exported: exported)
        } catch {
            return fail(.handshakeFailed(detail: "\(error)"))
        }
        guard expected != nil else {
            keysAwaitingFingerprint = keys
            return .none
        }
        return verifyPeer(keys: keys)
    }

    private func verifyPeer(keys: DTLSSRTPKeys) -> DTLSEvent {
        guard let expected else { return .none }
        guard let peer = SSL_get1_peer_certificate(ssl) else { return fail(.noPeerCertificate) }
        defer { X509_free(peer) }
        let received: [UInt8]
        do throws(DTLSError) {
            received = try DTLSFingerprintDigest.fingerprint(of: peer, algorithm: expected.algorithm)
        } catch {
            return fail(error)
        }
        guard received == expected.bytes else {
            return fail(
                .fingerprintMismatch(
                    algorithm: expected.algorithm, expected: DTLSFingerprintDigest.text(expected.bytes),
                    received: DTLSFingerprintDigest.text(received)))
        }
        isConnected = true
        return .connected(keys)
    }

    /// After the handshake only alerts matter: WebRTC sends no DTLS application data to an SFU.
    private func drainApplicationData() -> DTLSEvent {
        var scratch = [UInt8](repeating: 0, count: 2048)
        while true {
            let read = SSL_read(ssl, &scratch, Int32(scratch.count))
            if read > 0 { continue }
            switch SSL_get_error(ssl, read) {
            case SSL_ERROR_ZERO_RETURN:
                finished = true
                return .closed
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return .none
            default:
                _ = OpenSSLErrors.drain()
                return .none
            }
        }
    }

    private func pendingBytesWithinBound() -> DTLSEvent {
        let pending = Int(switchyard_bio_pending(outgoing))
        return pending > Self.maximumPendingBytes ? fail(.handshakeTooLarge(bytes: pending)) : .none
    }

    private func fail(_ error: DTLSError) -> DTLSEvent {
        finished = true
        return .failed(error)
    }
}
