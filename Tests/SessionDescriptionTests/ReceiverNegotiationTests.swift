import Foundation
import RTPWire
import Testing

@testable import SessionDescription

/// Answering a player's own offer (WHEP): what is read from it, what the answer keeps, what is refused.
@Suite struct ReceiverNegotiationTests {
    /// A receive-only offer as a player makes it: Opus at 109, VP8 at 120 with RTX 121, a data channel,
    /// abs-send-time under id 9 and the transport-wide sequence number under id 5.
    static let playerOffer = [
        "v=0", "o=- 7 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1 2",
        "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
        "m=audio 9 UDP/TLS/RTP/SAVPF 109 0", "c=IN IP4 0.0.0.0", "a=mid:0", "a=ice-ufrag:wh3p", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        "a=setup:actpass", "a=rtcp-mux", "a=recvonly", "a=rtpmap:109 opus/48000/2", "a=rtpmap:0 PCMU/8000",
        "a=extmap:9 \(HeaderExtensionURI.absoluteSendTime)", "a=extmap:5 \(HeaderExtensionURI.transportWideSequenceNumber)",
        "a=rtcp-fb:109 transport-cc",
        "m=video 9 UDP/TLS/RTP/SAVPF 120 121", "c=IN IP4 0.0.0.0", "a=mid:1", "a=ice-ufrag:wh3p", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        "a=setup:actpass", "a=rtcp-mux", "a=recvonly", "a=rtpmap:120 VP8/90000", "a=rtpmap:121 rtx/90000", "a=fmtp:121 apt=120",
        "a=rtcp-fb:120 nack", "a=rtcp-fb:120 nack pli", "a=rtcp-fb:120 transport-cc",
        "a=extmap:9 \(HeaderExtensionURI.absoluteSendTime)", "a=extmap:5 \(HeaderExtensionURI.transportWideSequenceNumber)",
        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:2", "a=sctp-port:5000",
    ].joined(separator: "\r\n") + "\r\n"

    private func track(_ kind: String, mid: String, payloadType: UInt8, rtx: UInt8? = nil) -> OutgoingTrack {
        OutgoingTrack(
            mid: mid, kind: kind, codecName: kind == "audio" ? "opus" : "VP8", payloadType: payloadType,
            clockRate: kind == "audio" ? 48_000 : 90_000, channels: kind == "audio" ? 2 : nil, ssrc: kind == "audio" ? 1111 : 2222,
            cname: "c", streamID: "st", trackID: "st-\(kind)",
            headerExtensions: [
                HeaderExtension(id: 2, uri: HeaderExtensionURI.absoluteSendTime),
                HeaderExtension(id: 5, uri: HeaderExtensionURI.transportWideSequenceNumber),
            ],
            rtcpFeedback: ["nack", "nack pli", "ccm fir", "transport-cc"], rtxPayloadType: rtx, rtxSSRC: rtx == nil ? nil : 3333)
    }

    @Test func theOfferGivesThePlayersPayloadTypesAndTransport() throws {
        let reading = try ReceiverNegotiation.read(SessionDescription(parsing: Self.playerOffer))
        #expect(reading.audio?.mid == "0" && reading.audio?.payloadType == 109 && reading.audio?.rtxPayloadType == nil)
        #expect(reading.video?.mid == "1" && reading.video?.payloadType == 120 && reading.video?.rtxPayloadType == 121)
        #expect(reading.video?.rtcpFeedback == ["nack", "nack pli", "transport-cc"])
        #expect(reading.transportWideSequenceID == 5)
        #expect(reading.remote.iceUsernameFragment == "wh3p")
        #expect(reading.remote.setup == .actpass)
    }

    @Test func theAnswerSendsInThosePayloadTypesAndKeepsOnlyExtensionsUnderThePlayersIds() throws {
        let offer = try SessionDescription(parsing: Self.playerOffer)
        let answer = ReceiverNegotiation.answer(
            to: offer, tracks: [track("audio", mid: "0", payloadType: 109), track("video", mid: "1", payloadType: 120, rtx: 121)],
            local: routerTransport, sessionID: 42)
        let written = lines(of: answer)
        #expect(written.contains("a=group:BUNDLE 0 1"))
        #expect(written.contains("a=ice-lite"))
        #expect(answer.media.count == 3)
        #expect(answer.media[2].port == 0, "the data channel is rejected")
        for line in ["a=sendonly", "a=setup:passive", "a=rtpmap:109 opus/48000/2", "a=rtpmap:120 VP8/90000", "a=fmtp:121 apt=120"] {
            #expect(written.contains(line), "\(line)")
        }
        #expect(written.contains("a=extmap:5 \(HeaderExtensionURI.transportWideSequenceNumber)"))
        #expect(!written.contains { $0.contains(HeaderExtensionURI.absoluteSendTime) }, "the router writes abs-send-time under id 2, the player offered 9")
        #expect(!written.contains("a=rtcp-fb:120 ccm fir"), "feedback the player did not offer")
        #expect(written.contains("a=rtcp-fb:120 nack pli"))
    }

    private func refusal(_ text: String) -> SDPError? {
        do throws(SDPError) {
            _ = try ReceiverNegotiation.read(SessionDescription(parsing: text))
            return nil
        } catch {
            return error
        }
    }

    @Test func offersThePlayerCannotBeServedOnAreRefusedNamingTheLine() throws {
        let passive = refusal(Self.playerOffer.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:passive"))
        #expect(passive?.description.contains("a=setup:passive") == true, "\(String(describing: passive))")
        let sending = refusal(Self.playerOffer.replacingOccurrences(of: "a=recvonly", with: "a=sendonly"))
        #expect(sending?.description.contains("no audio or video m-section that receives") == true, "\(String(describing: sending))")
        let unbundled = refusal(Self.playerOffer.replacingOccurrences(of: "a=group:BUNDLE 0 1 2\r\n", with: ""))
        #expect(unbundled?.description.contains("no a=group:BUNDLE") == true, "\(String(describing: unbundled))")
        let h264 = refusal(Self.playerOffer.replacingOccurrences(of: "VP8/90000", with: "H264/90000"))
        #expect(h264?.line == 20, "\(String(describing: h264))")
        #expect(h264?.description.contains("offered: H264") == true, "\(String(describing: h264))")
        #expect(refusal(Self.playerOffer) == nil)
    }

    /// `playerOffer` receiving H.264 in packetization mode 1 instead of VP8: payload types 102, 104, …
    /// with the profile-level-ids given, in that order, each with `parameters`.
    static func h264PlayerOffer(_ profileLevelIDs: [String], parameters: String = "level-asymmetry-allowed=1;packetization-mode=1") -> String {
        let payloadTypes = profileLevelIDs.indices.map { 102 + 2 * $0 }
        let formats = zip(payloadTypes, profileLevelIDs).map { "a=rtpmap:\($0) H264/90000\r\na=fmtp:\($0) \(parameters);profile-level-id=\($1)" }
        return playerOffer
            .replacingOccurrences(of: "m=video 9 UDP/TLS/RTP/SAVPF 120 121", with: "m=video 9 UDP/TLS/RTP/SAVPF " + payloadTypes.map(String.init).joined(separator: " "))
            .replacingOccurrences(of: "a=rtpmap:120 VP8/90000\r\na=rtpmap:121 rtx/90000\r\na=fmtp:121 apt=120", with: formats.joined(separator: "\r\n"))
    }

    /// The payload type and answered parameters `read` takes from `profileLevelIDs` for a stream of `streamProfileLevelID`.
    private func h264Choice(_ profileLevelIDs: [String], stream streamProfileLevelID: String) throws -> ReceiverNegotiation.Section? {
        try ReceiverNegotiation.read(
            SessionDescription(parsing: Self.h264PlayerOffer(profileLevelIDs)), videoCodec: .h264,
            streamH264Parameters: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(streamProfileLevelID)"
        ).video
    }

    @Test func anH264PlayerGetsItsFormatOfTheStreamsProfileWhereverItStandsInTheOffer() throws {
        let forConstrainedBaseline = try h264Choice(["42001f", "42e01f"], stream: "42e01f")
        #expect(forConstrainedBaseline?.payloadType == 104)
        #expect(forConstrainedBaseline?.formatParameters == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        let forBaseline = try h264Choice(["42e01f", "42001f"], stream: "42001f")
        #expect(forBaseline?.payloadType == 104)
        #expect(forBaseline?.formatParameters == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f")
        #expect(try h264Choice(["640c1f", "4d001f", "64001f"], stream: "64001f")?.payloadType == 106)
        #expect(try h264Choice(["42e01f", "42c01f"], stream: "42c01f")?.payloadType == 102, "both are Constrained Baseline")
    }

    @Test func withoutItsProfileThePlayerGetsTheFirstWhoseDecodersPlayTheStream() throws {
        #expect(try h264Choice(["42001f", "4d001f"], stream: "42e01f")?.payloadType == 102)
        #expect(try h264Choice(["42e01f", "640c1f", "64001f"], stream: "4d001f")?.payloadType == 106)
        // The answer keeps the player's profile; the level is the stream's, both allowing asymmetry.
        let main = try h264Choice(["4d0034", "640c1f"], stream: "42e01f")
        #expect(main?.payloadType == 102)
        #expect(main?.formatParameters == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f")
    }

    @Test func aPlayerWhoseProfilesCannotPlayTheStreamIsRefusedNamingThem() throws {
        let offer = Self.h264PlayerOffer(["42e01f", "4d001f", "nonsense"])
        let error = #expect(throws: SDPError.self) {
            try ReceiverNegotiation.read(
                SessionDescription(parsing: offer), videoCodec: .h264, streamH264Parameters: "packetization-mode=1;profile-level-id=42001f")
        }
        #expect(error?.line == 20, "the m=video line")
        #expect(
            error?.reason
                == "no H.264 profile offered plays the stream's Baseline (42001f); offered: Constrained Baseline (42e01f), Main (4d001f), "
                + "profile-level-id nonsense is not three bytes in hex")
        let modeZero = #expect(throws: SDPError.self) {
            try ReceiverNegotiation.read(
                SessionDescription(parsing: Self.h264PlayerOffer(["42001f"], parameters: "packetization-mode=0")), videoCodec: .h264,
                streamH264Parameters: "packetization-mode=1;profile-level-id=42001f")
        }
        #expect(modeZero?.reason == "no codec this stream can be sent in (H.264 in packetization mode 1); offered: H264")
    }
}
