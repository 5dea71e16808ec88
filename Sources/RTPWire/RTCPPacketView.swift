/// One RTCP packet within caller-owned memory: its common header checked, its body read on demand.
///
/// The view is only as valid as the memory under it, which is why it is not `Sendable`: keep it on
/// the queue that owns the buffer and do not let it outlive the buffer.
public struct RTCPPacketView {
    /// The packet's bytes as its length field describes them: header, body and padding.
    public let bytes: UnsafeRawBufferPointer
    /// Bytes of padding at the end, count byte included; 0 when the P bit is clear.
    public let paddingByteCount: Int

    /// Parses the packet at the start of `bytes`; `bytes` may hold more after it.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        guard !bytes.isEmpty else { throw .emptyCompound }
        try self.init(parsing: bytes, at: 0)
    }

    /// Parses the packet at `offset` of a compound packet, naming `offset` in its errors.
    init(parsing compound: UnsafeRawBufferPointer, at offset: Int) throws(RTCPError) {
        let available = compound.count - offset
        guard available >= RTCPHeader.byteCount else { throw .truncatedHeader(offset: offset, available: available) }
        let header = RTCPHeader(reading: compound, at: offset)
        guard header.version == RTCPHeader.version else { throw .versionNotTwo(found: header.version, offset: offset) }
        let declared = header.packetByteCount
        guard declared <= available else {
            throw .lengthPastEnd(offset: offset, declaredBytes: declared, available: available)
        }
        // RFC 3550 asks for padding only on the last packet of a compound, but libwebrtc pads
        // transport-wide CC feedback wherever it sits, so every packet's padding is honoured.
        var padding = 0
        if header.hasPadding {
            padding = Int(compound[offset + declared - 1])
            guard padding != 0 else { throw .paddingCountZero(offset: offset) }
            let afterHeader = declared - RTCPHeader.byteCount
            guard padding <= afterHeader else {
                throw .paddingPastPayload(offset: offset, paddingBytes: padding, available: afterHeader)
            }
        }
        self.bytes = UnsafeRawBufferPointer(rebasing: compound[offset..<(offset + declared)])
        self.paddingByteCount = padding
    }

    /// The common header.
    public var header: RTCPHeader { RTCPHeader(reading: bytes, at: 0) }

    /// PT: which packet this is (with FMT, for feedback).
    public var packetType: RTCPPacketType { RTCPPacketType(rawValue: bytes[1]) }

    /// RC, SC or FMT.
    public var count: UInt8 { bytes[0] & 0x1F }

    /// Bytes of the packet without its padding.
    public var byteCountWithoutPadding: Int { bytes.count - paddingByteCount }

    /// What follows the common header, up to the padding.
    public var body: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[RTCPHeader.byteCount..<byteCountWithoutPadding])
    }

    /// Which parsed kind this packet is, from its PT, FMT and (for REMB) identifier; nil for packet
    /// types and feedback formats this module does not parse.
    public var kind: RTCPPacketKind? {
        switch packetType {
        case .senderReport: return .senderReport
        case .receiverReport: return .receiverReport
        case .sourceDescription: return .sourceDescription
        case .bye: return .bye
        case .transportLayerFeedback:
            switch count {
            case 1: return .genericNACK
            case 15: return .transportFeedback
            default: return nil
            }
        case .payloadSpecificFeedback:
            switch count {
            case 1: return .pictureLossIndication
            case 4: return .fullIntraRequest
            case 15:
                // FMT 15 is any application-layer feedback (RFC 4585 6.4); only the identifier
                // says it is REMB rather than something this module does not know.
                let body = body
                guard body.count >= 12, body.uint32(at: 8) == RTCPReceiverEstimatedMaximumBitrate.identifier else {
                    return nil
                }
                return .receiverEstimatedMaximumBitrate
            default: return nil
            }
        default: return nil
        }
    }

    /// The typed view of this packet, or nil when it is of a kind this module does not parse.
    public func parsed() throws(RTCPError) -> RTCPPacket? {
        guard let kind else { return nil }
        return try parsed(as: kind)
    }

    /// This packet through the typed view of `kind`, whatever its header says; the view's checks
    /// reject a packet of another kind. Robustness tests force every packet through every view.
    public func parsed(as kind: RTCPPacketKind) throws(RTCPError) -> RTCPPacket {
        switch kind {
        case .senderReport: return .senderReport(try RTCPSenderReport(self))
        case .receiverReport: return .receiverReport(try RTCPReceiverReport(self))
        case .sourceDescription: return .sourceDescription(try RTCPSourceDescription(self))
        case .bye: return .bye(try RTCPBye(self))
        case .genericNACK: return .genericNACK(try RTCPGenericNACK(self))
        case .pictureLossIndication: return .pictureLossIndication(try RTCPPictureLossIndication(self))
        case .fullIntraRequest: return .fullIntraRequest(try RTCPFullIntraRequest(self))
        case .receiverEstimatedMaximumBitrate:
            return .receiverEstimatedMaximumBitrate(try RTCPReceiverEstimatedMaximumBitrate(self))
        case .transportFeedback: return .transportFeedback(try RTCPTransportFeedback(self))
        }
    }

    /// Checks that this SR or RR is of `kind` and that its RC report blocks fit after `fixedByteCount`.
    func validateReportBlocks(as kind: RTCPPacketKind, fixedByteCount: Int) throws(RTCPError) {
        try validate(as: kind)
        let count = Int(count)
        let available = byteCountWithoutPadding - fixedByteCount
        guard count * RTCPReportBlock.wireByteCount <= available else {
            throw .reportBlocksPastEnd(kind: kind, count: count, available: available)
        }
    }

    /// Checks that this packet is of `kind` and at least as long as its fixed part; every typed
    /// view starts here so that its accessors can read the fixed part without further checks.
    func validate(as kind: RTCPPacketKind) throws(RTCPError) {
        let count = count
        guard packetType == kind.packetType, kind.format == nil || kind.format == count else {
            throw .wrongPacketType(expected: kind, packetType: packetType.rawValue, format: count)
        }
        let available = byteCountWithoutPadding
        guard available >= kind.minimumByteCount else {
            throw .packetTooShort(kind: kind, minimumBytes: kind.minimumByteCount, available: available)
        }
    }
}
