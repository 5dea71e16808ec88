/// Turns one track's RTP timestamps into milliseconds of the archive's timeline: anchored at the
/// forwarding time of the track's first packet, then advanced by the RTP clock, so the jitter of
/// arrival never moves a frame. Where the RTP clock and the wall clock part by more than
/// `reanchorAfterMs` (a publisher that paused and restarted its clock, or one that restarted), the
/// track is anchored again at the packet's forwarding time. Never goes backwards.
struct MediaTimeline {
    static let reanchorAfterMs: Int64 = 1000

    let clockRate: Int64
    private var anchor: (rtp: Int64, milliseconds: Int64)?
    private var lastRaw: UInt32 = 0
    private var lastUnwrapped: Int64 = 0
    private(set) var lastMilliseconds: Int64 = -1

    init(clockRate: Int) {
        self.clockRate = Int64(clockRate)
    }

    /// The time of a frame with `rtpTimestamp`, whose first packet was forwarded at `forwardedMs`
    /// (milliseconds of the archive's timeline).
    mutating func milliseconds(rtpTimestamp: UInt32, forwardedMs: Int64) -> Int64 {
        let unwrapped: Int64
        if anchor == nil {
            unwrapped = Int64(rtpTimestamp)
        } else {
            unwrapped = lastUnwrapped + Int64(Int32(bitPattern: rtpTimestamp &- lastRaw))
        }
        lastRaw = rtpTimestamp
        lastUnwrapped = unwrapped
        // Rounded, not truncated: a steady 90 kHz clock lands on steady milliseconds.
        var time = anchor.map { $0.milliseconds + ((unwrapped - $0.rtp) * 1000 + clockRate / 2) / clockRate } ?? forwardedMs
        if anchor == nil || abs(time - forwardedMs) > Self.reanchorAfterMs {
            anchor = (unwrapped, forwardedMs)
            time = forwardedMs
        }
        time = max(time, lastMilliseconds + 1)
        lastMilliseconds = time
        return time
    }
}
