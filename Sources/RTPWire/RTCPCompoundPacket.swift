/// A compound RTCP packet (RFC 3550 section 6.1): RTCP packets stacked back to back in one datagram,
/// viewed in caller-owned memory.
///
///     +--------+-------------+------+--------+-----+--------+
///     | header | SR or RR    | SDES | header | ... | header |  ...
///     +--------+-------------+------+--------+-----+--------+
///     |<------ packet 1 ----------->|<-- packet 2 -->|
///
/// Creating one checks the framing of every packet (version, length, padding) so that iteration
/// cannot fail part-way for a reason that would also hide where the next packet starts. Bodies are
/// checked lazily, one packet at a time, as the iterator reaches them.
///
/// The first-packet-is-SR-or-RR rule of RFC 3550 appendix A.2 is not enforced: RFC 5506
/// reduced-size RTCP, which browsers send, drops it.
///
/// Iterating yields `RTCPPacket` values and skips packet types and feedback formats this module does
/// not parse (APP, XR, SLI, ...); `views` yields every packet.
public struct RTCPCompoundPacket: Sequence {
    /// The whole compound packet.
    public let bytes: UnsafeRawBufferPointer
    /// How many RTCP packets the compound holds, unknown types included.
    public let packetCount: Int

    /// Checks the framing of every packet in `bytes`, which must hold nothing but RTCP packets.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        guard !bytes.isEmpty else { throw .emptyCompound }
        var offset = 0
        var packetCount = 0
        while offset < bytes.count {
            let packet = try RTCPPacketView(parsing: bytes, at: offset)
            offset += packet.bytes.count
            packetCount += 1
        }
        self.bytes = bytes
        self.packetCount = packetCount
    }

    public func makeIterator() -> Iterator {
        Iterator(views: ViewIterator(bytes: bytes))
    }

    /// Every packet of the compound, unknown types included.
    public var views: Views { Views(bytes: bytes) }

    /// Yields the typed packets of the compound, skipping kinds this module does not parse.
    public struct Iterator: IteratorProtocol {
        var views: ViewIterator

        public mutating func next() -> RTCPPacket? {
            while let view = views.next() {
                do throws(RTCPError) {
                    if let packet = try view.parsed() { return packet }
                } catch {
                    return .malformed(view, error)
                }
            }
            return nil
        }
    }

    /// The packets of a compound as header-level views.
    public struct Views: Sequence {
        let bytes: UnsafeRawBufferPointer

        public func makeIterator() -> ViewIterator { ViewIterator(bytes: bytes) }
    }

    /// Walks the packets of a compound whose framing has been checked.
    public struct ViewIterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        public mutating func next() -> RTCPPacketView? {
            guard offset < bytes.count else { return nil }
            // The compound's initialiser checked every header, so this cannot fail; stopping is
            // still safer than trapping should the memory have changed underneath.
            guard let view = try? RTCPPacketView(parsing: bytes, at: offset) else {
                offset = bytes.count
                return nil
            }
            offset += view.bytes.count
            return view
        }
    }
}
