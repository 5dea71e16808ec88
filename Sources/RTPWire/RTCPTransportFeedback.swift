/// Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// section 3.1): transport-layer feedback (PT 205, FMT 15) telling the media sender when each packet,
/// numbered by the transport-wide sequence number header extension, arrived or that it did not.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=15 |    PT=205     |           length              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     SSRC of packet sender                     |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                      SSRC of media source                     |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |      base sequence number     |      packet status count      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                 reference time                | fb pkt. count |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |          packet chunk         |         packet chunk          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     .                                                               .
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |         packet chunk          |  recv delta   |  recv delta   |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     .                                                               .
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           recv delta          |  recv delta   | zero padding  |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Packet chunks, 16 bits each, give one status symbol per packet from the base sequence number on:
///
///     run length:        |0| S |       run length (13)       |   S repeated run-length times
///     status vector:     |1|0|     14 one-bit symbols        |   0 not received, 1 small delta
///     status vector:     |1|1| 7 two-bit symbols (S each)    |
///
///     S: 0 not received, 1 received with small delta, 2 received with large or negative delta,
///        3 reserved
///
/// Each received packet then has a receive delta in 250 µs ticks, in the order of the symbols: one
/// unsigned byte for a small delta (0 to 63.75 ms), two signed bytes for a large one. The first delta
/// is from the reference time (24-bit signed, in 64 ms units), each later one from the previous
/// received packet. Symbols of the last chunk past the status count mean nothing.
public struct RTCPTransportFeedback {
    /// Bytes before the first packet chunk.
    static let fixedByteCount = 20
    /// Microseconds per receive-delta tick.
    public static let deltaTickMicroseconds = 250
    /// Microseconds per reference-time unit.
    public static let referenceTimeUnitMicroseconds = 64_000
    /// Most packets one feedback can describe: the status count is 16 bits.
    public static let maximumPacketStatusCount = 0xFFFF

    /// The status symbol of one packet.
    public enum Status: UInt8, Hashable, Sendable {
        case notReceived = 0
        case receivedSmallDelta = 1
        case receivedLargeDelta = 2
    }

    /// What the feedback says about one packet.
    public struct PacketResult: Hashable, Sendable {
        /// The transport-wide sequence number.
        public var sequenceNumber: UInt16
        /// Whether the packet arrived, and which delta size carries its arrival.
        public var status: Status
        /// Arrival relative to the previous received packet (the reference time for the first), in
        /// 250 µs ticks; 0 when not received.
        public var receiveDeltaTicks: Int16

        /// A result for `sequenceNumber`; `receiveDeltaTicks` is 0 when not received.
        public init(sequenceNumber: UInt16, status: Status, receiveDeltaTicks: Int16) {
            self.sequenceNumber = sequenceNumber
            self.status = status
            self.receiveDeltaTicks = receiveDeltaTicks
        }

        /// `receiveDeltaTicks` in microseconds.
        public var receiveDeltaMicroseconds: Int {
            Int(receiveDeltaTicks) * RTCPTransportFeedback.deltaTickMicroseconds
        }
    }

    /// The packet this feedback was parsed from.
    public let packet: RTCPPacketView
    /// Where the receive deltas start, found by walking the chunks once at validation.
    let deltasOffset: Int

    /// Checks that `packet` is transport-wide CC feedback whose chunks cover the status count and
    /// whose receive deltas fit.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validate(as: .transportFeedback)
        let bytes = packet.bytes
        let end = packet.byteCountWithoutPadding
        let statusCount = Int(bytes.uint16(at: 14))
        guard statusCount > 0 else { throw .transportCCStatusCountZero }
        var described = 0
        var offset = Self.fixedByteCount
        var deltaBytes = 0
        var chunkIndex = 0
        while described < statusCount {
            guard offset + 2 <= end else {
                throw .transportCCStatusCountPastEnd(
                    statusCount: statusCount, described: described, available: end - Self.fixedByteCount)
            }
            let chunk = Chunk(bytes.uint16(at: offset))
            let symbols = min(chunk.symbolCount, statusCount - described)
            if chunk.isRunLength {
                if symbols > 0 {
                    let symbol = chunk.symbol(at: 0)
                    guard symbol != 3 else { throw .transportCCReservedSymbol(chunkIndex: chunkIndex) }
                    // A symbol's value is also the byte count of its delta: 0, 1 or 2.
                    deltaBytes += symbols * Int(symbol)
                }
            } else {
                for position in 0..<symbols {
                    let symbol = chunk.symbol(at: position)
                    guard symbol != 3 else { throw .transportCCReservedSymbol(chunkIndex: chunkIndex) }
                    deltaBytes += Int(symbol)
                }
            }
            described += symbols
            offset += 2
            chunkIndex += 1
        }
        // Bytes past the deltas are the draft's zero padding, which senders may add instead of
        // setting the P bit.
        guard offset + deltaBytes <= end else {
            throw .transportCCDeltasPastEnd(neededBytes: deltaBytes, available: end - offset)
        }
        self.packet = packet
        self.deltasOffset = offset
    }

    /// The SSRC of the participant that sent this packet.
    public var senderSSRC: UInt32 { packet.bytes.uint32(at: 4) }
    /// The SSRC of one of the media streams; transport-wide feedback covers them all.
    public var mediaSSRC: UInt32 { packet.bytes.uint32(at: 8) }
    /// The transport-wide sequence number of the first packet described.
    public var baseSequenceNumber: UInt16 { packet.bytes.uint16(at: 12) }
    /// How many consecutive packets, from the base sequence number, the feedback describes.
    public var packetStatusCount: Int { Int(packet.bytes.uint16(at: 14)) }
    /// The time the first delta counts from, in 64 ms units of the feedback sender's clock: 24 bits,
    /// sign-extended. The time base is arbitrary and wraps, so compare successive values only.
    public var referenceTime: Int32 { Int32(bitPattern: packet.bytes.uint24(at: 16) << 8) >> 8 }
    /// `referenceTime` in microseconds.
    public var referenceTimeMicroseconds: Int64 {
        Int64(referenceTime) * Int64(Self.referenceTimeUnitMicroseconds)
    }
    /// Counts feedback packets so the media sender can detect lost feedback.
    public var feedbackPacketCount: UInt8 { packet.bytes[19] }

    /// The per-packet results in sequence order, decoded as they are iterated without allocating.
    public var packetResults: PacketResults { PacketResults(feedback: self) }

    /// The per-packet results of a checked feedback.
    public struct PacketResults: Sequence {
        let feedback: RTCPTransportFeedback

        public var underestimatedCount: Int { feedback.packetStatusCount }

        public func makeIterator() -> Iterator { Iterator(feedback: feedback) }

        /// Walks the sequence without allocating.
        public struct Iterator: IteratorProtocol {
            let bytes: UnsafeRawBufferPointer
            let deltasStart: Int
            let deltasEnd: Int
            var chunkOffset = RTCPTransportFeedback.fixedByteCount
            var deltaOffset: Int
            var remaining: Int
            var sequenceNumber: UInt16
            var chunk = Chunk(0)
            var position = 0
            var symbolsLeftInChunk = 0

            init(feedback: RTCPTransportFeedback) {
                bytes = feedback.packet.bytes
                deltasStart = feedback.deltasOffset
                deltasEnd = feedback.packet.byteCountWithoutPadding
                deltaOffset = feedback.deltasOffset
                remaining = feedback.packetStatusCount
                sequenceNumber = feedback.baseSequenceNumber
            }

            public mutating func next() -> PacketResult? {
                guard remaining > 0 else { return nil }
                // Validation guarantees the chunks and deltas are there; every read is still
                // guarded so that no input can make the iterator read out of bounds.
                while symbolsLeftInChunk == 0 {
                    guard chunkOffset + 2 <= deltasStart else { return finish() }
                    chunk = Chunk(bytes.uint16(at: chunkOffset))
                    chunkOffset += 2
                    position = 0
                    symbolsLeftInChunk = chunk.symbolCount
                }
                let symbol = chunk.symbol(at: position)
                position += 1
                symbolsLeftInChunk -= 1
                remaining -= 1
                let result: PacketResult
                switch symbol {
                case 0:
                    result = PacketResult(sequenceNumber: sequenceNumber, status: .notReceived, receiveDeltaTicks: 0)
                case 1:
                    guard deltaOffset + 1 <= deltasEnd else { return finish() }
                    result = PacketResult(
                        sequenceNumber: sequenceNumber, status: .receivedSmallDelta,
                        receiveDeltaTicks: Int16(bytes[deltaOffset]))
                    deltaOffset += 1
                case 2:
                    guard deltaOffset + 2 <= deltasEnd else { return finish() }
                    result = PacketResult(
                        sequenceNumber: sequenceNumber, status: .receivedLargeDelta,
                        receiveDeltaTicks: Int16(bitPattern: bytes.uint16(at: deltaOffset)))
                    deltaOffset += 2
                default:
                    return finish()
                }
                sequenceNumber &+= 1
                return result
            }

            private mutating func finish() -> PacketResult? {
                remaining = 0
                return nil
            }
        }
    }

    // MARK: Building

    /// Appends transport-wide CC feedback for consecutive packets from `baseSequenceNumber`: one
    /// entry of `receiveDeltas` per packet, nil for not received, otherwise its receive delta in
    /// 250 µs ticks (from the reference time for the first received packet, from the previous
    /// received packet after that). Deltas in 0...255 go out as small, others as large.
    ///
    /// `referenceTime` (64 ms units) is written modulo 2^24, as the field wraps. Chunks are chosen
    /// greedily: a run-length chunk for runs of 14 or more (or 7 or more where a two-bit vector would
    /// be the alternative, or the whole tail), else a one-bit vector when the next 14 packets need no
    /// large delta, else a two-bit vector. The packet is padded to 32 bits with the P bit, as
    /// libwebrtc does.
    public static func write(
        senderSSRC: UInt32,
        mediaSSRC: UInt32,
        baseSequenceNumber: UInt16,
        referenceTime: Int32,
        feedbackPacketCount: UInt8,
        receiveDeltas: some Collection<Int16?>,
        into writer: inout RTCPWriter
    ) throws(RTCPError) {
        let statusCount = receiveDeltas.count
        guard statusCount > 0 else { throw .noItems(kind: .transportFeedback) }
        guard statusCount <= maximumPacketStatusCount else {
            throw .tooManyItems(kind: .transportFeedback, count: statusCount, maximum: maximumPacketStatusCount)
        }
        var chunkCount = 0
        forEachChunk(of: receiveDeltas) { _ in chunkCount += 1 }
        var deltaBytes = 0
        for delta in receiveDeltas { deltaBytes += Int(symbol(for: delta)) }
        let unpadded = fixedByteCount + 2 * chunkCount + deltaBytes
        let byteCount = RTCPWriter.padded(unpadded)
        let padding = byteCount - unpadded
        let start = try writer.beginPacket(
            .transportFeedback, count: 15, byteCount: byteCount, paddingByteCount: padding)
        let buffer = writer.buffer
        buffer.setUInt32(senderSSRC, at: start + 4)
        buffer.setUInt32(mediaSSRC, at: start + 8)
        buffer.setUInt16(baseSequenceNumber, at: start + 12)
        buffer.setUInt16(UInt16(statusCount), at: start + 14)
        buffer.setUInt24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF, at: start + 16)
        buffer[start + 19] = feedbackPacketCount
        var offset = start + fixedByteCount
        forEachChunk(of: receiveDeltas) { chunk in
            buffer.setUInt16(chunk, at: offset)
            offset += 2
        }
        for delta in receiveDeltas {
            guard let delta else { continue }
            if symbol(for: delta) == 1 {
                buffer[offset] = UInt8(delta)
                offset += 1
            } else {
                buffer.setUInt16(UInt16(bitPattern: delta), at: offset)
                offset += 2
            }
        }
        if padding > 0 {
            writer.zero(from: offset, count: padding - 1)
            buffer[offset + padding - 1] = UInt8(padding)
        }
        writer.commit(byteCount: byteCount)
    }

    /// The status symbol a receive delta is written with.
    static func symbol(for delta: Int16?) -> UInt8 {
        guard let delta else { return 0 }
        return (0...255).contains(delta) ? 1 : 2
    }

    /// Encodes the status symbols of `deltas` as packet chunks, calling `emit` with each in order.
    static func forEachChunk(of deltas: some Collection<Int16?>, _ emit: (UInt16) -> Void) {
        var index = deltas.startIndex
        var remaining = deltas.count
        while remaining > 0 {
            let first = symbol(for: deltas[index])
            var run = 0
            var scan = index
            while run < remaining && run < 0x1FFF && symbol(for: deltas[scan]) == first {
                run += 1
                scan = deltas.index(after: scan)
            }
            let window = min(14, remaining)
            var needsTwoBits = false
            scan = index
            for _ in 0..<window {
                if symbol(for: deltas[scan]) == 2 { needsTwoBits = true }
                scan = deltas.index(after: scan)
            }
            var chunk: UInt16
            var taken: Int
            if run >= 14 || run == remaining || (needsTwoBits && run >= 7) {
                chunk = UInt16(first) << 13 | UInt16(run)
                taken = run
            } else if !needsTwoBits {
                chunk = 0x8000
                taken = window
                scan = index
                for position in 0..<taken {
                    chunk |= UInt16(symbol(for: deltas[scan])) << (13 - position)
                    scan = deltas.index(after: scan)
                }
            } else {
                chunk = 0xC000
                taken = min(7, remaining)
                scan = index
                for position in 0..<taken {
                    chunk |= UInt16(symbol(for: deltas[scan])) << (12 - 2 * position)
                    scan = deltas.index(after: scan)
                }
            }
            emit(chunk)
            index = deltas.index(index, offsetBy: taken)
            remaining -= taken
        }
    }

    /// One 16-bit packet chunk.
    struct Chunk {
        let raw: UInt16

        init(_ raw: UInt16) { self.raw = raw }

        var isRunLength: Bool { raw & 0x8000 == 0 }

        /// Statuses the chunk describes before the status count caps it.
        var symbolCount: Int {
            if isRunLength { return Int(raw & 0x1FFF) }
            return raw & 0x4000 == 0 ? 14 : 7
        }

        /// The symbol at `position`, which must be below `symbolCount`.
        func symbol(at position: Int) -> UInt8 {
            if isRunLength { return UInt8(raw >> 13 & 0x3) }
            if raw & 0x4000 == 0 { return UInt8(raw >> (13 - position) & 0x1) }
            return UInt8(raw >> (12 - 2 * position) & 0x3)
        }
    }
}
