import COpenSSL
import DTLS
import SRTP

/// A DTLS client in the active role, as a browser would be, driven through memory BIOs.
public final class DTLSTestClient {
    public let certificate: DTLSCertificate
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer

    public init(srtpProfiles: String) throws {
        certificate = try DTLSCertificate(commonName: "client")
        context = SSL_CTX_new(DTLS_client_method())!
        try certificate.install(on: context)
        SSL_CTX_set_tlsext_use_srtp(context, srtpProfiles)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER) { _, _ in 1 }
        ssl = SSL_new(context)!
        incoming = BIO_new(BIO_s_mem())!
        outgoing = BIO_new(BIO_s_mem())!
        switchyard_bio_set_retry_on_empty(incoming)
        switchyard_bio_set_retry_on_empty(outgoing)
        SSL_set_bio(ssl, incoming, outgoing)
        SSL_set_connect_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    public var isHandshakeDone: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Advances the handshake and returns what the client sends.
    public func step() -> [UInt8] {
        _ = SSL_do_handshake(ssl)
        let pending = Int(switchyard_bio_pending(outgoing))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = BIO_read(outgoing, &bytes, Int32(pending))
        return Array(bytes.prefix(max(0, Int(read))))
    }

    public func receive(_ datagram: [UInt8]) {
        _ = datagram.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32($0.count)) }
    }

    public func exportedKeyingMaterial(length: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        let label = "EXTRACTOR-dtls_srtp"
        _ = SSL_export_keying_material(ssl, &bytes, length, label, label.utf8.count, nil, 0, 0)
        return bytes
    }

    public func closeNotify() -> [UInt8] {
        SSL_shutdown(ssl)
        return step()
    }

    /// Runs the handshake against `server` until neither side has anything more to say; returns the
    /// events the server reported.
    public func handshake(with server: DTLSConnection, maximumRounds: Int = 20) -> [DTLSEvent] {
        var events: [DTLSEvent] = []
        for _ in 0..<maximumRounds {
            let flight = step()
            if flight.isEmpty, isHandshakeDone { break }
            if !flight.isEmpty {
                let event = flight.withUnsafeBytes { server.receive($0) }
                if event != .none { events.append(event) }
            }
            for datagram in server.takeOutgoing() { receive(datagram) }
        }
        _ = step()
        return events
    }

    /// The profile the server chose, once the handshake is done.
    public var selectedProfile: SRTPProfile? {
        guard let selected = SSL_get_selected_srtp_profile(ssl) else { return nil }
        return SRTPProfile(dtlsProfileIdentifier: UInt16(truncatingIfNeeded: selected.pointee.id))
    }

    /// The client's keys (what it protects with) and the server's, from the exporter.
    public func srtpKeys() throws -> (local: SRTPKeyMaterial, remote: SRTPKeyMaterial)? {
        guard let profile = selectedProfile else { return nil }
        let exported = exportedKeyingMaterial(length: 2 * (profile.masterKeyLength + profile.masterSaltLength))
        // The same split the router makes, seen from the other end.
        let server = try DTLSSRTPKeys(profile: profile, exported: exported)
        return (server.remote, server.local)
    }
}
