import MediaControl
import RTPWire

/// Offers a subscriber the tracks it subscribed to, and checks the answer.
///
/// The router makes the offer so that it controls payload types, SSRCs and mids; the subscriber only
/// has to accept them over one BUNDLEd transport on which the router is the DTLS server.
public enum SubscriberNegotiation {
    /// The router's offer to a subscriber: one sendonly m-section per track, BUNDLE, rtcp-mux, ICE-lite,
    /// setup actpass.
    ///
    /// Each m-section carries one payload type, no RTX: the router repairs losses from its own
    /// retransmission buffer.
    public static func offer(
        tracks: [OutgoingTrack], local: LocalTransportDescription, sessionID: UInt64, sessionVersion: UInt64
    ) -> SessionDescription {
        var offer = SessionDescription(
            origin: SDPOrigin(username: "switchyard", sessionID: sessionID, sessionVersion: sessionVersion),
            sessionLines: [SDPLine(type: "t", value: "0 0")])
        offer.isICELite = true
        if !tracks.isEmpty { offer.bundleGroup = tracks.map(\.mid) }
        offer.media = tracks.map { section(for: $0, local: local) }
        return offer
    }

    /// Checks a subscriber's answer against the offer we made; returns the remote transport. Throws when
    /// the answer rejects a track's codec, is not BUNDLEd, lacks rtcp-mux, ice-ufrag/pwd or
    /// fingerprint, or whose setup is not active (we can only be passive).
    ///
    /// The answer must have the offer's m-sections in the offer's order (same mids and kinds), each
    /// accepted (non-zero port, or `a=bundle-only`), keeping the payload type the router sends, and
    /// `recvonly` or `inactive`.
    public static func acceptAnswer(
        _ answer: SessionDescription, to offer: SessionDescription
    ) throws(SDPError) -> RemoteTransportDescription {
        guard answer.media.count == offer.media.count else {
            throw SDPError(
                reason: "answer has \(answer.media.count) media sections but the offer had \(offer.media.count)")
        }
        guard let firstSection = answer.media.first else {
            throw SDPError(reason: "answer has no media sections, so there is no transport to set up")
        }
        if answer.media.count > 1 {
            guard let group = answer.bundleGroup else {
                throw SDPError(
                    reason: "answer has \(answer.media.count) media sections but no a=group:BUNDLE; "
                        + "Switchyard sends a subscription over one transport")
            }
            for section in answer.media where !group.contains(section.mid ?? "") {
                throw SDPError(
                    "mid \(section.mid ?? "(none)") is not in the answer's a=group:BUNDLE; "
                        + "Switchyard sends a subscription over one transport", at: section)
            }
        }
        for (offered, answered) in zip(offer.media, answer.media) {
            try check(answered, against: offered, in: answer)
        }
        // The first mid of the group names the m-section whose transport the whole bundle uses.
        let tagged = answer.bundleGroup?.first.flatMap { mid in answer.media.first { $0.mid == mid } } ?? firstSection
        return try RemoteTransportDescription(
            of: tagged, in: answer, acceptedSetups: [.active],
            setupRefusal: "Switchyard offered actpass but can only be the DTLS server (passive), "
                + "so the answer must say active")
    }

    /// The id the router numbers a subscriber's packets with (the transport-wide sequence number):
    /// the publisher's own id for that extension when it has one, since its packets already carry an
    /// element there that the router overwrites in place; otherwise the lowest one-byte id none of the
    /// publisher's extensions uses, so the element the router adds collides with nothing.
    public static func transportWideSequenceID(publisherExtensions: [HeaderExtension]) -> UInt8 {
        if let own = publisherExtensions.first(where: { $0.uri == HeaderExtensionURI.transportWideSequenceNumber }) {
            return own.id
        }
        let used = Set(publisherExtensions.map(\.id))
        return (1...14).first { !used.contains($0) } ?? 14
    }

    /// The transport-wide sequence number id the subscriber's answer kept, when it kept the one the
    /// offer had: the subscriber will then send transport-wide feedback.
    public static func acceptedTransportWideSequenceID(in answer: SessionDescription, offer: SessionDescription) -> UInt8? {
        let uri = HeaderExtensionURI.transportWideSequenceNumber
        guard let offered = offer.media.lazy.compactMap({ $0.extmaps.first { $0.uri == uri } }).first else { return nil }
        let kept = answer.media.contains { section in section.extmaps.contains { $0.uri == uri && $0.id == offered.id } }
        return kept ? offered.id : nil
    }

    /// The RFC 2198 payload type the subscriber's answer kept, when the offer had one: the router
    /// then sends it redundant audio as the publisher sent it.
    public static func acceptedRedundantAudioPayloadType(in answer: SessionDescription, offer: SessionDescription) -> UInt8? {
        for (offered, answered) in zip(offer.media, answer.media) where offered.kind == "audio" {
            let red = offered.rtpmaps.values.first(where: \.isRedundantAudio)
            if let red, answered.formats.contains("\(red.payloadType)") { return red.payloadType }
        }
        return nil
    }

    static func section(for track: OutgoingTrack, local: LocalTransportDescription, setup: DTLSSetupRole = .actpass) -> MediaDescription {
        let msid = "\(track.streamID) \(track.trackID)"
        let rtpmap = RTPMap(
            payloadType: track.payloadType, name: track.codecName, clockRate: track.clockRate, channels: track.channels)
        var lines = [local.connectionLine, .attribute("mid", track.mid)]
        lines += local.credentialLines(setup: setup)
        lines.append(.attribute("rtcp-mux"))
        lines.append(.attribute(MediaDirection.sendonly.rawValue))
        lines.append(.attribute("msid", msid))
        lines.append(.attribute("rtpmap", rtpmap.attributeValue))
        if let fmtp = track.fmtp { lines.append(.attribute("fmtp", "\(track.payloadType) \(fmtp)")) }
        lines += track.rtcpFeedback.map { .attribute("rtcp-fb", "\(track.payloadType) \($0)") }
        var formats = ["\(track.payloadType)"]
        var ssrcs = [track.ssrc]
        if let rtxPayloadType = track.rtxPayloadType, let rtxSSRC = track.rtxSSRC {
            let rtx = RTPMap(payloadType: rtxPayloadType, name: "rtx", clockRate: track.clockRate, channels: nil)
            lines.append(.attribute("rtpmap", rtx.attributeValue))
            lines.append(.attribute("fmtp", "\(rtxPayloadType) apt=\(track.payloadType)"))
            formats.append("\(rtxPayloadType)")
            ssrcs.append(rtxSSRC)
        }
        if let redPayloadType = track.redPayloadType {
            lines += RTPMap.redundantAudioLines(payloadType: redPayloadType, primary: rtpmap)
            formats.append("\(redPayloadType)")
        }
        lines += track.headerExtensions.map { .attribute("extmap", $0.attributeValue) }
        if ssrcs.count > 1 { lines.append(.attribute("ssrc-group", "FID " + ssrcs.map(String.init).joined(separator: " "))) }
        for ssrc in ssrcs {
            lines.append(.attribute("ssrc", "\(ssrc) cname:\(track.cname)"))
            lines.append(.attribute("ssrc", "\(ssrc) msid:\(msid)"))
        }
        lines += local.candidateLines
        return MediaDescription(
            kind: track.kind, port: local.defaultPort, transportProtocol: "UDP/TLS/RTP/SAVPF", formats: formats, lines: lines)
    }

    /// An answer may give an H.264 format another level, never another packetization mode or profile
    /// (RFC 6184 section 8.2.2): the router sends the stream as it comes. An answer without `a=fmtp`
    /// for the payload type takes the offer's.
    private static func checkH264(_ answered: MediaDescription, payloadType: UInt8, offered: String?) throws(SDPError) {
        guard let ours = try? H264FormatParameters(parsing: offered),
            let line = answered.attributes(named: "fmtp").first(where: {
                (try? SDPAttributeValue.formatParameters($0.attributeValue ?? ""))?.payloadType == payloadType
            }),
            let parameters = try? SDPAttributeValue.formatParameters(line.attributeValue ?? "").parameters
        else { return }
        let theirs: H264FormatParameters
        do throws(SDPError) {
            theirs = try H264FormatParameters(parsing: parameters)
        } catch {
            throw SDPError(error.reason, at: line)
        }
        guard theirs.packetizationMode == ours.packetizationMode else {
            throw SDPError(
                "payload type \(payloadType) is H.264 in packetization mode \(ours.packetizationMode) in the offer, not \(theirs.packetizationMode)",
                at: line)
        }
        guard theirs.profileLevelID.profile == ours.profileLevelID.profile else {
            throw SDPError(
                "payload type \(payloadType) is H.264 \(ours.profileLevelID.spelledOut), the stream's profile, in the offer, "
                    + "not \(theirs.profileLevelID.spelledOut)",
                at: line)
        }
    }

    private static func check(
        _ answered: MediaDescription, against offered: MediaDescription, in answer: SessionDescription
    ) throws(SDPError) {
        guard answered.mid == offered.mid, answered.kind == offered.kind else {
            throw SDPError(
                "answers \(answered.kind) mid \(answered.mid ?? "(none)") where the offer has "
                    + "\(offered.kind) mid \(offered.mid ?? "(none)")", at: answered)
        }
        guard answered.port != 0 || answered.isBundleOnly else {
            throw SDPError("the subscriber rejected this m-section (port 0)", at: answered)
        }
        // Every format the router offered is one it sends: the codec, and its retransmissions. RED is
        // the subscriber's to decline (it then gets the primary frames alone).
        for sent in offered.formats.compactMap({ UInt8($0) }) {
            guard let ours = offered.rtpmaps[sent], !ours.isRedundantAudio else { continue }
            let codec = "\(ours.name)/\(ours.clockRate)"
            guard answered.formats.contains("\(sent)") else {
                throw SDPError(
                    "answer drops payload type \(sent) (\(codec)), which the router sends in this m-section",
                    at: answered)
            }
            for line in answered.attributes(named: "rtpmap") {
                guard let theirs = try? RTPMap(parsing: line.attributeValue ?? ""), theirs.payloadType == sent else {
                    continue
                }
                if !theirs.matches(ours.name, clockRate: ours.clockRate) {
                    throw SDPError("payload type \(sent) is \(codec) in the offer", at: line)
                }
                break
            }
            if ours.matches(.h264) {
                try checkH264(answered, payloadType: sent, offered: offered.fmtp[sent])
            }
        }
        let direction = answer.direction(for: answered)
        guard direction == .recvonly || direction == .inactive else {
            let reason = "a subscriber may only receive (recvonly) or decline (inactive), not \(direction.rawValue)"
            guard let line = answer.attributes(named: direction.rawValue, for: answered).first else {
                throw SDPError(reason, at: answered)
            }
            throw SDPError(reason, at: line)
        }
        guard answered.rtcpMux else {
            throw SDPError("no a=rtcp-mux; Switchyard sends RTP and RTCP on one port", at: answered)
        }
    }
}
