// The invariants of the `sdp` libFuzzer target (Fuzz/SDPFuzzTarget.swift): the text any connected
// client sends as a publisher's offer or a subscriber's answer, through the same negotiation the
// signaling uses. `make test` checks them on every seed in Fuzz/seeds/sdp (FuzzSeedTests), so they
// cannot drift from the code between campaigns; Fuzz/run.sh compiles this file INTO the
// SessionDescription module (with -D FUZZ_TARGET), beside RTPWire and MediaControl modules it builds
// first, so internal API is in reach either way.
//
// Every input is read as UTF-8 text (invalid bytes become U+FFFD, as the WebSocket layer would have
// refused them anyway). It must be refused with an error that names a line of the text (or none) and
// says why, or parse into a description whose every accessor stays in bounds and that parses again
// when written out. Then the same description goes through the publisher's negotiation (as an offer)
// and the subscriber's (as the answer to a fixed router offer): each refuses the same way or returns
// a result consistent with what was sent; every accepted track carries a codec of its kind among those
// the router forwards (`CodecName`, the list negotiation chooses from). Broken invariants call
// `fatalError`, which libFuzzer records as a crash with the input.

#if !FUZZ_TARGET
    @testable import SessionDescription
#endif
import MediaControl
import RTPWire

private let local = LocalTransportDescription(
    iceUsernameFragment: "swyd8Kq2",
    icePassword: "v7HcQx2mTn9LpR4sWz1bYk6e",
    fingerprint: DTLSFingerprint(algorithm: "SHA-256", bytes: (0..<32).map { UInt8($0 * 7 & 0xFF) }),
    candidates: [ICECandidate(host: "127.0.0.1", port: 40_000, priority: 2_130_706_431, foundation: "1")])

/// The offer a subscriber answers: Opus in mid 0, VP8 in mid 1, as SessionDirectory writes it.
private let routerOffer = SubscriberNegotiation.offer(
    tracks: [
        OutgoingTrack(
            mid: "0", kind: "audio", codecName: "opus", payloadType: 111, clockRate: 48_000, channels: 2, ssrc: 0x1111_0001,
            cname: "fuzz", streamID: "stream", trackID: "mic",
            headerExtensions: [HeaderExtension(id: 4, uri: HeaderExtensionURI.mid)], rtcpFeedback: ["transport-cc"],
            fmtp: "minptime=10;useinbandfec=1"),
        OutgoingTrack(
            mid: "1", kind: "video", codecName: "VP8", payloadType: 96, clockRate: 90_000, ssrc: 0x1111_0002,
            cname: "fuzz", streamID: "stream", trackID: "cam",
            headerExtensions: [HeaderExtension(id: 4, uri: HeaderExtensionURI.mid)], rtcpFeedback: ["nack", "nack pli", "ccm fir"]),
    ],
    local: local, sessionID: 77, sessionVersion: 1)

enum SDPFuzzer {
    /// Checks one input; returns only when every invariant holds.
    static func check(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let lineCount = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        let description: SessionDescription
        do throws(SDPError) {
            description = try SessionDescription(parsing: text)
        } catch {
            checkRefusal(error, lineCount: lineCount)
            return
        }
        readEverything(description)
        ensure((try? SessionDescription(parsing: description.description)) != nil, "a parsed description written out does not parse again")

        do throws(SDPError) {
            let result = try PublisherNegotiation.answer(offer: description, local: local, sessionID: 1)
            ensure(result.answer.media.count == description.media.count, "one answer section per offered section")
            let offeredMids = Set(description.media.compactMap(\.mid))
            for track in result.tracks {
                ensure(offeredMids.contains(track.mid), "answered track \(track.mid) is not in the offer")
                ensure(track.payloadType < 128, "payload type \(track.payloadType)")
                ensure(track.codec.kind == MediaKind(rawValue: track.kind), "a \(track.kind) track in \(track.codec), not a \(track.kind) codec")
            }
            ensure(!result.remote.iceUsernameFragment.isEmpty && !result.remote.icePassword.isEmpty, "an offer accepted without ICE credentials")
            ensure((try? SessionDescription(parsing: result.answer.description)) != nil, "the router's answer does not parse")
        } catch {
            checkRefusal(error, lineCount: lineCount)
        }

        do throws(SDPError) {
            let remote = try SubscriberNegotiation.acceptAnswer(description, to: routerOffer)
            ensure(description.media.count == routerOffer.media.count, "an answer accepted with another number of sections")
            ensure(!remote.iceUsernameFragment.isEmpty && !remote.icePassword.isEmpty, "an answer accepted without ICE credentials")
            ensure(remote.setup == .active, "an answer accepted whose DTLS role is \(remote.setup)")
        } catch {
            checkRefusal(error, lineCount: lineCount)
        }
    }
}

/// A refusal names a line of the text, if any, and says why.
private func checkRefusal(_ error: SDPError, lineCount: Int) {
    if let line = error.line { ensure((1...lineCount).contains(line), "refusal names line \(line) of \(lineCount): \(error)") }
    ensure(!error.reason.isEmpty, "a refusal without a reason")
}

/// Every accessor the negotiation and the signaling may call; each must stay in bounds.
private func readEverything(_ description: SessionDescription) {
    _ = (description.bundleGroup, description.isICELite, description.iceUfrag, description.icePwd)
    _ = (description.fingerprints, description.setup, description.direction)
    for media in description.media {
        _ = (media.mediaLine, media.carriesRTP, media.mid, media.direction, media.fmtp, media.rtcpFeedback)
        for (payloadType, map) in media.rtpmaps {
            _ = (map, media.rtcpFeedback(forPayloadType: payloadType))
        }
        _ = (media.extmaps, media.ssrcs, media.ssrcGroups, media.msid, media.rids, media.simulcast, media.candidates)
        _ = (media.iceUfrag, media.icePwd, media.fingerprints, media.setup, media.rtcpMux, media.rtcpReducedSize, media.isBundleOnly)
        _ = (description.iceUfrag(for: media), description.icePwd(for: media), description.fingerprints(for: media))
        _ = (description.setup(for: media), description.direction(for: media))
    }
}

@inline(__always)
private func ensure(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("SDP fuzz invariant: \(message())") }
}
