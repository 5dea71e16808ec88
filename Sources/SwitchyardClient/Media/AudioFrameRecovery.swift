import RTPWire

/// Which Opus frames a receiver plays from each audio packet, as a jitter buffer would: the packet's
/// own frame, and after a gap, the earlier frames an RFC 2198 packet repeats (those newer than the
/// last frame played); what neither brings back is concealed. Counts both, so a run can compare the
/// audio a lossy path cost with RED and without (docs/red.md).
struct AudioFrameRecovery {
    /// What to play, in order: a frame's bytes within the payload, or nil for one concealed frame.
    typealias Play = (Range<Int>?) -> Void

    /// Most frames one gap conceals one by one; a longer gap (an outage) is counted, not played.
    static let maximumConcealedPerGap = 50

    private var lastSequenceNumber: UInt16?
    private var lastTimestamp: UInt32 = 0
    private(set) var framesRecovered: UInt64 = 0
    private(set) var framesConcealed: UInt64 = 0
    /// Packets of the RED payload type that did not parse; their frame is concealed.
    private(set) var malformedRedundantPackets: UInt64 = 0

    /// Takes one packet; `redundant` says it is of the RED payload type. Late and repeated packets play
    /// nothing.
    mutating func receive(
        sequenceNumber: UInt16, timestamp: UInt32, payload: UnsafeRawBufferPointer, redundant: Bool, play: Play
    ) {
        var missing = 0
        if let last = lastSequenceNumber {
            let step = Int(Int16(bitPattern: sequenceNumber &- last))
            guard step > 0 else { return }
            missing = step - 1
        }
        lastSequenceNumber = sequenceNumber
        var parsed: RedundantAudioPayload?
        if redundant {
            do throws(RedundantAudioError) {
                parsed = try RedundantAudioPayload(parsing: payload)
            } catch {
                malformedRedundantPackets += 1
                conceal(missing + 1, play: play)
                lastTimestamp = timestamp
                return
            }
        }
        var repeated: [Range<Int>] = []
        if missing > 0, let parsed {
            for index in 0..<parsed.redundantBlockCount {
                let block = parsed.redundantBlock(at: index)
                let blockTimestamp = timestamp &- block.timestampOffset
                if !block.range.isEmpty, Int32(bitPattern: blockTimestamp &- lastTimestamp) > 0 { repeated.append(block.range) }
            }
            repeated = Array(repeated.suffix(missing))
        }
        conceal(missing - repeated.count, play: play)
        for range in repeated { play(range) }
        framesRecovered += UInt64(repeated.count)
        play(parsed?.primary.range ?? 0..<payload.count)
        lastTimestamp = timestamp
    }

    private mutating func conceal(_ count: Int, play: Play) {
        guard count > 0 else { return }
        framesConcealed += UInt64(count)
        for _ in 0..<min(count, Self.maximumConcealedPerGap) { play(nil) }
    }
}
