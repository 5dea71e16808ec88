import Testing

@testable import SessionDescription

/// Parses `text`, expecting it to be refused; returns the error.
private func refusal(of text: String, sourceLocation: SourceLocation = #_sourceLocation) -> SDPError? {
    #expect(throws: SDPError.self, sourceLocation: sourceLocation) { try SessionDescription(parsing: text) }
}

/// The Chrome offer with one more line right after its video `m=` line.
private func chromeOffer(withVideoLine line: String) -> String {
    editing(SDPFixtures.chromeOffer) { lines in
        lines.insert(line, at: lines.firstIndex { $0.hasPrefix("m=video") }! + 1)
    }
}

@Suite struct SessionDescriptionRefusalTests {
    @Test func describesAnErrorWithWhatIsKnownOfItsPlace() {
        #expect(
            SDPError(reason: "offer has no audio or video to publish").description
                == "offer has no audio or video to publish")
        #expect(SDPError(line: 3, reason: "bad").description == "line 3: bad")
        #expect(SDPError(text: "m=video 0 RTP/AVP 96", reason: "bad").description == "m=video 0 RTP/AVP 96: bad")
        #expect(
            SDPError(line: 12, text: "a=rtpmap:96 VP8", reason: "bad").description == "line 12 (a=rtpmap:96 VP8): bad")
    }

    @Test func refusesEmptyText() {
        #expect(refusal(of: "") == SDPError(reason: "the session description is empty"))
        #expect(refusal(of: "\r\n\r\n") == SDPError(reason: "the session description is empty"))
    }

    @Test func refusesALineThatIsNotLetterEqualsValue() throws {
        let text = chromeOffer(withVideoLine: "x")
        let error = try #require(refusal(of: text))
        #expect(error.line == lineNumber(of: "m=video", in: text)! + 1)
        #expect(error.text == "x")
        #expect(error.reason == "not an SDP line: every line is one lowercase letter, '=', and a value")
        #expect(error.description == "line \(error.line!) (x): \(error.reason)")
    }

    @Test(arguments: ["A=uppercase", " a=indented", "a:missing-equals", "=value"])
    func refusesMalformedLineShapes(line: String) throws {
        let error = try #require(refusal(of: chromeOffer(withVideoLine: line)))
        #expect(error.text == line)
        #expect(error.line == lineNumber(of: "m=video", in: SDPFixtures.chromeOffer)! + 1)
    }

    @Test func refusesTextThatDoesNotStartWithVersionZero() {
        #expect(
            refusal(of: "o=- 1 1 IN IP4 0.0.0.0\nv=0\ns=-\n")
                == SDPError(
                    line: 1, text: "o=- 1 1 IN IP4 0.0.0.0", reason: "a session description starts with v=0"))
        #expect(refusal(of: "v=1\no=- 1 1 IN IP4 0.0.0.0\ns=-\n")?.line == 1)
    }

    @Test func refusesAMediaSectionBeforeOriginAndSessionName() {
        #expect(
            refusal(of: "v=0\nm=audio 9 UDP/TLS/RTP/SAVPF 111\no=- 1 1 IN IP4 0.0.0.0\ns=-\n")
                == SDPError(
                    line: 2, text: "m=audio 9 UDP/TLS/RTP/SAVPF 111",
                    reason: "expected o= (origin) here; SDP starts with v=, o=, s= in that order"))
        #expect(refusal(of: "v=0\no=- 1 1 IN IP4 0.0.0.0\nm=audio 9 UDP/TLS/RTP/SAVPF 111\n")?.line == 3)
        #expect(refusal(of: "v=0\r\n") == SDPError(reason: "the description ends before its o= (origin) line"))
    }

    @Test func refusesAMalformedOrigin() {
        #expect(refusal(of: "v=0\no=- 1 IN IP4 0.0.0.0\ns=-\n")?.line == 2)
        #expect(
            refusal(of: "v=0\no=- abc 2 IN IP4 0.0.0.0\ns=-\n")?.reason
                == "o= session id and version must be numbers that fit in 64 bits")
    }

    @Test func refusesSessionLinesRepeatedOrInsideAMediaSection() {
        let repeatedOrigin = chromeOffer(withVideoLine: "o=- 1 1 IN IP4 0.0.0.0")
        #expect(refusal(of: repeatedOrigin)?.reason == "o= may appear only once, at the top of the description")
        let timingInMedia = chromeOffer(withVideoLine: "t=0 0")
        #expect(refusal(of: timingInMedia)?.reason == "t= is a session-level line and belongs before the first m= line")
        #expect(refusal(of: timingInMedia)?.line == lineNumber(of: "m=video", in: SDPFixtures.chromeOffer)! + 1)
    }

    @Test func refusesARtpmapWithoutEncoding() throws {
        let text = chromeOffer(withVideoLine: "a=rtpmap:abc")
        let error = try #require(refusal(of: text))
        #expect(error.line == lineNumber(of: "a=rtpmap:abc", in: text))
        #expect(error.text == "a=rtpmap:abc")
        #expect(error.reason == "a=rtpmap needs <payload type> <encoding name>/<clock rate>[/<channels>]")
    }

    @Test(arguments: [
        ("a=rtpmap:abc VP8/90000", "payload type \"abc\" is not a number from 0 to 127"),
        ("a=rtpmap:200 VP8/90000", "payload type \"200\" is not a number from 0 to 127"),
        ("a=rtpmap:96 VP8/fast", "clock rate \"fast\" is not a positive number"),
        ("a=rtpmap:111 opus/48000/zero", "channel count \"zero\" is not a positive number"),
        ("a=fmtp:97", "a=fmtp needs <payload type> <parameters>"),
        ("a=rtcp-fb:96", "a=rtcp-fb needs <payload type or *> <feedback>"),
        ("a=extmap:0 urn:ietf:params:rtp-hdrext:sdes:mid", "extmap id \"0\" is not a number from 1 to 255"),
        ("a=extmap:300 urn:ietf:params:rtp-hdrext:sdes:mid", "extmap id \"300\" is not a number from 1 to 255"),
        (
            "a=extmap:3/both urn:ietf:params:rtp-hdrext:sdes:mid",
            "extmap direction \"3/both\" is not <id>/sendrecv, sendonly, recvonly or inactive"
        ),
        ("a=ssrc:cafe cname:x", "SSRC \"cafe\" is not a number from 0 to 4294967295"),
        ("a=ssrc:1234", "a=ssrc needs <ssrc> <attribute>[:<value>]"),
        ("a=ssrc-group:FID", "a=ssrc-group needs <semantics> <ssrc>..."),
        ("a=ssrc-group:FID 1 -2", "SSRC \"-2\" is not a number from 0 to 4294967295"),
        ("a=msid:a b c", "a=msid needs <stream id> [<track id>]"),
        ("a=rid:h sideways", "rid direction \"sideways\" is neither send nor recv"),
        ("a=setup:sideways", "a=setup must be active, passive, actpass or holdconn"),
        ("a=fingerprint:sha-256", "a=fingerprint needs a hash function and colon-separated hex bytes"),
        ("a=fingerprint:sha-256 A5:4D", "a sha-256 fingerprint has 32 bytes, not 2"),
        ("a=fingerprint:sha-1 A5:4G", "fingerprint byte \"4G\" is not two hex digits"),
        ("a=mid:", "a=mid needs a value"),
        ("a=ice-ufrag", "a=ice-ufrag needs a value"),
    ])
    func refusesMalformedAttributes(line: String, reason: String) throws {
        let text = chromeOffer(withVideoLine: line)
        let error = try #require(refusal(of: text))
        #expect(error == SDPError(line: lineNumber(of: "m=video", in: text)! + 1, text: line, reason: reason))
    }

    @Test(arguments: [
        ("m=video notaport UDP/TLS/RTP/SAVPF 96 97", "port \"notaport\" is not a number from 0 to 65535"),
        ("m=video 70000 UDP/TLS/RTP/SAVPF 96 97", "port \"70000\" is not a number from 0 to 65535"),
        ("m=video 9/0 UDP/TLS/RTP/SAVPF 96 97", "port count \"0\" is not a positive number"),
        ("m=video 9 UDP/TLS/RTP/SAVPF", "m= needs <media> <port> <protocol> <format>..."),
        ("m=video 9 UDP/TLS/RTP/SAVPF 96 vp8", "payload type \"vp8\" is not a number from 0 to 127"),
    ])
    func refusesMalformedMediaLines(mediaLine: String, reason: String) throws {
        let original = SDPFixtures.chromeOffer.split(separator: "\n").first { $0.hasPrefix("m=video") }!
        let text = replacing(String(original), with: mediaLine, in: SDPFixtures.chromeOffer)
        let error = try #require(refusal(of: text))
        #expect(error == SDPError(line: lineNumber(of: "m=video", in: text), text: mediaLine, reason: reason))
    }

    @Test func leavesUnknownLinesAndAttributesAlone() throws {
        let kept = try SessionDescription(parsing: chromeOffer(withVideoLine: "a=x-google-flag:conference"))
        #expect(kept.media[1].lines.first?.description == "a=x-google-flag:conference")
        let unknownType = try SessionDescription(parsing: chromeOffer(withVideoLine: "y=whatever"))
        #expect(unknownType.media[1].lines.first?.description == "y=whatever")
    }
}
