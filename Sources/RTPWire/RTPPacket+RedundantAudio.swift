extension RTPPacket {
    /// Makes this packet's payload an RFC 2198 one in place: `count` earlier frames ahead of the frame
    /// it carries, all of `payloadType`. `frame(i)` gives the i-th earlier frame (0 is the oldest) and
    /// its timestamp offset; it is asked twice per frame, and nothing is allocated. Throws, leaving
    /// the packet as it was, when a frame is too long or too old for its header or the buffer has no
    /// room; padding is removed either way.
    public mutating func prependRedundantFrames(
        count: Int, payloadType: UInt8, frame: (Int) -> (bytes: UnsafeRawBufferPointer, timestampOffset: UInt32)
    ) throws(RTPPacketError) {
        removePadding()
        var added = RedundantAudioPayload.redundantHeaderLength * count + 1
        for index in 0..<count {
            let earlier = frame(index)
            guard earlier.bytes.count <= RedundantAudioPayload.maximumBlockLength,
                earlier.timestampOffset <= RedundantAudioPayload.maximumTimestampOffset
            else { throw .redundantBlockNotRepresentable(bytes: earlier.bytes.count, timestampOffset: earlier.timestampOffset) }
            added += earlier.bytes.count
        }
        try insertLeadingPayloadBytes(added)
        let payload = self.payload
        var blockOffset = RedundantAudioPayload.redundantHeaderLength * count + 1
        for index in 0..<count {
            let earlier = frame(index)
            // Checked above, so the header cannot refuse.
            try? RedundantAudioPayload.writeRedundantHeader(
                payloadType: payloadType, timestampOffset: earlier.timestampOffset, length: earlier.bytes.count,
                at: RedundantAudioPayload.redundantHeaderLength * index, in: payload)
            if !earlier.bytes.isEmpty {
                UnsafeMutableRawBufferPointer(rebasing: payload[blockOffset..<(blockOffset + earlier.bytes.count)]).copyMemory(from: earlier.bytes)
            }
            blockOffset += earlier.bytes.count
        }
        payload[RedundantAudioPayload.redundantHeaderLength * count] = payloadType & 0x7F
    }
}
