import RTPWire
import Testing

@testable import SessionDescription

@Suite struct SessionDescriptionParsingTests {
    @Test func readsTheSessionLevelOfAChromeOffer() throws {
        let offer = try SessionDescription(parsing: SDPFixtures.chromeOffer)
        #expect(
            offer.origin == SDPOrigin(sessionID: 5_498_186_869_896_684_180, sessionVersion: 2, address: "127.0.0.1"))
        #expect(offer.sessionName == "-")
        #expect(offer.bundleGroup == ["0", "1", "2"])
        #expect(!offer.isICELite)
        #expect(
            offer.sessionLines.map(\.description) == [
                "t=0 0", "a=group:BUNDLE 0 1 2", "a=extmap-allow-mixed",
                "a=msid-semantic: WMS 1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7",
            ])
        #expect(offer.media.map(\.kind) == ["audio", "video", "application"])
        #expect(
            offer.media.map(\.line) == [
                lineNumber(of: "m=audio", in: SDPFixtures.chromeOffer),
                lineNumber(of: "m=video", in: SDPFixtures.chromeOffer),
                lineNumber(of: "m=application", in: SDPFixtures.chromeOffer),
            ])
    }

    @Test func readsEveryAttributeOfChromesAudioSection() throws {
        let audio = try SessionDescription(parsing: SDPFixtures.chromeOffer).media[0]
        #expect(audio.port == 9)
        #expect(audio.transportProtocol == "UDP/TLS/RTP/SAVPF")
        #expect(audio.formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(audio.mid == "0")
        #expect(audio.direction == .sendrecv)
        #expect(audio.rtpmaps[111] == RTPMap(payloadType: 111, name: "opus", clockRate: 48000, channels: 2))
        #expect(audio.rtpmaps[9] == RTPMap(payloadType: 9, name: "G722", clockRate: 8000))
        #expect(audio.rtpmaps.count == 8)
        #expect(audio.fmtp == [111: "minptime=10;useinbandfec=1", 63: "111/111"])
        #expect(audio.rtcpFeedback == [.payloadType(111): ["transport-cc"]])
        #expect(
            audio.extmaps == [
                HeaderExtension(id: 1, uri: HeaderExtensionURI.audioLevel),
                HeaderExtension(id: 2, uri: HeaderExtensionURI.absoluteSendTime),
                HeaderExtension(id: 3, uri: HeaderExtensionURI.transportWideSequenceNumber),
                HeaderExtension(id: 4, uri: HeaderExtensionURI.mid),
            ])
        let msid = MSID(
            streamID: "1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7", trackID: "8e0c6a43-1f0b-4d7a-9f2e-0c3b7d1a5e66")
        #expect(audio.msid == msid)
        #expect(
            audio.ssrcs == [
                SSRCDescription(
                    ssrc: 2_796_174_212,
                    attributes: ["cname": "qZ2fYnAmCD1R4rVk", "msid": "\(msid.streamID) \(msid.trackID!)"])
            ])
        #expect(audio.ssrcs.first?.msid == msid)
        #expect(audio.ssrcGroups.isEmpty)
        #expect(audio.iceUfrag == "Z2Xq")
        #expect(audio.icePwd == "PjL5bEuJhGNnBy6sE6GQyKqT")
        #expect(audio.fingerprint?.algorithm == "sha-256")
        #expect(audio.fingerprint?.bytes.prefix(3) == [0xA5, 0x4D, 0xCA])
        #expect(audio.setup == .actpass)
        #expect(audio.rtcpMux)
        #expect(audio.rtcpReducedSize)
        #expect(!audio.isBundleOnly)
        #expect(audio.rids.isEmpty)
        #expect(audio.simulcast == nil)
        #expect(audio.candidates.isEmpty)
        #expect(audio.attribute(named: "ice-options")?.attributeValue == "trickle")
        #expect(audio.attribute(named: "rtcp")?.sourceLine == lineNumber(of: "a=rtcp:9", in: SDPFixtures.chromeOffer))
    }

    @Test func readsChromesVideoCodecsFeedbackAndSources() throws {
        let video = try SessionDescription(parsing: SDPFixtures.chromeOffer).media[1]
        #expect(video.formats.count == 15)
        #expect(video.rtpmaps[96] == RTPMap(payloadType: 96, name: "VP8", clockRate: 90000))
        #expect(video.rtpmaps[97]?.name == "rtx")
        #expect(video.rtpmaps[45]?.name == "AV1")
        #expect(video.fmtp[97] == "apt=96")
        #expect(video.fmtp[104] == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        #expect(video.rtcpFeedback[.payloadType(96)] == ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        #expect(video.rtcpFeedback[.payloadType(97)] == nil)
        #expect(video.extmaps.count == 11)
        #expect(video.extmaps.first { $0.uri == HeaderExtensionURI.rtpStreamID }?.id == 10)
        #expect(video.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [1_613_396_447, 2_617_432_384])])
        #expect(video.ssrcs.map(\.ssrc) == [1_613_396_447, 2_617_432_384])
        #expect(video.ssrcs.map(\.cname) == ["qZ2fYnAmCD1R4rVk", "qZ2fYnAmCD1R4rVk"])
    }

    @Test func readsTheDataChannelSection() throws {
        let application = try SessionDescription(parsing: SDPFixtures.chromeOffer).media[2]
        #expect(application.kind == "application")
        #expect(application.transportProtocol == "UDP/DTLS/SCTP")
        #expect(application.formats == ["webrtc-datachannel"])
        #expect(!application.carriesRTP)
        #expect(application.mid == "2")
        #expect(application.attribute(named: "sctp-port")?.attributeValue == "5000")
        #expect(application.rtpmaps.isEmpty)
    }

    @Test func readsRidsAndSimulcast() throws {
        let video = try SessionDescription(parsing: SDPFixtures.chromeSimulcastOffer).media[1]
        #expect(
            video.rids == [
                RID(id: "q", direction: .send), RID(id: "h", direction: .send), RID(id: "f", direction: .send),
            ])
        #expect(video.simulcast == "send q;h;f")
        #expect(video.ssrcs.isEmpty)
        #expect(video.direction == .sendonly)
    }

    @Test func readsRidRestrictionsAndWildcardFeedback() throws {
        let text = """
            v=0
            o=- 1 1 IN IP4 0.0.0.0
            s=-
            t=0 0
            m=video 9 UDP/TLS/RTP/SAVPF 96 97
            a=rtcp-fb:* nack
            a=rtcp-fb:96  ccm   fir
            a=rtcp-fb:97 nack
            a=rid:hi send pt=96;max-width=1280
            a=rid:lo recv
            """
        let video = try SessionDescription(parsing: text).media[0]
        #expect(
            video.rtcpFeedback == [
                .everyPayloadType: ["nack"], .payloadType(96): ["ccm fir"], .payloadType(97): ["nack"],
            ])
        #expect(video.rtcpFeedback(forPayloadType: 96) == ["nack", "ccm fir"])
        #expect(video.rtcpFeedback(forPayloadType: 97) == ["nack"])
        #expect(
            video.rids == [
                RID(id: "hi", direction: .send, params: "pt=96;max-width=1280"), RID(id: "lo", direction: .recv),
            ])
    }

    @Test func readsAiortcsTrailingTransportLinesAndCandidates() throws {
        let offer = try SessionDescription(parsing: SDPFixtures.aiortcOffer)
        let audio = offer.media[0]
        #expect(audio.port == 52734)
        #expect(audio.attribute(named: "rtcp")?.attributeValue == "9 IN IP4 0.0.0.0")
        #expect(
            audio.candidates == [
                "0f5d6e1a7b2c3d4e5f60718293a4b5c6 1 udp 2130706431 192.168.1.23 52734 typ host",
                "9a8b7c6d5e4f30211203f4e5d6c7b8a9 1 udp 1694498815 203.0.113.7 52734 typ srflx raddr 192.168.1.23 rport 52734",
            ])
        #expect(audio.fingerprints.map(\.algorithm) == ["sha-256", "sha-384", "sha-512"])
        #expect(audio.fingerprints.map(\.bytes.count) == [32, 48, 64])
        #expect(
            audio.ssrcs == [
                SSRCDescription(ssrc: 3_344_951_093, attributes: ["cname": "5d8e2f1a-9c7b-4a3e-b6d0-1e2f3a4b5c6d"])
            ])
        #expect(offer.sessionLines.firstAttribute(named: "msid-semantic")?.attributeValue == "WMS *")
    }

    @Test func resolvesTransportAttributesFromTheSessionLevel() throws {
        // Firefox writes its fingerprint once, at session level; others do the same with ICE credentials.
        let text = """
            v=0
            o=mozilla...THIS_IS_SDPARTA-99.0 7091426542096734216 0 IN IP4 0.0.0.0
            s=-
            t=0 0
            a=fingerprint:sha-256 A5:4D:CA:18:25:30:BB:1D:6D:13:2C:DE:D6:23:7B:2E:D9:1E:3F:72:1F:CB:19:71:17:44:94:D6:49:3C:9D:5C
            a=ice-ufrag:session
            a=ice-pwd:sessionpassword0123456789
            a=setup:actpass
            a=sendonly
            m=audio 9 UDP/TLS/RTP/SAVPF 109
            a=ice-ufrag:media
            a=setup:active
            a=recvonly
            """
        let description = try SessionDescription(parsing: text)
        let audio = description.media[0]
        #expect(audio.iceUfrag == "media")
        #expect(audio.icePwd == nil)
        #expect(audio.fingerprints.isEmpty)
        #expect(description.iceUfrag(for: audio) == "media")
        #expect(description.icePwd(for: audio) == "sessionpassword0123456789")
        #expect(description.fingerprints(for: audio).first?.bytes.first == 0xA5)
        #expect(description.setup(for: audio) == .active)
        #expect(description.direction(for: audio) == .recvonly)
        #expect(description.iceUfrag == "session")
        #expect(description.setup == .actpass)
        #expect(description.direction == .sendonly)

        var inheriting = audio
        inheriting.lines = []
        #expect(description.direction(for: inheriting) == .sendonly)
        #expect(description.setup(for: inheriting) == .actpass)
    }

    @Test func defaultsTheDirectionToSendrecv() throws {
        let description = try SessionDescription(parsing: "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nm=audio 9 RTP/AVP 0\n")
        #expect(description.media[0].direction == nil)
        #expect(description.direction(for: description.media[0]) == .sendrecv)
    }

    @Test(arguments: [SDPFixtures.chromeOffer, SDPFixtures.chromeSimulcastOffer, SDPFixtures.aiortcOffer])
    func writesBackWhatItRead(fixture: String) throws {
        let parsed = try SessionDescription(parsing: fixture)
        let written = parsed.description
        #expect(written == fixture.split(separator: "\n").map { $0 + "\r\n" }.joined())
        let reparsed = try SessionDescription(parsing: written)
        #expect(reparsed == parsed)
        #expect(reparsed.media.map(\.line) == parsed.media.map(\.line))
    }

    @Test func takesCRLFAndLFAlike() throws {
        let crlf = SDPFixtures.chromeOffer.split(separator: "\n", omittingEmptySubsequences: false).joined(
            separator: "\r\n")
        let fromCRLF = try SessionDescription(parsing: crlf)
        #expect(fromCRLF == (try SessionDescription(parsing: SDPFixtures.chromeOffer)))
        #expect(fromCRLF.media[0].mid == "0")
        #expect(fromCRLF.media[1].rtpmaps[96]?.name == "VP8")
    }

    @Test func equalityIgnoresWhereLinesCameFrom() throws {
        let parsed = try SessionDescription(
            parsing: "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\nm=audio 9 RTP/AVP 0\na=mid:a\n")
        let built = SessionDescription(
            origin: SDPOrigin(sessionID: 1, sessionVersion: 1), sessionLines: [SDPLine(type: "t", value: "0 0")],
            media: [
                MediaDescription(
                    kind: "audio", port: 9, transportProtocol: "RTP/AVP", formats: ["0"],
                    lines: [.attribute("mid", "a")])
            ])
        #expect(parsed == built)
        #expect(parsed.media[0].line == 5)
        #expect(built.media[0].line == 0)
    }

    @Test func editsTheBundleGroupAndICELiteInPlace() throws {
        var description = try SessionDescription(parsing: SDPFixtures.chromeOffer)
        description.bundleGroup = ["1", "0"]
        description.isICELite = true
        #expect(
            description.sessionLines.map(\.description).prefix(3) == [
                "t=0 0", "a=group:BUNDLE 1 0", "a=extmap-allow-mixed",
            ])
        #expect(description.sessionLines.last?.description == "a=ice-lite")
        #expect(try SessionDescription(parsing: description.description).bundleGroup == ["1", "0"])
        description.bundleGroup = nil
        description.isICELite = false
        #expect(description.bundleGroup == nil)
        #expect(!description.sessionLines.contains { $0.attributeName == "group" || $0.attributeName == "ice-lite" })
    }

    @Test func keepsAPortCount() throws {
        let description = try SessionDescription(
            parsing: "v=0\no=- 1 1 IN IP4 224.2.36.42\ns=-\nm=video 49170/2 RTP/AVP 31\n")
        #expect(description.media[0].port == 49170)
        #expect(description.media[0].portCount == 2)
        #expect(description.media[0].mediaLine.description == "m=video 49170/2 RTP/AVP 31")
    }
}
