import RTPWire
import Testing

@testable import SessionDescription

private let microphone = OutgoingTrack(
    mid: "0", kind: "audio", codecName: "opus", payloadType: 111, clockRate: 48000, channels: 2, ssrc: 0x1111_0001,
    cname: "alice", streamID: "alice-stream", trackID: "alice-mic",
    headerExtensions: [HeaderExtension(id: 4, uri: HeaderExtensionURI.mid)], rtcpFeedback: ["transport-cc"],
    fmtp: "minptime=10;useinbandfec=1")

private let camera = OutgoingTrack(
    mid: "1", kind: "video", codecName: "VP8", payloadType: 96, clockRate: 90000, ssrc: 0x1111_0002,
    cname: "alice", streamID: "alice-stream", trackID: "alice-cam",
    headerExtensions: [
        HeaderExtension(id: 3, uri: HeaderExtensionURI.transportWideSequenceNumber),
        HeaderExtension(id: 4, uri: HeaderExtensionURI.mid),
    ],
    rtcpFeedback: ["nack", "nack pli", "ccm fir", "transport-cc"])

private let routerOffer = SubscriberNegotiation.offer(
    tracks: [microphone, camera], local: routerTransport, sessionID: 77, sessionVersion: 3)

/// What Chrome answers to `routerOffer`.
private let chromeAnswer = """
    v=0
    o=- 6920377282283590563 2 IN IP4 127.0.0.1
    s=-
    t=0 0
    a=group:BUNDLE 0 1
    a=extmap-allow-mixed
    a=msid-semantic: WMS
    m=audio 9 UDP/TLS/RTP/SAVPF 111
    c=IN IP4 0.0.0.0
    a=rtcp:9 IN IP4 0.0.0.0
    a=ice-ufrag:Yc2v
    a=ice-pwd:0xMqw8F2sDrTLb6NhV1kZp4G
    a=ice-options:trickle
    a=fingerprint:sha-256 34:60:BE:31:20:1E:69:FE:DA:A0:EE:E8:B9:99:7F:5C:7C:29:99:FD:AF:E5:93:25:3C:D6:54:AF:4D:FA:D7:14
    a=setup:active
    a=mid:0
    a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
    a=recvonly
    a=rtcp-mux
    a=rtpmap:111 opus/48000/2
    a=rtcp-fb:111 transport-cc
    a=fmtp:111 minptime=10;useinbandfec=1
    m=video 9 UDP/TLS/RTP/SAVPF 96
    c=IN IP4 0.0.0.0
    a=rtcp:9 IN IP4 0.0.0.0
    a=ice-ufrag:Yc2v
    a=ice-pwd:0xMqw8F2sDrTLb6NhV1kZp4G
    a=ice-options:trickle
    a=fingerprint:sha-256 34:60:BE:31:20:1E:69:FE:DA:A0:EE:E8:B9:99:7F:5C:7C:29:99:FD:AF:E5:93:25:3C:D6:54:AF:4D:FA:D7:14
    a=setup:active
    a=mid:1
    a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
    a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
    a=recvonly
    a=rtcp-mux
    a=rtcp-rsize
    a=rtpmap:96 VP8/90000
    a=rtcp-fb:96 transport-cc
    a=rtcp-fb:96 ccm fir
    a=rtcp-fb:96 nack
    a=rtcp-fb:96 nack pli

    """

/// Checks `text` as the answer to `routerOffer`, expecting a refusal; returns the error.
private func refusal(of text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SDPError? {
    let answer = try SessionDescription(parsing: text)
    return #expect(throws: SDPError.self, sourceLocation: sourceLocation) {
        try SubscriberNegotiation.acceptAnswer(answer, to: routerOffer)
    }
}

@Suite struct SubscriberNegotiationTests {
    @Test func offersOneSendonlySectionPerTrack() {
        let transport = [
            "a=ice-ufrag:swyd8Kq2", "a=ice-pwd:v7HcQx2mTn9LpR4sWz1bYk6e",
            "a=fingerprint:\(routerTransport.fingerprint.description)", "a=setup:actpass", "a=rtcp-mux", "a=sendonly",
            "a=msid:alice-stream",
        ]
        let candidates = [
            "a=candidate:1 1 udp 2130706431 203.0.113.10 40000 typ host",
            "a=candidate:2 1 udp 2130706175 2001:db8::10 40000 typ host", "a=end-of-candidates",
        ]
        var expected = ["v=0", "o=switchyard 77 3 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=ice-lite", "a=group:BUNDLE 0 1"]
        expected += ["m=audio 40000 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 203.0.113.10", "a=mid:0"]
        expected += transport.map { $0 == "a=msid:alice-stream" ? "a=msid:alice-stream alice-mic" : $0 }
        expected += [
            "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtcp-fb:111 transport-cc",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=ssrc:286326785 cname:alice", "a=ssrc:286326785 msid:alice-stream alice-mic",
        ]
        expected += candidates
        expected += ["m=video 40000 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 203.0.113.10", "a=mid:1"]
        expected += transport.map { $0 == "a=msid:alice-stream" ? "a=msid:alice-stream alice-cam" : $0 }
        expected += [
            "a=rtpmap:96 VP8/90000",
            "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 ccm fir", "a=rtcp-fb:96 transport-cc",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=ssrc:286326786 cname:alice", "a=ssrc:286326786 msid:alice-stream alice-cam",
        ]
        expected += candidates
        #expect(lines(of: routerOffer) == expected)
    }

    @Test func offerReadsBackAsWritten() throws {
        let reparsed = try SessionDescription(parsing: routerOffer.description)
        #expect(reparsed == routerOffer)
        #expect(reparsed.media.map(\.mid) == ["0", "1"])
        #expect(reparsed.media[1].ssrcs.first?.msid == MSID(streamID: "alice-stream", trackID: "alice-cam"))
        #expect(reparsed.media.allSatisfy { $0.direction == .sendonly && $0.setup == .actpass && $0.rtcpMux })
        #expect(reparsed.media.allSatisfy { $0.rtpmaps.count == 1 })
    }

    @Test func offersNoBundleGroupWithoutTracks() {
        let empty = SubscriberNegotiation.offer(tracks: [], local: routerTransport, sessionID: 1, sessionVersion: 1)
        #expect(empty.bundleGroup == nil)
        #expect(empty.media.isEmpty)
        #expect(empty.isICELite)
    }

    @Test func acceptsChromesAnswer() throws {
        let remote = try SubscriberNegotiation.acceptAnswer(SessionDescription(parsing: chromeAnswer), to: routerOffer)
        #expect(
            remote
                == RemoteTransportDescription(
                    iceUsernameFragment: "Yc2v", icePassword: "0xMqw8F2sDrTLb6NhV1kZp4G",
                    fingerprint: try DTLSFingerprint(
                        parsing:
                            "sha-256 34:60:BE:31:20:1E:69:FE:DA:A0:EE:E8:B9:99:7F:5C:7C:29:99:FD:AF:E5:93:25:3C:D6:54:AF:4D:FA:D7:14"
                    ),
                    setup: .active))
    }

    @Test func acceptsAnInactiveSection() throws {
        let text = editing(chromeAnswer) { lines in lines[lines.lastIndex(of: "a=recvonly")!] = "a=inactive" }
        #expect(
            try SubscriberNegotiation.acceptAnswer(SessionDescription(parsing: text), to: routerOffer).setup == .active)
    }

    @Test func refusesAPassiveAnswer() throws {
        let text = replacing("a=setup:active", with: "a=setup:passive", in: chromeAnswer)
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "a=setup:passive", in: text), text: "a=setup:passive",
                    reason:
                        "Switchyard offered actpass but can only be the DTLS server (passive), so the answer must say active"
                ))
        let actpass = replacing("a=setup:active", with: "a=setup:actpass", in: chromeAnswer)
        #expect(try refusal(of: actpass)?.line == lineNumber(of: "a=setup:actpass", in: actpass))
    }

    @Test func refusesAnAnswerThatDropsThePayloadType() throws {
        let text = editing(chromeAnswer) { lines in
            lines = lines.map { $0 == "m=video 9 UDP/TLS/RTP/SAVPF 96" ? "m=video 9 UDP/TLS/RTP/SAVPF 98" : $0 }
            lines = lines.map { $0 == "a=rtpmap:96 VP8/90000" ? "a=rtpmap:98 VP9/90000" : $0 }
            lines.removeAll { $0.hasPrefix("a=rtcp-fb:96") }
        }
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "m=video", in: text), text: "m=video 9 UDP/TLS/RTP/SAVPF 98",
                    reason: "answer drops payload type 96 (VP8/90000), which the router sends in this m-section"))
    }

    @Test func refusesAnAnswerThatMapsThePayloadTypeToAnotherCodec() throws {
        let text = replacing("a=rtpmap:96 VP8/90000", with: "a=rtpmap:96 H264/90000", in: chromeAnswer)
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "a=rtpmap:96", in: text), text: "a=rtpmap:96 H264/90000",
                    reason: "payload type 96 is VP8/90000 in the offer"))
    }

    @Test func refusesARejectedSection() throws {
        let text = replacing("m=video 9 UDP/TLS/RTP/SAVPF 96", with: "m=video 0 UDP/TLS/RTP/SAVPF 96", in: chromeAnswer)
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "m=video", in: text))
        #expect(error.reason == "the subscriber rejected this m-section (port 0)")
    }

    @Test func refusesASubscriberThatWantsToSend() throws {
        let text = editing(chromeAnswer) { lines in lines[lines.lastIndex(of: "a=recvonly")!] = "a=sendrecv" }
        #expect(
            try refusal(of: text)
                == SDPError(
                    line: lineNumber(of: "a=sendrecv", in: text), text: "a=sendrecv",
                    reason: "a subscriber may only receive (recvonly) or decline (inactive), not sendrecv"))
        let withoutDirection = removing("a=recvonly", from: chromeAnswer, occurrence: 1)
        let error = try #require(try refusal(of: withoutDirection))
        #expect(error.line == lineNumber(of: "m=audio", in: withoutDirection))
        #expect(error.reason == "a subscriber may only receive (recvonly) or decline (inactive), not sendrecv")
    }

    @Test func refusesAnAnswerWithoutBundle() throws {
        let text = removing("a=group:BUNDLE 0 1", from: chromeAnswer)
        #expect(
            try refusal(of: text)
                == SDPError(
                    reason:
                        "answer has 2 media sections but no a=group:BUNDLE; Switchyard sends a subscription over one transport"
                ))
        let partial = replacing("a=group:BUNDLE 0 1", with: "a=group:BUNDLE 0", in: chromeAnswer)
        #expect(try refusal(of: partial)?.line == lineNumber(of: "m=video", in: partial))
    }

    @Test func refusesAnAnswerWithoutRtcpMux() throws {
        let text = removing("a=rtcp-mux", from: chromeAnswer, occurrence: 2)
        let error = try #require(try refusal(of: text))
        #expect(error.line == lineNumber(of: "m=video", in: text))
        #expect(error.reason == "no a=rtcp-mux; Switchyard sends RTP and RTCP on one port")
    }

    @Test func refusesAnAnswerWithoutCredentialsOrFingerprint() throws {
        let withoutUfrag = editing(chromeAnswer) { $0.removeAll { $0.hasPrefix("a=ice-ufrag") } }
        #expect(try refusal(of: withoutUfrag)?.reason == "no a=ice-ufrag in this m-section or at session level")
        #expect(try refusal(of: withoutUfrag)?.line == lineNumber(of: "m=audio", in: withoutUfrag))
        let withoutPassword = editing(chromeAnswer) { $0.removeAll { $0.hasPrefix("a=ice-pwd") } }
        #expect(try refusal(of: withoutPassword)?.reason == "no a=ice-pwd in this m-section or at session level")
        let withoutFingerprint = editing(chromeAnswer) { $0.removeAll { $0.hasPrefix("a=fingerprint") } }
        #expect(
            try refusal(of: withoutFingerprint)?.reason
                == "no a=fingerprint in this m-section or at session level; DTLS needs the peer's certificate fingerprint"
        )
    }

    @Test func refusesAnAnswerThatDoesNotMatchTheOfferSections() throws {
        let oneSection = editing(chromeAnswer) { lines in
            lines.removeSubrange(lines.firstIndex { $0.hasPrefix("m=video") }!..<lines.endIndex)
            lines = lines.map { $0 == "a=group:BUNDLE 0 1" ? "a=group:BUNDLE 0" : $0 }
        }
        #expect(try refusal(of: oneSection) == SDPError(reason: "answer has 1 media sections but the offer had 2"))

        let swapped = editing(chromeAnswer) { lines in
            lines = lines.map { $0 == "a=mid:1" ? "a=mid:x" : $0 == "a=group:BUNDLE 0 1" ? "a=group:BUNDLE 0 x" : $0 }
        }
        let error = try #require(try refusal(of: swapped))
        #expect(error.line == lineNumber(of: "m=video", in: swapped))
        #expect(error.reason == "answers video mid x where the offer has video mid 1")
    }

    @Test func anH264AnswerMayChangeTheLevelButNotTheProfileOrPacketizationMode() throws {
        var h264Camera = camera
        h264Camera.codecName = "H264"
        h264Camera.payloadType = 102
        h264Camera.fmtp = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"
        let offer = SubscriberNegotiation.offer(tracks: [microphone, h264Camera], local: routerTransport, sessionID: 77, sessionVersion: 3)
        func answer(_ fmtp: String?) -> String {
            editing(chromeAnswer) { lines in
                lines = lines.map { $0.replacingOccurrences(of: " 96", with: " 102").replacingOccurrences(of: ":96 ", with: ":102 ") }
                lines = lines.map { $0 == "a=rtpmap:102 VP8/90000" ? "a=rtpmap:102 H264/90000" : $0 }
                if let fmtp { lines.insert("a=fmtp:102 \(fmtp)", at: lines.firstIndex(of: "a=rtpmap:102 H264/90000")! + 1) }
            }
        }
        func refusal(_ text: String) throws -> SDPError? {
            let answer = try SessionDescription(parsing: text)
            return #expect(throws: SDPError.self) { try SubscriberNegotiation.acceptAnswer(answer, to: offer) }
        }
        for accepted in [
            "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e034", "packetization-mode=1;profile-level-id=42c01f", nil,
        ] {
            #expect(throws: Never.self, "\(accepted ?? "no a=fmtp")") {
                try SubscriberNegotiation.acceptAnswer(SessionDescription(parsing: answer(accepted)), to: offer)
            }
        }
        let main = answer("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f")
        let otherProfile = try refusal(main)
        #expect(otherProfile?.line == lineNumber(of: "a=fmtp:102", in: main))
        #expect(
            otherProfile?.reason
                == "payload type 102 is H.264 Constrained Baseline (42e01f), the stream's profile, in the offer, not Main (4d001f)")
        #expect(
            try refusal(answer("profile-level-id=42e01f"))?.reason
                == "payload type 102 is H.264 in packetization mode 1 in the offer, not 0")
        #expect(try refusal(answer("packetization-mode=1;profile-level-id=42e0zz"))?.reason == "profile-level-id 42e0zz is not three bytes in hex")
    }
}
