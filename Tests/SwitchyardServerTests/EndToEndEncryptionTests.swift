import Foundation
import MediaTestSupport
import SignalingProtocol
import Testing

/// Sessions created with `e2ee: true` (docs/e2ee.md): the option is fixed at creation and shown to
/// clients; the router negotiates no RED in them, and refuses by name whatever would carry media its
/// client does not encrypt (plain transports, WHIP) or cannot decrypt (plain transports, WHEP).
@Suite(.serialized) struct EndToEndEncryptionTests {
    /// A publisher's offer whose audio carries RED around its Opus, as Chromium's does.
    static let offerWithRed = WebRTCSignalingTests.publisherOffer()
        .replacingOccurrences(of: "m=audio 9 UDP/TLS/RTP/SAVPF 111", with: "m=audio 9 UDP/TLS/RTP/SAVPF 63 111")
        .replacingOccurrences(of: "a=rtpmap:111 opus/48000/2", with: "a=rtpmap:63 red/48000/2\r\na=fmtp:63 111/111\r\na=rtpmap:111 opus/48000/2")

    private func message(_ body: Data) -> String {
        ((try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String) ?? String(decoding: body, as: UTF8.self)
    }

    @Test func theOptionIsSetAtCreationShownToClientsAndCannotChange() async throws {
        let daemon = try await DaemonHarness.start()
        let rest = try await daemon.restToken()
        #expect(try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"sealed","e2ee":true}"#).status == 201)
        let read = try JSONDecoder().decode(SessionSnapshot.self, from: try await daemon.http("GET", "/v1/sessions/sealed", token: rest).body)
        #expect(read.isEndToEndEncrypted)
        let (client, connected) = try await daemon.connect(session: "sealed", role: .publisher)
        #expect(connected.session.e2ee == true)
        // The same again, or the audio alone, is fine; the other way round is refused by name.
        #expect(try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"sealed","e2ee":true}"#).status == 201)
        #expect(try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"sealed"}"#).status == 201)
        let changed = try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"sealed","e2ee":false}"#)
        #expect(changed.status == 400)
        #expect(message(changed.body).contains("body.e2ee"), "\(message(changed.body))")
        #expect(message(changed.body).contains("exists already with end-to-end encryption"))
        let malformed = try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"other","e2ee":"yes"}"#)
        #expect(malformed.status == 400)
        #expect(message(malformed.body).contains("e2ee"), "\(message(malformed.body))")
        // A session made by a client's connect, or over REST without the option, is not encrypted,
        // and its snapshot leaves the field out.
        let (_, open) = try await daemon.connect(session: "open", role: .publisher)
        #expect(open.session.e2ee == nil)
        let later = try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"open","e2ee":true}"#)
        #expect(later.status == 400)
        #expect(message(later.body).contains("exists already without end-to-end encryption"))
        await client.close()
        try await daemon.stop()
    }

    /// Whatever a client sends (media, and datagrams that are not SRTP or not RTP), the daemon logs
    /// none of its payload bytes, at any level: the marker in every payload reaches the subscriber and
    /// no log line.
    @Test func theDaemonLogsNoPayloadByteAtAnyLevel() async throws {
        let log = CapturedLog()
        let daemon = try await DaemonHarness.start(log: log)
        let (publisher, _) = try await daemon.connect(session: "marked", role: .publisher)
        let (viewer, _) = try await daemon.connect(session: "marked", role: .subscriber)
        let peer = try TestPeer()
        guard case .publish(let published) = try await publisher.call(.publish(peer.publishParameters())) else {
            throw WebSocketTestClient.Failure.timedOut("publish reply")
        }
        try peer.accept(try #require(published.transport))
        let viewerPeer = try TestPeer()
        guard case .subscribe(let subscribed) = try await viewer.call(
            .subscribe(SubscribeParameters(streamId: published.stream.streamId, transport: viewerPeer.transportOffer)))
        else { throw WebSocketTestClient.Failure.timedOut("subscribe reply") }
        try viewerPeer.accept(try #require(subscribed.transport))
        let marker = Array("SEALED-PAYLOAD-7f3a9c".utf8)
        for index in 0..<20 {
            try peer.sendRTP(
                payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(index * 3000), ssrc: TestPeer.videoSSRC,
                payload: VP8TestPayload.make(index: index, keyFrame: index == 0, size: 40) + marker)
            try peer.sendRTP(
                payloadType: 111, sequenceNumber: UInt16(index), timestamp: UInt32(index * 960), ssrc: TestPeer.audioSSRC, payload: [0x78] + marker)
        }
        // Not SRTP at all, a truncated RTP header, an RTCP header claiming more than follows.
        for garbage in [marker, [0x80, 0x60, 0x00, 0x01] + marker, [0x80, 0xC8, 0x00, 0x40] + marker] { peer.sendRaw(garbage) }
        let arrived = try await onOwnThread {
            viewerPeer.receiveFirst(within: 3000) { packet -> Bool? in
                guard case .rtp(_, _, _, _, let payload) = packet, payload.firstRange(of: marker) != nil else { return nil }
                return true
            }
        }
        #expect(arrived == true, "the marked media reached the subscriber")
        for client in [publisher, viewer] { await client.close() }
        try await daemon.stop()

        let lines = log.all
        #expect(lines.count > 10, "the daemon logged at trace level: \(lines.count) lines")
        let hex = marker.map { String($0, radix: 16) }.joined()
        let leaked = lines.filter { $0.contains("SEALED-PAYLOAD") || $0.lowercased().contains(hex.prefix(12)) }
        #expect(leaked.isEmpty, "\(leaked)")
    }

    @Test func anEncryptedSessionNegotiatesNoRedAndRefusesWhatWouldCarryMediaInTheClear() async throws {
        let daemon = try await DaemonHarness.start()
        let rest = try await daemon.restToken()
        #expect(try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"sealed","e2ee":true}"#).status == 201)
        let (publisher, _) = try await daemon.connect(session: "sealed", role: .publisher)
        let (viewer, _) = try await daemon.connect(session: "sealed", role: .subscriber)

        // A plain publisher would send what its client does not encrypt.
        let peer = try TestPeer()
        let plain = try await publisher.refusal(.publish(peer.publishParameters()))
        #expect(plain?.code == .invalidParams)
        #expect(plain?.message.hasPrefix("params.transport: session sealed is end-to-end encrypted") == true, "\(plain?.message ?? "")")

        // A WebRTC publisher is answered plain Opus, though it offered RED.
        guard case .publish(let published) = try await publisher.call(.publish(PublishParameters(name: "cam", sdpOffer: Self.offerWithRed)))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        let answer = try #require(published.sdpAnswer)
        #expect(!answer.contains("red/48000"), "\(answer)")
        #expect(answer.contains(" UDP/TLS/RTP/SAVPF 111\r\n"), "\(answer)")
        let streamId = published.stream.streamId

        // A WebRTC subscriber is offered no RED; a plain one and a WHEP player cannot decrypt.
        guard case .subscribe(let subscribed) = try await viewer.call(.subscribe(SubscribeParameters(streamId: streamId, webrtc: true)))
        else { throw WebSocketTestClient.Failure.timedOut("subscribe reply") }
        let offer = try #require(subscribed.sdpOffer)
        #expect(!offer.contains("red/48000"), "\(offer)")
        let plainViewer = try await viewer.refusal(.subscribe(SubscribeParameters(streamId: streamId, transport: try TestPeer().transportOffer)))
        #expect(plainViewer?.code == .invalidParams)
        #expect(plainViewer?.message.contains("a plain transport carries media its client cannot decrypt") == true, "\(plainViewer?.message ?? "")")
        let whep = try await daemon.http(
            "POST", "/v1/whep/sealed/\(streamId)", token: try await daemon.token(session: "sealed", role: .subscriber),
            body: WebRTCSignalingTests.publisherOffer(), contentType: "application/sdp")
        #expect(whep.status == 403)
        #expect(message(whep.body).contains("a WHEP player cannot decrypt its media"), "\(message(whep.body))")
        let whip = try await daemon.http(
            "POST", "/v1/whip/sealed", token: try await daemon.token(session: "sealed", role: .publisher), body: Self.offerWithRed,
            contentType: "application/sdp")
        #expect(whip.status == 403)
        #expect(message(whip.body).contains("a WHIP publisher sends its media unencrypted"), "\(message(whip.body))")

        // The same offer in a session without the option is answered RED first.
        let (open, _) = try await daemon.connect(session: "open", role: .publisher)
        guard case .publish(let openPublished) = try await open.call(.publish(PublishParameters(name: "cam", sdpOffer: Self.offerWithRed)))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        #expect(openPublished.sdpAnswer?.contains(" UDP/TLS/RTP/SAVPF 63 111\r\n") == true, "\(openPublished.sdpAnswer ?? "")")
        for client in [publisher, viewer, open] { await client.close() }
        try await daemon.stop()
    }
}
