import MediaControl
import RTPWire

/// Answers the offer of a receiver that offers first (a WHEP player), where the router's own
/// subscribers take the router's offer (`SubscriberNegotiation`).
///
/// Reading the offer comes first (`read`): which of its m-sections get a track, with the payload types
/// the receiver chose, since the router's consumers must send with them. Then `answer`, once the
/// consumers exist: the router sends (`sendonly`), is the DTLS server (`passive`), ICE-lite, over the
/// offer's BUNDLE; only header extensions the offer has with the very id the router writes them with
/// are answered, so the receiver never reads an element under another meaning.
public enum ReceiverNegotiation {
    /// One m-section of the offer the router will send a track in.
    public struct Section: Sendable, Equatable {
        public var mid: String
        /// `audio` or `video`.
        public var kind: String
        /// The receiver's payload type for the codec, and for its RTX when it offered one.
        public var payloadType: UInt8
        public var rtxPayloadType: UInt8?
        /// The receiver's payload type for RFC 2198 redundant audio, when it offered `red/48000/2`
        /// with Opus inside.
        public var redPayloadType: UInt8?
        public var rtcpFeedback: [String]
        /// The `a=fmtp` parameters to answer that payload type with: the receiver's own (H.264's), with
        /// the profile-level-id RFC 6184 section 8.2.2 answers (`H264FormatParameters.answerProfileLevelID`).
        public var formatParameters: String?
    }

    /// What an offer asks for: a section per kind the router can send, and the receiver's transport.
    public struct Reading: Sendable, Equatable {
        public var audio: Section?
        public var video: Section?
        public var remote: RemoteTransportDescription
        /// The id the receiver gave the transport-wide sequence number, when it offered it with
        /// `transport-cc` feedback.
        public var transportWideSequenceID: UInt8?
    }

    /// Reads a receiver's offer: the first audio m-section with Opus and the first video one with
    /// `videoCodec` (the stream's) that can receive (`recvonly` or `sendrecv`). For H.264, of the formats
    /// in packetization mode 1, the first of the stream's profile (read from `streamH264Parameters`, the
    /// publisher's `a=fmtp`), else the first whose decoders play it. Throws, naming the line, when the
    /// offer is not BUNDLEd, is not DTLS-SRTP, wants the router to be the DTLS client, lacks ICE
    /// credentials, a fingerprint, `a=mid` or `a=rtcp-mux`, has no m-section the router can send in, or
    /// offers H.264 only in profiles that cannot play the stream's.
    public static func read(
        _ offer: SessionDescription, videoCodec: CodecName = .vp8, streamH264Parameters: String? = nil
    ) throws(SDPError) -> Reading {
        let stream: H264FormatParameters?
        do throws(SDPError) {
            stream = videoCodec == .h264 ? try H264FormatParameters(parsing: streamH264Parameters) : nil
        } catch {
            throw SDPError(reason: "the stream's \(error.reason)")
        }
        if offer.media.count > 1, offer.bundleGroup == nil {
            throw SDPError(reason: "offer has \(offer.media.count) media sections but no a=group:BUNDLE; Switchyard sends over one transport")
        }
        // A video m-section must offer the stream's codec, which the router sends as it comes; an audio
        // one chooses among the audio codecs as a publisher's does.
        let codecs = CodecName.allCases.filter { $0.kind == .audio || $0 == videoCodec }
        var audio: Section?
        var video: Section?
        var transportSection: MediaDescription?
        var transportWide: UInt8?
        for offered in offer.media where offered.port != 0 || offered.isBundleOnly {
            // The first audio and the first video m-section get a track; any other is rejected.
            switch offered.kind {
            case "audio" where audio == nil, "video" where video == nil: break
            default: continue
            }
            guard offer.direction(for: offered).receives else { continue }
            guard PublisherNegotiation.acceptedTransportProtocols.contains(offered.transportProtocol.uppercased()) else {
                throw SDPError("transport protocol \(offered.transportProtocol) is not DTLS-SRTP over UDP (UDP/TLS/RTP/SAVPF)", at: offered)
            }
            guard let codec = PublisherNegotiation.chooseCodec(in: offered, among: codecs, sendingH264: stream?.profileLevelID) else {
                let offeredH264 = PublisherNegotiation.h264FormatsInModeOne(in: offered)
                if offered.kind == "video", let stream, !offeredH264.isEmpty {
                    let profiles = offeredH264.map { format in
                        switch format.parameters {
                        case .success(let parameters): parameters.profileLevelID.spelledOut
                        case .failure(let error): error.reason
                        }
                    }
                    throw SDPError(
                        "no H.264 profile offered plays the stream's \(stream.profileLevelID.spelledOut); offered: \(profiles.joined(separator: ", "))",
                        at: offered)
                }
                let wanted = CodecName.alternatives(CodecName.carried(in: offered.kind, among: codecs))
                throw SDPError(
                    "no codec this stream can be sent in (\(wanted)); offered: \(PublisherNegotiation.offeredCodecNames(in: offered))",
                    at: offered)
            }
            guard let mid = offered.mid else { throw SDPError("no a=mid; BUNDLE needs it to tell the m-sections apart", at: offered) }
            guard offered.rtcpMux else { throw SDPError("no a=rtcp-mux; Switchyard sends RTP and RTCP on one port", at: offered) }
            let section = Section(
                mid: mid, kind: offered.kind, payloadType: codec.rtpmap.payloadType, rtxPayloadType: codec.rtxPayloadType,
                redPayloadType: codec.redPayloadType, rtcpFeedback: codec.rtcpFeedback, formatParameters: answeredParameters(of: codec, sending: stream))
            if transportWide == nil, codec.rtcpFeedback.contains("transport-cc") {
                transportWide = offered.extmaps.first { $0.uri == HeaderExtensionURI.transportWideSequenceNumber }?.id
            }
            if offered.kind == "audio" { audio = section } else { video = section }
            transportSection = transportSection ?? offered
        }
        guard let transportSection else {
            throw SDPError(reason: "offer has no audio or video m-section that receives; a WHEP offer is recvonly")
        }
        let remote = try RemoteTransportDescription(
            of: transportSection, in: offer, acceptedSetups: [.actpass, .active],
            setupRefusal: "Switchyard can only be the DTLS server (passive), so the offer must say actpass or active")
        return Reading(audio: audio, video: video, remote: remote, transportWideSequenceID: transportWide)
    }

    /// The chosen format's parameters for the answer; an H.264 one with the profile-level-id answered
    /// for the stream's level.
    private static func answeredParameters(of codec: PublisherNegotiation.ChosenCodec, sending stream: H264FormatParameters?) -> String? {
        guard let stream, codec.codec == .h264, let offered = try? H264FormatParameters(parsing: codec.fmtp) else {
            return codec.fmtp
        }
        return H264FormatParameters.setting(stream.answerProfileLevelID(to: offered), in: codec.fmtp ?? "")
    }

    /// The answer: each track in the m-section `read` chose for it, every other m-section rejected.
    /// `tracks` carry the receiver's mids and payload types and the extensions the router writes.
    public static func answer(
        to offer: SessionDescription, tracks: [OutgoingTrack], local: LocalTransportDescription, sessionID: UInt64
    ) -> SessionDescription {
        var answer = SessionDescription(
            origin: SDPOrigin(username: "switchyard", sessionID: sessionID, sessionVersion: 1),
            sessionLines: [SDPLine(type: "t", value: "0 0")])
        answer.isICELite = true
        answer.media = offer.media.map { offered in
            guard var track = tracks.first(where: { $0.mid == offered.mid && $0.kind == offered.kind }) else {
                return PublisherNegotiation.rejection(of: offered)
            }
            let offeredExtensions = Set(offered.extmaps.map { "\($0.id) \($0.uri)" })
            track.headerExtensions = track.headerExtensions.filter { offeredExtensions.contains("\($0.id) \($0.uri)") }
            track.rtcpFeedback = track.rtcpFeedback.filter(offered.rtcpFeedback(forPayloadType: track.payloadType).contains)
            return SubscriberNegotiation.section(for: track, local: local, setup: .passive)
        }
        let sent = tracks.map(\.mid)
        if !sent.isEmpty { answer.bundleGroup = offer.media.compactMap(\.mid).filter(sent.contains) }
        return answer
    }
}
