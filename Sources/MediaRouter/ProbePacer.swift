/// The padding the audio-fallback probe sends while a subscriber's video is off for quality, tick by
/// tick: half the configured probe rate beyond the audio, or all of it while trying whether the path
/// would carry video, less whatever the router already adds beyond the audio itself (the earlier
/// frames it repeats as RED).
///
/// Only the full rate can show the path would carry the lowest video (`isAtFullRate`), but sent all
/// the time it fills a link that cannot carry it (a 250 kbps downlink with RED audio): the audio the
/// fallback meant to save loses packets, and the subscriber's signaling starves behind the queue. So
/// the probe goes to full rate after clean reports at half, and back to half on the first lossy one;
/// each failed try doubles the clean reports the next one waits for, up to
/// `maximumCleanReportsBeforeTry` (about 2 s of a browser's reports), so a link that recovered gets
/// its try within that and one too small spends most of its time at half.
struct ProbePacer: Equatable, Sendable {
    /// A report losing more than this says the probe overfills the path.
    static let lossyReport = 0.05
    /// The share of the configured rate sent between tries.
    static let restingShare = 0.5
    static let maximumCleanReportsBeforeTry = 4

    /// Whether the probe sends its whole configured rate, the only rate that shows the path would
    /// carry video.
    private(set) var isAtFullRate = false
    private var cleanReportsBeforeTry = 1
    private var cleanReports = 0
    /// Bytes owed; a late tick sends a little more, never a burst, and added bytes beyond the probe's
    /// rate are forgiven after a few packets' worth, so they never silence the probe for long.
    private var credit = 0.0
    private var lastTickAt: UInt64?
    private var addedBytesAtLastTick: UInt64 = 0

    /// The share of the configured rate the probe sends now.
    var share: Double { isAtFullRate ? 1 : Self.restingShare }

    /// Starts afresh, for the next time video goes off.
    mutating func reset() {
        self = ProbePacer()
    }

    /// Takes the loss of the subscriber's latest report about an interval the probe ran through.
    mutating func adapt(toReportedLoss loss: Double) {
        let lossy = loss > Self.lossyReport
        if isAtFullRate {
            guard lossy else { return }
            isAtFullRate = false
            cleanReports = 0
            cleanReportsBeforeTry = min(2 * cleanReportsBeforeTry, Self.maximumCleanReportsBeforeTry)
        } else {
            cleanReports = lossy ? 0 : cleanReports + 1
            if cleanReports >= cleanReportsBeforeTry { isAtFullRate = true }
        }
    }

    /// The padding packets due now. `addedBytes` is the transport's running count of bytes it added
    /// beyond the media (router-added RED), read on every tick.
    mutating func packetsDue(now: UInt64, bitsPerSecond: Int, packetBytes: Int, addedBytes: UInt64) -> Int {
        defer {
            lastTickAt = now
            addedBytesAtLastTick = addedBytes
        }
        guard let last = lastTickAt, now > last, packetBytes > 0 else { return 0 }
        let added = Double(addedBytes &- addedBytesAtLastTick)
        let size = Double(packetBytes)
        credit += share * Double(bitsPerSecond) / 8 * Double(now - last) / 1e9 - added
        credit = min(max(credit, -4 * size), 4 * size)
        guard credit >= size else { return 0 }
        let packets = Int(credit / size)
        credit -= Double(packets) * size
        return packets
    }
}
