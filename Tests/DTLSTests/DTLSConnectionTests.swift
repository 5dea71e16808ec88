import MediaTestSupport
import SRTP
import Testing

@testable import DTLS

@Suite struct DTLSConnectionTests {
    static let context = try! DTLSContext(certificate: DTLSCertificate())

    @Test func aHandshakeYieldsTheGCMProfileAndTheKeysTheClientDerives() throws {
        let server = try DTLSConnection(context: Self.context)
        let client = try DTLSTestClient(srtpProfiles: "SRTP_AES128_CM_SHA1_80:SRTP_AEAD_AES_128_GCM")
        #expect(server.expect(fingerprint: "sha-256", client.certificate.sha256Fingerprint) == .none)
        let events = client.handshake(with: server)
        guard case .connected(let keys) = events.last else {
            Issue.record("expected a connection, got \(events)")
            return
        }
        #expect(keys.profile == .aeadAES128GCM)
        #expect(server.isConnected)
        let exported = client.exportedKeyingMaterial(length: 2 * (16 + 12))
        #expect(keys.remote.masterKey == Array(exported[0..<16]))
        #expect(keys.local.masterKey == Array(exported[16..<32]))
        #expect(keys.remote.masterSalt == Array(exported[32..<44]))
        #expect(keys.local.masterSalt == Array(exported[44..<56]))
    }

    @Test func aClientOfferingOnlyAESCMGetsAESCM() throws {
        let server = try DTLSConnection(context: Self.context)
        let client = try DTLSTestClient(srtpProfiles: "SRTP_AES128_CM_SHA1_80")
        _ = server.expect(fingerprint: "sha-256", client.certificate.sha256Fingerprint)
        let events = client.handshake(with: server)
        guard case .connected(let keys) = events.last else {
            Issue.record("expected a connection, got \(events)")
            return
        }
        #expect(keys.profile == .aesCM128HMACSHA1_80)
        #expect(keys.local.masterSalt.count == 14)
    }

    @Test func aCertificateThatIsNotTheAnnouncedOneFailsTheHandshake() throws {
        let server = try DTLSConnection(context: Self.context)
        let client = try DTLSTestClient(srtpProfiles: "SRTP_AEAD_AES_128_GCM")
        let other = try DTLSCertificate(commonName: "someone else")
        _ = server.expect(fingerprint: "sha-256", other.sha256Fingerprint)
        let events = client.handshake(with: server)
        guard case .failed(.fingerprintMismatch(let algorithm, let expected, let received)) = events.last else {
            Issue.record("expected a fingerprint mismatch, got \(events)")
            return
        }
        #expect(algorithm == "sha-256")
        #expect(expected == DTLSFingerprintDigest.text(other.sha256Fingerprint))
        #expect(received == DTLSFingerprintDigest.text(client.certificate.sha256Fingerprint))
        #expect(!server.isConnected)
    }

    @Test func aHandshakeThatEndsBeforeTheAnswerWaitsForTheFingerprint() throws {
        let server = try DTLSConnection(context: Self.context)
        let client = try DTLSTestClient(srtpProfiles: "SRTP_AEAD_AES_128_GCM")
        #expect(client.handshake(with: server).isEmpty)
        #expect(!server.isConnected)
        let event = server.expect(fingerprint: "SHA-256", client.certificate.sha256Fingerprint)
        guard case .connected = event else {
            Issue.record("expected a connection once the fingerprint is known, got \(event)")
            return
        }
    }

    @Test func aClientWithoutUseSRTPIsRefused() throws {
        let server = try DTLSConnection(context: Self.context)
        let client = try DTLSTestClient(srtpProfiles: "")
        _ = server.expect(fingerprint: "sha-256", client.certificate.sha256Fingerprint)
        let events = client.handshake(with: server)
        guard case .failed = events.last else {
            Issue.record("expected a failure without use_srtp, got \(events)")
            return
        }
    }

    @Test func garbageBetweenRecordsIsIgnoredAndTheHandshakeStillCompletes() throws {
        let server = try DTLSConnection(context: Self.context)
        let client = try DTLSTestClient(srtpProfiles: "SRTP_AEAD_AES_128_GCM")
        _ = server.expect(fingerprint: "sha-256", client.certificate.sha256Fingerprint)
        let garbage: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x00, 1, 2, 3]
        #expect(garbage.withUnsafeBytes { server.receive($0) } == .none)
        guard case .connected = client.handshake(with: server).last else {
            Issue.record("garbage broke the handshake")
            return
        }
    }

    @Test func closeNotifyFromTheClientClosesTheAssociation() throws {
        let server = try DTLSConnection(context: Self.context)
        let client = try DTLSTestClient(srtpProfiles: "SRTP_AEAD_AES_128_GCM")
        _ = server.expect(fingerprint: "sha-256", client.certificate.sha256Fingerprint)
        _ = client.handshake(with: server)
        let alert = client.closeNotify()
        #expect(alert.withUnsafeBytes { server.receive($0) } == .closed)
    }

    @Test func flightsArePackedIntoDatagramsWithoutSplittingRecords() {
        func record(_ length: Int) -> [UInt8] { [22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 8) + [UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 7, count: length) }
        let bytes = record(500) + record(600) + record(100) + record(1100)
        let datagrams = DTLSRecordPacker.datagrams(from: bytes[...], maximumBytes: 1200)
        #expect(datagrams.map(\.count) == [513 + 613, 113, 1113])
        #expect(datagrams.flatMap { $0 } == bytes)
    }

    @Test func theCertificateFingerprintIsWrittenAsSDPWantsIt() throws {
        let certificate = try DTLSCertificate()
        #expect(certificate.sha256Fingerprint.count == 32)
        let text = certificate.sdpFingerprint
        #expect(text.hasPrefix("sha-256 "))
        #expect(text.split(separator: " ")[1].split(separator: ":").count == 32)
        #expect(text.dropFirst("sha-256 ".count).allSatisfy { "0123456789ABCDEF:".contains($0) })
    }
}
