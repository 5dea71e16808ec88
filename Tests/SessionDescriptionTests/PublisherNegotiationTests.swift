import MediaControl
import RTPWire
import Testing

@testable import SessionDescription

private func answer(
    _ text: String
) throws -> (answer: SessionDescription, remote: RemoteTransportDescription, tracks: [NegotiatedTrack]) {
    try PublisherNegotiation.answer(offer: SessionDescription(parsing: text), local: routerTransport, sessionID: 42)
}

/// Answers `text`, expecting a refusal; returns the error.
private func refusal(of text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SDPError? {
    let offer = try SessionDescription(parsing: text)
    return #expect(throws: SDPError.self, sourceLocation: sourceLocation) {
        try PublisherNegotiation.answer(offer: offer, local: routerTransport, sessionID: 42)
    }
}

/// The lines that every accepted m-section of an answer carries for the router's transport.
private let routerTransportLines = [
    "a=ice-ufrag:swyd8Kq2", "a=ice-pwd:v7HcQx2mTn9LpR4sWz1bYk6e",
    "a=fingerprint:\(routerTransport.fingerprint.description)", "a=setup:passive", "a=rtcp-mux",
]
private let routerCandidateLines = [
    "a=candidate:1 1 udp 2130706431 203.0.113.10 40000 typ host",
    "a=candidate:2 1 udp 2130706175 2001:db8::10 40000 typ host",
    "a=end-of-candidates",
]

@Suite struct PublisherNegotiationTests {
    @Test func answersChromeWithOpusAndVP8AndRejectsTheDataChannel() throws {
        let (answer, _, _) = try answer(SDPFixtures.chromeOffer)
        let expected: [String] =
            ["v=0", "o=switchyard 42 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=ice-lite", "a=group:BUNDLE 0 1"]
            // RED first, so Chrome sends it (docs/red.md).
            + ["m=audio 40000 UDP/TLS/RTP/SAVPF 63 111", "c=IN IP4 203.0.113.10", "a=mid:0"] + routerTransportLines
            + [
                "a=rtcp-rsize", "a=recvonly", "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1",
                "a=rtcp-fb:111 transport-cc", "a=rtpmap:63 red/48000/2", "a=fmtp:63 111/111",
                "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
                "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            ] + routerCandidateLines
            + ["m=video 40000 UDP/TLS/RTP/SAVPF 96 97", "c=IN IP4 203.0.113.10", "a=mid:1"] + routerTransportLines
            + [
                "a=rtcp-rsize", "a=recvonly", "a=rtpmap:96 VP8/90000",
                "a=rtcp-fb:96 goog-remb", "a=rtcp-fb:96 transport-cc", "a=rtcp-fb:96 ccm fir", "a=rtcp-fb:96 nack",
                "a=rtcp-fb:96 nack pli",
                "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
                "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
                "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
                "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id",
            ] + routerCandidateLines
            + ["m=application 0 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:2"]
        #expect(lines(of: answer) == expected)
        #expect(answer.description.hasSuffix("a=mid:2\r\n"))

        let reparsed = try SessionDescription(parsing: answer.description)
        #expect(reparsed == answer)
        #expect(reparsed.isICELite)
        #expect(reparsed.bundleGroup == ["0", "1"])
        #expect(reparsed.media[2].port == 0)
        #expect(reparsed.media.prefix(2).allSatisfy { reparsed.setup(for: $0) == .passive })
    }

    @Test func reportsChromesTracksAndTransport() throws {
        let (_, remote, tracks) = try answer(SDPFixtures.chromeOffer)
        #expect(
            remote
                == RemoteTransportDescription(
                    iceUsernameFragment: "Z2Xq", icePassword: "PjL5bEuJhGNnBy6sE6GQyKqT",
                    fingerprint: try DTLSFingerprint(
                        parsing:
                            "sha-256 A5:4D:CA:18:25:30:BB:1D:6D:13:2C:DE:D6:23:7B:2E:D9:1E:3F:72:1F:CB:19:71:17:44:94:D6:49:3C:9D:5C"
                    ),
                    setup: .actpass))
        let stream = "1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7"
        #expect(
            tracks == [
                NegotiatedTrack(
                    mid: "0", kind: "audio", codec: .opus, payloadType: 111, clockRate: 48000, rtxPayloadType: nil,
                    redPayloadType: 63, ssrc: 2_796_174_212, rtxSSRC: nil, cname: "qZ2fYnAmCD1R4rVk", streamID: stream,
                    trackID: "8e0c6a43-1f0b-4d7a-9f2e-0c3b7d1a5e66",
                    headerExtensions: [
                        HeaderExtension(id: 1, uri: HeaderExtensionURI.audioLevel),
                        HeaderExtension(id: 2, uri: HeaderExtensionURI.absoluteSendTime),
                        HeaderExtension(id: 3, uri: HeaderExtensionURI.transportWideSequenceNumber),
                        HeaderExtension(id: 4, uri: HeaderExtensionURI.mid),
                    ],
                    rtcpFeedback: ["transport-cc"], formatParameters: "minptime=10;useinbandfec=1"),
                NegotiatedTrack(
                    mid: "1", kind: "video", codec: .vp8, payloadType: 96, clockRate: 90000, rtxPayloadType: 97,
                    ssrc: 1_613_396_447, rtxSSRC: 2_617_432_384, cname: "qZ2fYnAmCD1R4rVk", streamID: stream,
                    trackID: "4f1d2b6e-8a3c-4c55-b1f0-2e9d7a6c3b18",
                    headerExtensions: [
                        HeaderExtension(id: 2, uri: HeaderExtensionURI.absoluteSendTime),
                        HeaderExtension(id: 3, uri: HeaderExtensionURI.transportWideSequenceNumber),
                        HeaderExtension(id: 4, uri: HeaderExtensionURI.mid),
                        HeaderExtension(id: 10, uri: HeaderExtensionURI.rtpStreamID),
                        HeaderExtension(id: 11, uri: HeaderExtensionURI.repairedRTPStreamID),
                    ],
                    rtcpFeedback: ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"]),
            ])
    }

    @Test func answersAiortc() throws {
        let (answer, remote, tracks) = try answer(SDPFixtures.aiortcOffer)
        #expect(remote.iceUsernameFragment == "9XkT")
        #expect(remote.icePassword == "bW3n0yHcR5kLmQ2tVfZp8s")
        #expect(remote.fingerprint.algorithm == "sha-256")
        #expect(remote.fingerprint.bytes.first == 0x2E)
        #expect(remote.setup == .actpass)
        #expect(tracks.map(\.codec) == [.opus, .vp8])
        #expect(tracks.map(\.payloadType) == [96, 97])
        #expect(tracks.map(\.rtxPayloadType) == [nil, 98])
        #expect(tracks.map(\.ssrc) == [3_344_951_093, 2_201_846_357])
        #expect(tracks.map(\.rtxSSRC) == [nil, 780_351_416])
        #expect(
            tracks.map(\.cname) == ["5d8e2f1a-9c7b-4a3e-b6d0-1e2f3a4b5c6d", "5d8e2f1a-9c7b-4a3e-b6d0-1e2f3a4b5c6d"])
        #expect(
            tracks.map(\.trackID) == ["b9e1c7d2-6a4f-4e3b-8c5d-0f1a2b3c4d5e", "e4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8"])
        #expect(
            tracks[0].headerExtensions == [
                HeaderExtension(id: 1, uri: HeaderExtensionURI.mid),
                HeaderExtension(id: 2, uri: HeaderExtensionURI.audioLevel),
            ])
        #expect(
            tracks[1].headerExtensions == [
                HeaderExtension(id: 1, uri: HeaderExtensionURI.mid),
                HeaderExtension(id: 3, uri: HeaderExtensionURI.absoluteSendTime),
            ])
        #expect(tracks[0].rtcpFeedback == [])
        #expect(tracks[1].rtcpFeedback == ["nack", "nack pli", "goog-remb"])

        #expect(answer.bundleGroup == ["0", "1"])
        #expect(answer.media.map(\.formats) == [["96"], ["97", "98"]])
        #expect(!answer.media[0].rtcpReducedSize)
        #expect(
            answer.media[1].lines.map(\.description).filter { $0.hasPrefix("a=rtpmap") || $0.hasPrefix("a=fmtp") }
                == ["a=rtpmap:97 VP8/90000", "a=rtpmap:98 rtx/90000", "a=fmtp:98 apt=97"])
    }

    @Test func acceptsRidSimulcastAndAnswersEachRidReceived() throws {
        let (answer, _, tracks) = try answer(SDPFixtures.chromeSimulcastOffer)
        let video = tracks[1]
        #expect(video.layers == [NegotiatedLayer(rid: "q"), NegotiatedLayer(rid: "h"), NegotiatedLayer(rid: "f")])
        #expect(video.ssrc == nil)
        #expect(video.rtxPayloadType == 97)
        #expect(video.headerExtensions.contains(HeaderExtension(id: 10, uri: HeaderExtensionURI.rtpStreamID)))
        #expect(video.headerExtensions.contains(HeaderExtension(id: 11, uri: HeaderExtensionURI.repairedRTPStreamID)))
        let answered = answer.media[1].lines.map(\.description).filter { $0.hasPrefix("a=rid") || $0.hasPrefix("a=simulcast") }
        #expect(answered == ["a=rid:q recv", "a=rid:h recv", "a=rid:f recv", "a=simulcast:recv q;h;f"])
        #expect(tracks[0].layers.isEmpty)
        // The answer reads back as a receiver of the same three layers.
        let reparsed = try SessionDescription(parsing: answer.description)
        #expect(reparsed.media[1].simulcast == "recv q;h;f")
    }

    @Test func takesThePausedAndFirstAlternativeStreamsOfASimulcastLine() throws {
        let text = replacing("a=simulcast:send q;h;f", with: "a=simulcast:send q,h;~f", in: SDPFixtures.chromeSimulcastOffer)
        #expect(try answer(text).tracks[1].layers.map(\.rid) == ["q", "f"])
    }

    @Test func ignoresAnnouncedSourcesBesideRidLayers() throws {
        // Which a=ssrc is which rid the offer does not say: the layers learn theirs from the packets.
        let text = editing(SDPFixtures.chromeSimulcastOffer) { lines in
            lines.insert(
                contentsOf: [
                    "a=ssrc-group:FID 11 12", "a=ssrc-group:FID 21 22",
                    "a=ssrc:12 cname:8fJ2sWq0LcX5nRbA", "a=ssrc:11 cname:8fJ2sWq0LcX5nRbA",
                    "a=ssrc:21 cname:8fJ2sWq0LcX5nRbA", "a=ssrc:22 cname:8fJ2sWq0LcX5nRbA",
                ], at: lines.firstIndex(of: "a=rid:q send")!)
        }
        let video = try answer(text).tracks[1]
        #expect(video.layers.map(\.rid) == ["q", "h", "f"])
        #expect(video.ssrc == nil)
        #expect(video.rtxSSRC == nil)
        #expect(video.cname == "8fJ2sWq0LcX5nRbA")
        #expect(video.streamID == "7c4a9e0b-5d2f-4e8a-a1c3-96b0f2d4e871")
        #expect(video.trackID == "a61f0c8e-3d47-4b2a-9c5e-18e7d0b4f2a9")
    }

    @Test func acceptsSSRCGroupSimulcastWithEachLayersRepairSource() throws {
        let text = editing(SDPFixtures.chromeSimulcastOffer) { lines in
            lines.removeAll { $0.hasPrefix("a=rid") || $0.hasPrefix("a=simulcast") }
            lines.insert(
                contentsOf: [
                    "a=ssrc-group:SIM 11 21 31", "a=ssrc-group:FID 11 12", "a=ssrc-group:FID 21 22", "a=ssrc-group:FID 31 32",
                    "a=ssrc:11 cname:c", "a=ssrc:12 cname:c", "a=ssrc:21 cname:c", "a=ssrc:22 cname:c", "a=ssrc:31 cname:c",
                    "a=ssrc:32 cname:c",
                ], at: lines.firstIndex(of: "a=mid:1")! + 1)
        }
        let (answer, _, tracks) = try answer(text)
        #expect(
            tracks[1].layers == [
                NegotiatedLayer(ssrc: 11, rtxSSRC: 12), NegotiatedLayer(ssrc: 21, rtxSSRC: 22), NegotiatedLayer(ssrc: 31, rtxSSRC: 32),
            ])
        #expect(tracks[1].ssrc == 11)
        #expect(tracks[1].rtxSSRC == 12)
        #expect(!answer.media[1].lines.contains { $0.attributeName == "simulcast" || $0.attributeName == "rid" })
    }

    @Test(arguments: [
        ("a=simulcast:send q;h;f;x", ["a=rid:x send"], "a=simulcast sends 4 layers; Switchyard takes at most 3"),
        ("a=simulcast:send q;h;z", [], "a=simulcast names rid z, which has no a=rid:z send line"),
        ("a=simulcast:recv q", [], "a=simulcast has no send streams (expected send <rid>;<rid>...)"),
        ("a=simulcast:send q;;f", [], "a=simulcast has an empty stream id in \"q;;f\""),
        ("a=simulcast:send q;q", [], "a=simulcast names rid q twice"),
    ])
    func refusesASimulcastLineItCannotServeNamingIt(line: String, extraRIDs: [String], reason: String) throws {
        let text = editing(SDPFixtures.chromeSimulcastOffer) { lines in
            let index = lines.firstIndex(of: "a=simulcast:send q;h;f")!
            lines[index] = line
            lines.insert(contentsOf: extraRIDs, at: index)
        }
        #expect(try refusal(of: text) == SDPError(line: lineNumber(of: line, in: text), text: line, reason: reason))
    }

    @Test func refusesRidSimulcastWithoutTheStreamIDExtension() throws {
        let text = removing("a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", from: SDPFixtures.chromeSimulcastOffer)
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "a=simulcast:send q;h;f", in: text))
        #expect(error.reason.hasPrefix("a=simulcast by rid needs the rtp-stream-id header extension"))
    }

    @Test func refusesSimulcastAudio() throws {
        let text = editing(SDPFixtures.chromeSimulcastOffer) { lines in
            lines.insert("a=simulcast:send q", at: lines.firstIndex(of: "a=mid:0")!)
        }
        let error = try #require(try refusal(of: text))
        #expect(error.reason == "a=simulcast on audio; only video can be simulcast")
    }

    @Test func refusesAnOfferWithoutBundle() throws {
        let text = removing("a=group:BUNDLE 0 1 2", from: SDPFixtures.chromeOffer)
        #expect(
            try refusal(of: text)
                == SDPError(
                    reason:
                        "offer has 3 media sections but no a=group:BUNDLE; Switchyard needs one transport per publish"))
    }

    @Test func acceptsASingleSectionWithoutBundle() throws {
        let audioOnly = editing(SDPFixtures.aiortcOffer) { lines in
            lines.removeSubrange(lines.firstIndex { $0.hasPrefix("m=video") }!..<lines.endIndex)
            lines.removeAll { $0.hasPrefix("a=group:BUNDLE") }
        }
        let (answer, _, tracks) = try answer(audioOnly)
        #expect(tracks.map(\.mid) == ["0"])
        #expect(answer.bundleGroup == ["0"])
    }

    @Test func refusesASectionOutsideTheBundle() throws {
        let text = replacing("a=group:BUNDLE 0 1 2", with: "a=group:BUNDLE 0 2", in: SDPFixtures.chromeOffer)
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "m=video", in: text))
        #expect(error.reason == "mid 1 is not in a=group:BUNDLE; Switchyard needs one transport per publish")
    }

    @Test func refusesASectionWithoutMid() throws {
        let text = removing("a=mid:1", from: SDPFixtures.chromeOffer)
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "m=video", in: text))
        #expect(error.reason == "no a=mid; BUNDLE needs it to tell the m-sections apart")
    }

    @Test func refusesASectionWithoutRtcpMux() throws {
        let text = removing("a=rtcp-mux", from: SDPFixtures.chromeOffer, occurrence: 2)
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "m=video", in: text),
                    text: "m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 100 101 45 46 102 103 104 105 116 117 118",
                    reason: "no a=rtcp-mux; Switchyard takes RTP and RTCP on one port"))
    }

    @Test func refusesAPassiveOfferer() throws {
        let text = replacing("a=setup:actpass", with: "a=setup:passive", in: SDPFixtures.chromeOffer)
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "a=setup:passive", in: text), text: "a=setup:passive",
                    reason: "Switchyard can only be the DTLS server (passive), so the offer must say actpass or active")
        )
    }

    @Test func acceptsAnActiveOfferer() throws {
        let text = replacing("a=setup:actpass", with: "a=setup:active", in: SDPFixtures.chromeOffer)
        #expect(try answer(text).remote.setup == .active)
    }

    @Test func refusesAnOfferWithoutSetup() throws {
        let text = removing("a=setup:actpass", from: SDPFixtures.aiortcOffer)
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "m=audio", in: text))
        #expect(error.reason == "no a=setup in this m-section or at session level")
    }

    @Test func refusesAnOfferWithoutFingerprint() throws {
        let text = editing(SDPFixtures.chromeOffer) { $0.removeAll { $0.hasPrefix("a=fingerprint:") } }
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "m=audio", in: text),
                    text: "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126",
                    reason:
                        "no a=fingerprint in this m-section or at session level; DTLS needs the peer's certificate fingerprint"
                ))
    }

    @Test func refusesAFingerprintWithABrokenHash() throws {
        let md5 = "a=fingerprint:md5 9F:7E:36:0B:55:C1:2A:D4:80:13:6E:F2:4B:A9:C7:05"
        let text = editing(SDPFixtures.chromeOffer) { lines in
            lines = lines.map { $0.hasPrefix("a=fingerprint:") ? md5 : $0 }
        }
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: md5, in: text), text: md5,
                    reason: "no fingerprint with a hash function Switchyard accepts (sha-256, sha-384, sha-512, sha-1)")
        )
    }

    @Test func takesTransportAttributesFromTheSessionLevel() throws {
        let fingerprint =
            "a=fingerprint:sha-512 77:06:F8:5D:86:90:02:4A:D6:BD:A3:40:1B:E9:C8:CB:CC:C9:35:F6:CD:1F:61:22:6A:E1:53:38:AE:1A:34:00:4D:33:BA:0D:24:6A:C0:4C:81:B1:BA:F2:3E:3B:F9:EE:F5:F7:9F:2B:49:34:AF:87:F5:52:0B:69:B9:4B:0D:98"
        let text = editing(SDPFixtures.chromeOffer) { lines in
            lines.removeAll { $0.hasPrefix("a=fingerprint:") || $0.hasPrefix("a=ice-pwd:") }
            lines.insert(contentsOf: [fingerprint, "a=ice-pwd:SessionLevelPassword0000"], at: 4)
        }
        let remote = try answer(text).remote
        #expect(remote.fingerprint.algorithm == "sha-512")
        #expect(remote.icePassword == "SessionLevelPassword0000")
        #expect(remote.iceUsernameFragment == "Z2Xq")
    }

    @Test func refusesAnOfferWithoutICECredentials() throws {
        let withoutUfrag = editing(SDPFixtures.chromeOffer) { $0.removeAll { $0.hasPrefix("a=ice-ufrag:") } }
        #expect(try refusal(of: withoutUfrag)?.reason == "no a=ice-ufrag in this m-section or at session level")
        let withoutPassword = editing(SDPFixtures.chromeOffer) { $0.removeAll { $0.hasPrefix("a=ice-pwd:") } }
        #expect(try refusal(of: withoutPassword)?.reason == "no a=ice-pwd in this m-section or at session level")
        #expect(try refusal(of: withoutPassword)?.line == lineNumber(of: "m=audio", in: withoutPassword))
    }

    /// Chrome's offer without VP8: its H.264 in packetization mode 1, as offered.
    private static let chromeOfferWithoutVP8 = editing(SDPFixtures.chromeOffer) { lines in
        lines.removeAll { line in
            ["96", "97"].contains {
                line.hasPrefix("a=rtpmap:\($0) ") || line.hasPrefix("a=rtcp-fb:\($0) ") || line.hasPrefix("a=fmtp:\($0) ")
            }
        }
        lines = lines.map { $0.hasPrefix("m=video") ? "m=video 9 UDP/TLS/RTP/SAVPF 98 99 100 101 45 46 102 103 104 105 116 117 118" : $0 }
    }

    @Test func takesH264InPacketizationModeOneWhenVP8IsNotOfferedAndAnswersItsParameters() throws {
        let (answered, _, tracks) = try answer(Self.chromeOfferWithoutVP8)
        let video = try #require(tracks.first { $0.kind == "video" })
        #expect(video.codec == .h264 && video.payloadType == 102 && video.rtxPayloadType == 103)
        #expect(video.formatParameters == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f")
        let text = answered.description
        #expect(text.contains("a=rtpmap:102 H264/90000\r\n"))
        #expect(text.contains("a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f\r\n"))
        #expect(!text.contains("VP9") && !text.contains("a=rtpmap:104 "))
        // VP8 goes first when both are offered.
        #expect(try answer(SDPFixtures.chromeOffer).tracks.first { $0.kind == "video" }?.codec == .vp8)
    }

    /// An offer that publishes `codec` alone, in one m-section of its kind, as its rules ask (Opus with
    /// two channels, H.264 in packetization mode 1).
    private static func offer(publishing codec: CodecName) -> String {
        let rtpmap = "100 \(codec.encodingName)/\(codec.clockRate)" + (codec == .opus ? "/2" : "")
        let fmtp = codec == .h264 ? ["a=fmtp:100 packetization-mode=1;profile-level-id=42e01f"] : []
        let fingerprint = (0..<32).map { _ in "2E" }.joined(separator: ":")
        let lines =
            [
                "v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "m=\(codec.kind.rawValue) 9 UDP/TLS/RTP/SAVPF 100", "c=IN IP4 0.0.0.0",
                "a=sendonly", "a=mid:0", "a=rtcp-mux", "a=ssrc:1234 cname:c", "a=rtpmap:\(rtpmap)",
            ] + fmtp + ["a=ice-ufrag:9XkT", "a=ice-pwd:bW3n0yHcR5kLmQ2tVfZp8s", "a=fingerprint:sha-256 \(fingerprint)", "a=setup:actpass"]
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Negotiation takes its codecs from `CodecName`, so each of them is accepted wherever it is
    /// offered alone, and a codec added there is accepted without a list of negotiation's own.
    @Test(arguments: CodecName.allCases)
    func acceptsEveryCodecTheRouterForwardsOfferedAlone(codec: CodecName) throws {
        let (answered, _, tracks) = try answer(Self.offer(publishing: codec))
        #expect(tracks.map(\.codec) == [codec])
        #expect(answered.media.first?.rtpmaps[100]?.name == codec.encodingName)
    }

    @Test func refusesVideoWithoutVP8OrH264InModeOneListingWhatWasOffered() throws {
        let text = editing(Self.chromeOfferWithoutVP8) { lines in
            lines = lines.map { $0.replacingOccurrences(of: "packetization-mode=1", with: "packetization-mode=0") }
        }
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "m=video", in: text),
                    text: "m=video 9 UDP/TLS/RTP/SAVPF 98 99 100 101 45 46 102 103 104 105 116 117 118",
                    reason: "no codec Switchyard forwards (Opus for audio, VP8 or H.264 in packetization mode 1 for video); offered: VP9, AV1, H264"))
    }

    @Test func anH264FormatWhoseProfileLevelIDNamesNoProfileIsPassedOverAndNamedWhenNoneIsLeft() throws {
        let firstUnknown = editing(Self.chromeOfferWithoutVP8) { lines in
            lines = lines.map { $0.hasPrefix("a=fmtp:102 ") ? $0.replacingOccurrences(of: "42001f", with: "6e001f") : $0 }
        }
        #expect(try answer(firstUnknown).tracks.first { $0.kind == "video" }?.payloadType == 104)
        let noneKnown = editing(firstUnknown) { lines in
            lines = lines.map { $0.hasPrefix("a=fmtp:104 ") ? $0.replacingOccurrences(of: "42e01f", with: "42e0") : $0 }
        }
        #expect(
            try refusal(of: noneKnown)?.reason
                == "no codec Switchyard forwards (Opus for audio, VP8 or H.264 in packetization mode 1 for video); offered: VP9, AV1, "
                + "H264 (profile-level-id 6e001f names no profile WebRTC negotiates: Constrained Baseline, Baseline, Main, Constrained High, High, High 4:4:4 Predictive)")
    }

    @Test func refusesAudioWithoutOpusListingWhatWasOffered() throws {
        let text = editing(SDPFixtures.aiortcOffer) { lines in
            lines.removeAll { $0 == "a=rtpmap:96 opus/48000/2" }
            lines = lines.map { $0.hasPrefix("m=audio") ? "m=audio 52734 UDP/TLS/RTP/SAVPF 0 8 18" : $0 }
        }
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "m=audio", in: text))
        #expect(
            error.reason
                == "no codec Switchyard forwards (Opus for audio, VP8 or H.264 in packetization mode 1 for video); offered: PCMU, PCMA, payload type 18")
    }

    @Test func anOpusWithoutItsTwoChannelsIsRefusedSayingHowOpusIsAnnounced() throws {
        let text = editing(SDPFixtures.aiortcOffer) { lines in
            lines = lines.map { $0 == "a=rtpmap:96 opus/48000/2" ? "a=rtpmap:96 OPUS/48000" : $0 }
        }
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "m=audio", in: text))
        #expect(error.reason.hasSuffix("offered: OPUS/48000 (Opus is opus/48000/2, RFC 7587), PCMU, PCMA"), "\(error.reason)")
    }

    @Test func declinesAReceiveOnlySectionWithoutAVideoCodecInsteadOfRefusing() throws {
        let text = editing(SDPFixtures.aiortcOffer) { lines in
            lines.removeAll { line in ["97", "99", "101"].contains { line.hasPrefix("a=rtpmap:\($0) ") } }
            lines = lines.map { $0.hasPrefix("m=video") ? "m=video 52734 UDP/TLS/RTP/SAVPF 98 100" : $0 }
            lines[lines.lastIndex(of: "a=sendrecv")!] = "a=recvonly"
        }
        let (answer, _, tracks) = try answer(text)
        #expect(tracks.map(\.kind) == ["audio"])
        #expect(answer.media[1].port == 0)
        #expect(answer.bundleGroup == ["0"])
    }

    @Test func answersAReceiveOnlySectionInactive() throws {
        let text = editing(SDPFixtures.chromeOffer) { lines in
            lines[lines.lastIndex(of: "a=sendrecv")!] = "a=recvonly"
        }
        let (answer, _, tracks) = try answer(text)
        #expect(tracks.map(\.mid) == ["0"])
        #expect(answer.media[1].direction == .inactive)
        #expect(answer.media[1].port == 40000)
        #expect(answer.bundleGroup == ["0", "1"])
    }

    @Test func refusesAnOfferThatPublishesNothing() throws {
        let text = replacing("a=sendrecv", with: "a=inactive", in: SDPFixtures.chromeOffer)
        #expect(try refusal(of: text) == SDPError(reason: "offer has no audio or video to publish"))
    }

    @Test func rejectsASectionTheOffererRejected() throws {
        let text = editing(SDPFixtures.chromeOffer) { lines in
            let index = lines.firstIndex { $0.hasPrefix("m=video") }!
            lines[index] = lines[index].replacing("m=video 9 ", with: "m=video 0 ")
        }
        let (answer, _, tracks) = try answer(text)
        #expect(tracks.map(\.mid) == ["0"])
        #expect(answer.media[1].mediaLine.description.hasPrefix("m=video 0 UDP/TLS/RTP/SAVPF 96 97 98"))
        #expect(answer.bundleGroup == ["0"])
    }

    @Test func acceptsABundleOnlySection() throws {
        // RFC 8843 section 6: port 0 with a=bundle-only means "only inside the BUNDLE", not "rejected".
        let text = editing(SDPFixtures.chromeOffer) { lines in
            let index = lines.firstIndex { $0.hasPrefix("m=video") }!
            lines[index] = lines[index].replacing("m=video 9 ", with: "m=video 0 ")
            lines.insert("a=bundle-only", at: index + 1)
        }
        let (answer, _, tracks) = try answer(text)
        #expect(tracks.map(\.mid) == ["0", "1"])
        #expect(answer.media[1].port == 40000)
        #expect(answer.bundleGroup == ["0", "1"])
    }

    @Test func refusesPlainRTP() throws {
        let text = editing(SDPFixtures.aiortcOffer) { lines in
            lines = lines.map { $0.hasPrefix("m=audio") ? "m=audio 52734 RTP/AVP 96 0 8" : $0 }
        }
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "m=audio", in: text), text: "m=audio 52734 RTP/AVP 96 0 8",
                    reason: "transport protocol RTP/AVP is not DTLS-SRTP over UDP (UDP/TLS/RTP/SAVPF)"))
    }

    @Test func refusesAPublishingSectionWithoutSources() throws {
        let text = editing(SDPFixtures.aiortcOffer) { $0.removeAll { $0.hasPrefix("a=ssrc") } }
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "m=audio", in: text))
        #expect(error.reason == "no a=ssrc and no a=simulcast: nothing says how to recognise the packets")
    }

    @Test func announcesTheDiscardPortBeforeCandidatesAreKnown() throws {
        var local = routerTransport
        local.candidates = []
        let (answer, _, _) = try PublisherNegotiation.answer(
            offer: SessionDescription(parsing: SDPFixtures.aiortcOffer), local: local, sessionID: 7)
        #expect(answer.media.map(\.port) == [9, 9])
        #expect(answer.media[0].lines.first?.description == "c=IN IP4 0.0.0.0")
        #expect(answer.media[0].lines.last?.description == "a=end-of-candidates")
        #expect(answer.origin.description == "switchyard 7 1 IN IP4 0.0.0.0")
    }
}
