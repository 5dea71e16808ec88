import Foundation
import RTPWire
import Testing

@testable import SessionDescription

/// RFC 2198 redundant audio (`red/48000/2`) in each of the router's three negotiations: taken from a
/// publisher that offers it around its Opus, offered to subscribers who may decline it, and answered
/// to a player that offers it (docs/red.md).
@Suite struct RedundantAudioNegotiationTests {
    private func publisherAnswer(_ text: String) throws -> (answer: SessionDescription, tracks: [NegotiatedTrack]) {
        let (answer, _, tracks) = try PublisherNegotiation.answer(offer: SessionDescription(parsing: text), local: routerTransport, sessionID: 42)
        return (answer, tracks)
    }

    @Test func aPublishersRedAroundItsOpusIsAnsweredFirstSoTheBrowserSendsIt() throws {
        let (answer, tracks) = try publisherAnswer(SDPFixtures.chromeOffer)
        #expect(answer.media[0].formats == ["63", "111"])
        #expect(lines(of: answer).contains("a=fmtp:63 111/111"))
        #expect(tracks[0].redPayloadType == 63)
        #expect(tracks[1].redPayloadType == nil)
    }

    /// In an end-to-end encrypted session the sender's transform would seal RED's blocks with the
    /// frame: the router answers plain Opus, so the browser sends no RED.
    @Test func withoutRedundantAudioAPublishersRedIsLeftOutOfTheAnswer() throws {
        let (answer, _, tracks) = try PublisherNegotiation.answer(
            offer: SessionDescription(parsing: SDPFixtures.chromeOffer), local: routerTransport, sessionID: 42, redundantAudio: false)
        #expect(answer.media[0].formats == ["111"])
        #expect(!lines(of: answer).contains { $0.contains("red/48000") })
        #expect(tracks[0].redPayloadType == nil)
    }

    /// RED of another codec, or with no `a=fmtp` saying what is inside, is not what the router strips.
    @Test(arguments: ["a=fmtp:63 0/111", "a=fmtp:63 111/0", "a=fmtp:63 111/111/0", nil])
    func redAroundAnythingButTheChosenOpusIsLeftOut(fmtp: String?) throws {
        let offer = fmtp.map { replacing("a=fmtp:63 111/111", with: $0, in: SDPFixtures.chromeOffer) }
            ?? removing("a=fmtp:63 111/111", from: SDPFixtures.chromeOffer)
        let (answer, tracks) = try publisherAnswer(offer)
        #expect(answer.media[0].formats == ["111"])
        #expect(!lines(of: answer).contains { $0.contains("red/48000") })
        #expect(tracks[0].redPayloadType == nil)
    }

    private static let microphone = OutgoingTrack(
        mid: "0", kind: "audio", codecName: "opus", payloadType: 111, clockRate: 48000, channels: 2, ssrc: 0x1111_0001,
        cname: "alice", streamID: "alice-stream", trackID: "alice-mic", fmtp: "minptime=10;useinbandfec=1", redPayloadType: 63)

    /// A subscriber's answer to an offer of one audio track: keeping `formats`.
    private static func subscriberAnswer(formats: String, redLines: [String]) -> String {
        ([
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
            "m=audio 9 UDP/TLS/RTP/SAVPF \(formats)", "c=IN IP4 0.0.0.0", "a=ice-ufrag:Yc2v", "a=ice-pwd:0xMqw8F2sDrTLb6NhV1kZp4G",
            "a=fingerprint:sha-256 " + (0..<32).map { _ in "CD" }.joined(separator: ":"), "a=setup:active", "a=mid:0", "a=recvonly",
            "a=rtcp-mux", "a=rtpmap:111 opus/48000/2",
        ] + redLines).joined(separator: "\r\n") + "\r\n"
    }

    @Test func aSubscriberIsOfferedRedAfterOpusAndMayKeepOrDeclineIt() throws {
        let offer = SubscriberNegotiation.offer(tracks: [Self.microphone], local: routerTransport, sessionID: 7, sessionVersion: 1)
        #expect(offer.media[0].formats == ["111", "63"])
        #expect(lines(of: offer).contains("a=rtpmap:63 red/48000/2"))
        #expect(lines(of: offer).contains("a=fmtp:63 111/111"))

        let keeping = try SessionDescription(
            parsing: Self.subscriberAnswer(formats: "111 63", redLines: ["a=rtpmap:63 red/48000/2", "a=fmtp:63 111/111"]))
        _ = try SubscriberNegotiation.acceptAnswer(keeping, to: offer)
        #expect(SubscriberNegotiation.acceptedRedundantAudioPayloadType(in: keeping, offer: offer) == 63)

        // aiortc answers without RED: accepted, and it gets the primary frames alone.
        let declining = try SessionDescription(parsing: Self.subscriberAnswer(formats: "111", redLines: []))
        _ = try SubscriberNegotiation.acceptAnswer(declining, to: offer)
        #expect(SubscriberNegotiation.acceptedRedundantAudioPayloadType(in: declining, offer: offer) == nil)
    }

    @Test func aSubscriberMustStillKeepTheOpusItIsSent() throws {
        let offer = SubscriberNegotiation.offer(tracks: [Self.microphone], local: routerTransport, sessionID: 7, sessionVersion: 1)
        let onlyRed = try SessionDescription(
            parsing: Self.subscriberAnswer(formats: "63", redLines: ["a=rtpmap:63 red/48000/2", "a=fmtp:63 111/111"]))
        #expect(throws: SDPError.self) { try SubscriberNegotiation.acceptAnswer(onlyRed, to: offer) }
    }

    @Test func aPlayersRedIsReadWithItsOwnPayloadTypeAndAnswered() throws {
        let offer = ReceiverNegotiationTests.playerOffer
            .replacingOccurrences(of: "m=audio 9 UDP/TLS/RTP/SAVPF 109 0", with: "m=audio 9 UDP/TLS/RTP/SAVPF 109 120 0")
            .replacingOccurrences(of: "a=rtpmap:0 PCMU/8000", with: "a=rtpmap:0 PCMU/8000\r\na=rtpmap:120 red/48000/2\r\na=fmtp:120 109/109")
        let reading = try ReceiverNegotiation.read(SessionDescription(parsing: offer))
        #expect(reading.audio?.payloadType == 109)
        #expect(reading.audio?.redPayloadType == 120)

        var track = Self.microphone
        track.payloadType = 109
        track.redPayloadType = 120
        let answer = ReceiverNegotiation.answer(to: try SessionDescription(parsing: offer), tracks: [track], local: routerTransport, sessionID: 1)
        #expect(answer.media[0].formats == ["109", "120"])
        #expect(lines(of: answer).contains("a=fmtp:120 109/109"))
    }
}
