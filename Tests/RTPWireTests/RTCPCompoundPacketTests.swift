import Testing
import TestSupport

@testable import RTPWire

@Suite struct RTCPCompoundPacketTests {
    // What a browser sends every few seconds: an SR without report blocks, then its CNAME.
    let senderReportAndCNAME = hexBytes(
        """
        80 C8 00 06   # SR: V=2,P=0,RC=0; PT=200; 28 bytes -> length 6
        6B 8B 45 67   # SSRC of sender
        E5 A2 3B 4C   # NTP seconds
        19 99 99 9A   # NTP fraction (0.1 s)
        00 00 BB 80   # RTP timestamp 48000
        00 00 00 32   # sender's packet count 50
        00 00 1F 40   # sender's octet count 8000
        81 CA 00 06   # SDES: SC=1; PT=202; 28 bytes -> length 6
        6B 8B 45 67   # chunk: SSRC
        01 10 34 54   # CNAME, 16 bytes: "4T"
        4F 6B 34 32   # "Ok42"
        6D 53 6A 58   # "mSjX"
        43 6B 56 49   # "CkVI"
        61 36 00 00   # "a6", null terminator at chunk byte 22, one more null to 24
        """)

    @Test func buildsSenderReportAndCNAME() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPSenderReport.write(
                senderSSRC: 0x6B8B_4567, ntpTimestamp: 0xE5A2_3B4C_1999_999A, rtpTimestamp: 48000,
                senderPacketCount: 50, senderOctetCount: 8000, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPSourceDescription.write(ssrc: 0x6B8B_4567, cname: "4TOk42mSjXCkVIa6", into: &writer)
        }
        #expect(bytes == senderReportAndCNAME)
    }

    @Test func parsesSenderReportAndCNAME() throws {
        try withRTCPCompound(senderReportAndCNAME) { compound throws in
            #expect(compound.packetCount == 2)
            var iterator = compound.makeIterator()
            guard case .senderReport(let report) = iterator.next() else {
                Issue.record("expected an SR first")
                return
            }
            #expect(report.senderSSRC == 0x6B8B_4567)
            #expect(report.rtpTimestamp == 48000)
            #expect(report.reportBlockCount == 0)
            guard case .sourceDescription(let description) = iterator.next() else {
                Issue.record("expected an SDES second")
                return
            }
            let chunks = Array(description.chunks)
            #expect(chunks.map(\.ssrc) == [0x6B8B_4567])
            #expect(chunks.first?.cnameString == "4TOk42mSjXCkVIa6")
            #expect(iterator.next() == nil)
        }
    }

    @Test func skipsUnknownPacketTypes() throws {
        let bytes = hexBytes(
            """
            80 C9 00 01  00 00 00 01                # RR, RC=0
            80 CC 00 02  00 00 00 01  54 45 53 54   # APP (204), name "TEST": not parsed
            81 CE 00 02  00 00 00 01  00 00 00 02   # PLI
            80 C3 00 01  01 02 03 04                # PT 195 (IJ, RFC 5450): not parsed
            83 CD 00 02  00 00 00 01  00 00 00 02   # RTPFB FMT 3 (TMMBR): not parsed
            81 CB 00 01  00 00 00 01                # BYE
            """)
        try withRTCPCompound(bytes) { compound throws in
            #expect(compound.packetCount == 6)
            #expect(compound.views.map(\.packetType.rawValue) == [201, 204, 206, 195, 205, 203])
            #expect(compound.views.map(\.kind) == [.receiverReport, nil, .pictureLossIndication, nil, nil, .bye])
            #expect(compound.map(Self.describe) == ["RR", "PLI", "BYE"])
        }
    }

    @Test func malformedPacketDoesNotHideTheOthers() throws {
        let bytes = hexBytes(
            """
            80 C9 00 01  00 00 00 01                # RR
            A1 CD 00 04  00 00 00 01  00 00 00 02   # NACK with 2 bytes of padding ...
            00 05 00 00  00 07 00 02                # ... leaving 6 bytes of FCI
            80 C9 00 00                             # RR with length 0: no room for its SSRC
            81 CE 00 02  00 00 00 01  00 00 00 02   # PLI
            """)
        try withRTCPCompound(bytes) { compound throws in
            let packets = Array(compound)
            #expect(packets.map(Self.describe) == ["RR", "malformed", "malformed", "PLI"])
            guard case .malformed(let nackView, let nackError) = packets[1],
                case .malformed(_, let rrError) = packets[2]
            else { return }
            #expect(nackView.packetType == .transportLayerFeedback)
            #expect(nackError == .nackItemsNotMultipleOfFour(byteCount: 6))
            #expect(rrError == .packetTooShort(kind: .receiverReport, minimumBytes: 8, available: 4))
        }
    }

    @Test func writerAppendsEveryKind() throws {
        let block = RTCPReportBlock(
            ssrc: 5, fractionLost: 0, cumulativeLost: -1, extendedHighestSequenceNumber: 0, jitter: 0,
            lastSenderReport: 0, delaySinceLastSenderReport: 0)
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPSenderReport.write(
                senderSSRC: 1, ntpTimestamp: 2, rtpTimestamp: 3, senderPacketCount: 4, senderOctetCount: 5,
                reportBlocks: [block], into: &writer)
            try RTCPReceiverReport.write(senderSSRC: 1, reportBlocks: [block, block], into: &writer)
            try RTCPSourceDescription.write(ssrc: 1, cname: "c", into: &writer)
            try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 5, lostSequenceNumbers: [9], into: &writer)
            try RTCPPictureLossIndication.write(senderSSRC: 1, mediaSSRC: 5, into: &writer)
            try RTCPFullIntraRequest.write(
                senderSSRC: 1, items: [RTCPFullIntraRequest.Item(ssrc: 5, sequenceNumber: 1)], into: &writer)
            try RTCPReceiverEstimatedMaximumBitrate.write(senderSSRC: 1, bitrate: 500_000, ssrcs: [5], into: &writer)
            try RTCPTransportFeedback.write(
                senderSSRC: 1, mediaSSRC: 5, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0,
                receiveDeltas: [1, nil, 2], into: &writer)
            try RTCPBye.write(ssrcs: [1], reason: "done", into: &writer)
        }
        try withRTCPCompound(bytes) { compound throws in
            #expect(compound.map(Self.describe) == ["SR", "RR", "SDES", "NACK", "PLI", "FIR", "REMB", "TWCC", "BYE"])
            for case .receiverReport(let report) in compound {
                #expect(Array(report.reportBlocks) == [block, block])
            }
        }
    }

    // MARK: Framing errors

    @Test func empty() throws {
        #expect(throws: RTCPError.emptyCompound) { try withRTCPCompound([]) { _ in } }
        #expect(throws: RTCPError.emptyCompound) { try withRTCPPacket([]) { _ in } }
    }

    @Test func truncatedHeaderAfterAPacket() throws {
        let bytes = hexBytes("80 C9 00 01  00 00 00 01  80 C9")  // an RR, then half a header
        #expect(throws: RTCPError.truncatedHeader(offset: 8, available: 2)) { try withRTCPCompound(bytes) { _ in } }
    }

    @Test func versionNotTwo() throws {
        let bytes = hexBytes("80 C9 00 01  00 00 00 01  41 C9 00 01  00 00 00 01")  // second packet: V=1
        #expect(throws: RTCPError.versionNotTwo(found: 1, offset: 8)) { try withRTCPCompound(bytes) { _ in } }
    }

    @Test func lengthPastEnd() throws {
        let bytes = hexBytes("81 C9 00 07  00 00 00 01")  // claims 32 bytes, 8 present
        #expect(throws: RTCPError.lengthPastEnd(offset: 0, declaredBytes: 32, available: 8)) {
            try withRTCPCompound(bytes) { _ in }
        }
    }

    @Test func paddingCountZero() throws {
        let bytes = hexBytes("A0 C9 00 01  00 00 00 00")  // P=1, last byte 0
        #expect(throws: RTCPError.paddingCountZero(offset: 0)) { try withRTCPCompound(bytes) { _ in } }
    }

    @Test func paddingPastPayload() throws {
        let bytes = hexBytes("A0 C9 00 01  00 00 00 09")  // P=1, 9 bytes of padding in a 4-byte body
        #expect(throws: RTCPError.paddingPastPayload(offset: 0, paddingBytes: 9, available: 4)) {
            try withRTCPCompound(bytes) { _ in }
        }
    }

    /// A length field of 0 describes a bare 4-byte header: an error naming the kind wherever the
    /// kind needs more, legal for SDES and BYE whose count may be zero.
    @Test(arguments: RTCPPacketKind.allCases)
    func lengthZero(kind: RTCPPacketKind) throws {
        let bytes: [UInt8] = [0x80 | (kind.format ?? 0), kind.packetType.rawValue, 0, 0]
        let outcome = try withRTCPPacket(bytes) { view in Self.parse(view, as: kind) }
        if kind == .sourceDescription || kind == .bye {
            #expect(outcome == nil)
        } else {
            #expect(outcome == .packetTooShort(kind: kind, minimumBytes: kind.minimumByteCount, available: 4))
        }
    }

    // MARK: Robustness

    /// Mutated and truncated versions of a compound holding every kind must parse or fail with an
    /// error, never trap, and everything a successful parse offers must be readable.
    @Test func mutatedInputNeverTraps() throws {
        let seed = try RTCPWriter.bytes { writer throws(RTCPError) in
            let block = RTCPReportBlock(
                ssrc: 5, fractionLost: 9, cumulativeLost: -7, extendedHighestSequenceNumber: 8, jitter: 7,
                lastSenderReport: 6, delaySinceLastSenderReport: 5)
            try RTCPSenderReport.write(
                senderSSRC: 1, ntpTimestamp: 2, rtpTimestamp: 3, senderPacketCount: 4, senderOctetCount: 5,
                reportBlocks: [block], into: &writer)
            try RTCPReceiverReport.write(senderSSRC: 1, reportBlocks: [block], into: &writer)
            try RTCPSourceDescription.write(chunks: [(ssrc: 1, cname: "abc"), (ssrc: 2, cname: "")], into: &writer)
            try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 5, lostSequenceNumbers: [9, 11, 40], into: &writer)
            try RTCPPictureLossIndication.write(senderSSRC: 1, mediaSSRC: 5, into: &writer)
            try RTCPFullIntraRequest.write(
                senderSSRC: 1, items: [RTCPFullIntraRequest.Item(ssrc: 5, sequenceNumber: 1)], into: &writer)
            try RTCPReceiverEstimatedMaximumBitrate.write(
                senderSSRC: 1, bitrate: 500_000, ssrcs: [5, 6], into: &writer)
            try RTCPTransportFeedback.write(
                senderSSRC: 1, mediaSSRC: 5, baseSequenceNumber: 0, referenceTime: 0, feedbackPacketCount: 0,
                receiveDeltas: RTCPTransportFeedbackTests.goldenDeltas, into: &writer)
            try RTCPBye.write(ssrcs: [1], reason: "done", into: &writer)
        }
        var generator = SeededGenerator(seed: 0xF022)
        var parsed = 0
        for _ in 0..<20_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] =
                    Bool.random(using: &generator)
                    ? UInt8.random(in: 0...255, using: &generator)
                    : bytes[index] ^ (1 << UInt8.random(in: 0...7, using: &generator))
            }
            if Int.random(in: 0..<4, using: &generator) == 0 {
                bytes.removeLast(Int.random(in: 0..<bytes.count, using: &generator))
            }
            let start = Int.random(in: 0..<bytes.count, using: &generator)
            bytes.withUnsafeBytes { raw in
                if let compound = try? RTCPCompoundPacket(parsing: raw) {
                    parsed += 1
                    Self.readEverything(compound)
                }
                // Packet views from arbitrary offsets, typed as every kind regardless of their type.
                if let view = try? RTCPPacketView(parsing: UnsafeRawBufferPointer(rebasing: raw[start...])) {
                    for kind in RTCPPacketKind.allCases { _ = Self.parse(view, as: kind) }
                }
            }
        }
        #expect(parsed > 0)
    }

    // MARK: Helpers

    static func describe(_ packet: RTCPPacket) -> String {
        switch packet {
        case .senderReport: "SR"
        case .receiverReport: "RR"
        case .sourceDescription: "SDES"
        case .bye: "BYE"
        case .genericNACK: "NACK"
        case .pictureLossIndication: "PLI"
        case .fullIntraRequest: "FIR"
        case .receiverEstimatedMaximumBitrate: "REMB"
        case .transportFeedback: "TWCC"
        case .malformed: "malformed"
        }
    }

    /// Forces `view` through the typed view of `kind`, reading everything on success.
    static func parse(_ view: RTCPPacketView, as kind: RTCPPacketKind) -> RTCPError? {
        do throws(RTCPError) {
            let packet = try view.parsed(as: kind)
            readEverything(packet)
            return nil
        } catch {
            return error
        }
    }

    static func readEverything(_ compound: RTCPCompoundPacket) {
        for view in compound.views { _ = (view.header, view.body.count, view.kind) }
        for packet in compound { readEverything(packet) }
    }

    static func readEverything(_ packet: RTCPPacket) {
        var sink = 0
        switch packet {
        case .senderReport(let report):
            sink &+= Int(report.ntpTimestamp & 0xFF) &+ Int(report.senderOctetCount & 0xFF)
            for block in report.reportBlocks { sink &+= Int(block.cumulativeLost) }
        case .receiverReport(let report):
            for block in report.reportBlocks { sink &+= Int(block.jitter & 0xFF) }
        case .sourceDescription(let description):
            for chunk in description.chunks { sink &+= chunk.cname?.count ?? 0 }
        case .bye(let bye):
            sink &+= bye.ssrcs.count &+ (bye.reason?.count ?? 0)
        case .genericNACK(let nack):
            for sequenceNumber in nack.lostSequenceNumbers { sink &+= Int(sequenceNumber) }
        case .pictureLossIndication(let pli):
            sink &+= Int(pli.mediaSSRC & 0xFF)
        case .fullIntraRequest(let fir):
            for item in fir.items { sink &+= Int(item.sequenceNumber) }
        case .receiverEstimatedMaximumBitrate(let remb):
            sink &+= Int(remb.bitrate & 0xFF) &+ remb.ssrcs.count
        case .transportFeedback(let feedback):
            for result in feedback.packetResults { sink &+= Int(result.receiveDeltaTicks) }
        case .malformed(let view, _):
            sink &+= view.bytes.count
        }
        _ = sink
    }
}
