/// Finds the packets an RTP stream is missing and decides when to NACK each one (RFC 4585 generic
/// NACK): the router uses it towards its publishers, clients towards the router.
///
/// Feed every arriving sequence number to `received(sequenceNumber:now:)` and call
/// `collect(now:roundTripTime:into:)` on a timer (every 10–20 ms, and after a gap was seen) to get the
/// numbers to put in the next NACK. A missing number is:
/// - first NACKed `reorderDelay` after the gap was seen, because most "gaps" on a real network are
///   reordering that fixes itself within a few milliseconds;
/// - NACKed again every `max(roundTripTime, minRetryInterval)`: a retransmission cannot arrive sooner
///   than one round trip, and the floor keeps a tiny or unknown RTT from flooding the publisher;
///   an unknown RTT counts as `assumedRoundTripTime`;
/// - given up on after it was NACKed `maxRetries` times in all and one more interval passed
///   without it (`abandonedCount`), or once it is older than `maxAge` (`expiredCount`), since a
///   receiver's jitter buffer has moved on by then.
///
/// Storage is a fixed array of `maxMissing` entries allocated at init and never grown. Entries stay
/// in increasing sequence order (gaps are only ever added past the highest number seen), so a late
/// arrival is found by binary search; it is marked recovered in place and the hole is compacted away
/// by the next `collect`, which walks every entry anyway.
public struct NackGenerator: Sendable {
    /// The default `maxMissing`: 256 packets is about a second of 2 Mbit/s video; a bigger jump is a
    /// restart or an outage that NACKs cannot repair, so it is better answered by a key frame.
    public static let defaultMaxMissing = 256
    /// The default `reorderDelay`: 10 ms, in nanoseconds.
    public static let defaultReorderDelay: UInt64 = 10_000_000
    /// The default `minRetryInterval`: 40 ms, in nanoseconds.
    public static let defaultMinRetryInterval: UInt64 = 40_000_000
    /// The default `assumedRoundTripTime`, used until an RTT is known: 100 ms, in nanoseconds.
    public static let defaultAssumedRoundTripTime: UInt64 = 100_000_000
    /// The default `maxRetries`.
    public static let defaultMaxRetries = 10
    /// The default `maxAge`: 1 s, in nanoseconds, the age after which the retransmission buffers of
    /// this server no longer answer either.
    public static let defaultMaxAge: UInt64 = 1_000_000_000
    /// The default `maxNacksPerCollect`: 64 sequence numbers, at most 64 retransmissions (about
    /// 80 KB of video) asked of the publisher per timer tick, so a burst of loss does not turn into a
    /// burst of retransmissions that causes more loss. 64 numbers also fit in one NACK packet.
    public static let defaultMaxNacksPerCollect = 64

    public let maxMissing: Int
    public let reorderDelay: UInt64
    public let minRetryInterval: UInt64
    public let assumedRoundTripTime: UInt64
    public let maxRetries: Int
    public let maxAge: UInt64
    public let maxNacksPerCollect: Int

    /// Sequence numbers currently missing.
    public private(set) var missingCount = 0
    /// Missing packets that arrived later (reordered or retransmitted).
    public private(set) var recoveredCount = 0
    /// Missing packets given up on after `maxRetries` NACKs.
    public private(set) var abandonedCount = 0
    /// Missing packets dropped because they became older than `maxAge`.
    public private(set) var expiredCount = 0
    /// Missing packets dropped, oldest first, to make room for a newer gap.
    public private(set) var evictedCount = 0
    /// Times the stream jumped so far that tracking was restarted.
    public private(set) var restartCount = 0
    /// Sequence numbers handed out to be NACKed, retries included.
    public private(set) var nackedCount = 0
    /// Due NACKs postponed to a later `collect` by `maxNacksPerCollect`.
    public private(set) var rateLimitedCount = 0

    private struct Entry: Sendable {
        /// Unwrapped, so entries compare correctly across a 16-bit wrap.
        var sequenceNumber: Int64
        var firstSeenAt: UInt64
        var lastSentAt: UInt64
        var sentCount: Int
        /// False once the packet arrived; the entry is removed by the next compaction.
        var isMissing: Bool
    }

    /// `entries[0 ..< used]` are live or recovered-but-not-yet-compacted; the rest is spare capacity.
    private var entries: [Entry]
    private var used = 0
    private var unwrapper = SequenceNumberUnwrapper()
    /// The highest unwrapped sequence number seen, nil before the first packet.
    private var highest: Int64?
    /// A far-behind packet's successor; if it arrives next, the stream restarted lower (RFC 3550 A.1).
    private var probation: Int64?

    /// Creates a generator; times are nanoseconds. See the type's documentation for each value.
    public init(
        maxMissing: Int = NackGenerator.defaultMaxMissing,
        reorderDelay: UInt64 = NackGenerator.defaultReorderDelay,
        minRetryInterval: UInt64 = NackGenerator.defaultMinRetryInterval,
        assumedRoundTripTime: UInt64 = NackGenerator.defaultAssumedRoundTripTime,
        maxRetries: Int = NackGenerator.defaultMaxRetries,
        maxAge: UInt64 = NackGenerator.defaultMaxAge,
        maxNacksPerCollect: Int = NackGenerator.defaultMaxNacksPerCollect
    ) {
        precondition(maxMissing > 0, "maxMissing must be positive")
        precondition(maxRetries > 0, "maxRetries must be positive")
        precondition(maxNacksPerCollect > 0, "maxNacksPerCollect must be positive")
        self.maxMissing = maxMissing
        self.reorderDelay = reorderDelay
        self.minRetryInterval = minRetryInterval
        self.assumedRoundTripTime = assumedRoundTripTime
        self.maxRetries = maxRetries
        self.maxAge = maxAge
        self.maxNacksPerCollect = maxNacksPerCollect
        entries = Array(
            repeating: Entry(sequenceNumber: 0, firstSeenAt: 0, lastSentAt: 0, sentCount: 0, isMissing: false),
            count: maxMissing)
    }

    /// Whether `sequenceNumber` is currently waiting to arrive.
    public func isMissing(_ sequenceNumber: UInt16) -> Bool {
        guard let index = index(of: unwrapper.peek(sequenceNumber)) else { return false }
        return entries[index].isMissing
    }

    /// Records the arrival of a packet (original or retransmission) of the producer's stream.
    ///
    /// A forward jump adds the skipped numbers as missing, unless more than `maxMissing` were skipped:
    /// then the list is cleared and nothing is NACKed (a restart, or an outage NACKs cannot repair).
    /// An older number that was missing is marked recovered.
    public mutating func received(sequenceNumber: UInt16, now: UInt64) {
        let unwrapped = unwrapper.unwrap(sequenceNumber)
        guard let top = highest else {
            highest = unwrapped
            return
        }
        let distance = unwrapped - top
        if distance > 0 {
            probation = nil
            let skipped = distance - 1
            if skipped > Int64(maxMissing) {
                restart(at: unwrapped)
                return
            }
            if skipped > 0 {
                addMissing(from: top + 1, count: Int(skipped), now: now)
            }
            highest = unwrapped
        } else if distance < 0 {
            if let index = index(of: unwrapped) {
                if entries[index].isMissing {
                    entries[index].isMissing = false
                    missingCount -= 1
                    recoveredCount += 1
                }
                return
            }
            // Far behind and not something we wait for: either a stray very late duplicate, or the
            // sender restarted its sequence lower. As in RFC 3550 A.1, only two in a row mean a restart,
            // so one stray packet cannot wipe the list.
            if -distance > Int64(maxMissing) {
                if probation == unwrapped {
                    restart(at: unwrapped)
                } else {
                    probation = unwrapped + 1
                }
            }
        }
        // distance == 0 is a duplicate of the highest packet: nothing to do.
    }

    /// Calls `body` with every missing sequence number whose NACK is due now, oldest first, at most
    /// `maxNacksPerCollect` of them; the caller packs them into one generic NACK.
    ///
    /// Also drops entries that were recovered, abandoned or expired.
    ///
    /// - Parameter roundTripTime: The current RTT to the publisher in nanoseconds, nil if unknown.
    public mutating func collect(now: UInt64, roundTripTime: UInt64?, into body: (UInt16) -> Void) {
        let retryInterval = max(roundTripTime ?? assumedRoundTripTime, minRetryInterval)
        var budget = maxNacksPerCollect
        var kept = 0
        for index in 0..<used {
            var entry = entries[index]
            guard entry.isMissing else { continue }
            let age = Self.elapsed(from: entry.firstSeenAt, to: now)
            if age > maxAge {
                expiredCount += 1
                missingCount -= 1
                continue
            }
            let isDue =
                entry.sentCount == 0
                ? age >= reorderDelay
                : Self.elapsed(from: entry.lastSentAt, to: now) >= retryInterval
            if isDue {
                if entry.sentCount >= maxRetries {
                    // The last NACK had its full interval to be answered and was not.
                    abandonedCount += 1
                    missingCount -= 1
                    continue
                }
                if budget > 0 {
                    budget -= 1
                    entry.sentCount += 1
                    entry.lastSentAt = now
                    nackedCount += 1
                    body(UInt16(truncatingIfNeeded: entry.sequenceNumber))
                } else {
                    rateLimitedCount += 1
                }
            }
            entries[kept] = entry
            kept += 1
        }
        used = kept
    }

    // MARK: - Storage

    private static func elapsed(from start: UInt64, to now: UInt64) -> UInt64 {
        now >= start ? now - start : 0
    }

    private mutating func restart(at unwrapped: Int64) {
        used = 0
        missingCount = 0
        probation = nil
        highest = unwrapped
        restartCount += 1
    }

    /// Appends `count` consecutive missing numbers starting at `first`, making room by compacting and
    /// then by evicting the oldest entries. `count` is at most `maxMissing`.
    private mutating func addMissing(from first: Int64, count: Int, now: UInt64) {
        if used + count > maxMissing {
            compact()
        }
        let overflow = used + count - maxMissing
        if overflow > 0 {
            // After compaction every entry is missing, so each evicted one leaves `missingCount`.
            for index in 0..<(used - overflow) {
                entries[index] = entries[index + overflow]
            }
            used -= overflow
            missingCount -= overflow
            evictedCount += overflow
        }
        for offset in 0..<count {
            entries[used] = Entry(
                sequenceNumber: first + Int64(offset), firstSeenAt: now, lastSentAt: 0, sentCount: 0, isMissing: true)
            used += 1
        }
        missingCount += count
    }

    /// Removes recovered entries, keeping the order.
    private mutating func compact() {
        var kept = 0
        for index in 0..<used where entries[index].isMissing {
            entries[kept] = entries[index]
            kept += 1
        }
        used = kept
    }

    /// Binary search: entries are sorted by sequence number.
    private func index(of unwrapped: Int64) -> Int? {
        var low = 0
        var high = used
        while low < high {
            let middle = (low + high) / 2
            let value = entries[middle].sequenceNumber
            if value == unwrapped { return middle }
            if value < unwrapped { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}
