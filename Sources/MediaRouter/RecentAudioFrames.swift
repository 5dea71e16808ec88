import RTPWire

/// The last Opus frames a consumer forwarded, with their timestamps, in storage made once: what the
/// router repeats in the next packets (RFC 2198) toward a lossy subscriber that takes RED, without
/// allocating per packet. Confined to the consumer's worker.
final class RecentAudioFrames {
    static let capacity = 2
    private let storage: UnsafeMutableRawBufferPointer
    private var lengths = [Int](repeating: 0, count: capacity)
    private var timestamps = [UInt32](repeating: 0, count: capacity)
    /// Frames held, and the slot the next one goes in.
    private var count = 0
    private var next = 0

    init() {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.capacity * RedundantAudioPayload.maximumBlockLength, alignment: 8)
    }

    deinit {
        storage.deallocate()
    }

    /// Keeps `frame` as the newest; a frame longer than a redundant block can be is not kept, and
    /// the older ones go with it, since a receiver could not be given them in order.
    func remember(_ frame: UnsafeRawBufferPointer, timestamp: UInt32) {
        guard frame.count <= RedundantAudioPayload.maximumBlockLength else {
            forget()
            return
        }
        let start = next * RedundantAudioPayload.maximumBlockLength
        if !frame.isEmpty { UnsafeMutableRawBufferPointer(rebasing: storage[start..<(start + frame.count)]).copyMemory(from: frame) }
        lengths[next] = frame.count
        timestamps[next] = timestamp
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// After a gap in what the consumer forwards (a pause, a new run): nothing before it is repeated.
    func forget() {
        count = 0
    }

    /// Puts up to `frames` of the newest held frames ahead of `packet`'s own, whose timestamp is
    /// `timestamp`, making it an RFC 2198 packet of `payloadType` (the track's Opus) of at most
    /// `maximumLength` bytes; only frames before it and recent enough for the header go. Returns how
    /// many went (0 leaves the packet as it was).
    func addRedundancy(upTo frames: Int, to packet: inout RTPPacket, timestamp: UInt32, payloadType: UInt8, maximumLength: Int) -> Int {
        var usable = 0
        var length = packet.length - packet.paddingLength + 1
        // Newest first, stopping at the first that cannot go: what goes stays contiguous in time.
        while usable < min(frames, count) {
            let held = slot(newest: usable)
            let offset = timestamp &- timestamps[held]
            length += RedundantAudioPayload.redundantHeaderLength + lengths[held]
            guard offset > 0, offset <= RedundantAudioPayload.maximumTimestampOffset, length <= maximumLength else { break }
            usable += 1
        }
        guard usable > 0 else { return 0 }
        do throws(RTPPacketError) {
            try packet.prependRedundantFrames(count: usable, payloadType: payloadType) { index in
                let held = slot(newest: usable - 1 - index)
                let start = held * RedundantAudioPayload.maximumBlockLength
                return (UnsafeRawBufferPointer(rebasing: storage[start..<(start + lengths[held])]), timestamp &- timestamps[held])
            }
        } catch {
            return 0
        }
        return usable
    }

    /// The slot of the `age`-th newest frame (0: the newest).
    private func slot(newest age: Int) -> Int {
        (next - 1 - age + 2 * Self.capacity) % Self.capacity
    }
}
