/// Reception statistics of one RTP source, as RFC 3550 Appendix A keeps them for receiver reports:
/// sequence validation (A.1), expected and lost packets (A.3), interarrival jitter (A.8) and the
/// last sender report (section 6.4.1).
///
/// A pure value: the caller passes every arrival time in, as nanoseconds of any monotonic clock, so
/// the statistics are deterministic under test and cost nothing but arithmetic per packet.
///
/// The report block the statistics fill (RFC 3550 section 6.4.1):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                 SSRC_1 (SSRC of first source)                 |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     | fraction lost |       cumulative number of packets lost       |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           extended highest sequence number received           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                      interarrival jitter                      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         last SR (LSR)                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                   delay since last SR (DLSR)                  |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
public struct ReceiverStatistics: Equatable, Sendable {
    /// What `record` made of a packet's sequence number (RFC 3550 A.1).
    public enum PacketOutcome: Equatable, Sendable {
        /// Counted: in order, after a permissible gap, reordered, or a duplicate.
        case accepted
        /// Counted, and the first packet counted: the source has now sent `minimumSequential`
        /// packets in sequence and is valid.
        case validated
        /// Counted, and the counters restarted from this packet: it follows a large jump in
        /// sequence, so the sender most likely restarted its stream.
        case restarted
        /// Not counted: the source is not valid yet.
        case onProbation
        /// Not counted: the sequence number jumped too far from the highest one seen; the next packet
        /// restarts the counters if it follows this one.
        case rejectedJump

        /// Whether the packet was counted as received.
        public var isAccepted: Bool {
            switch self {
            case .accepted, .validated, .restarted: true
            case .onProbation, .rejectedJump: false
            }
        }
    }

    /// MIN_SEQUENTIAL: packets in sequence before a new source is valid.
    public static let minimumSequential = 2
    /// MAX_DROPOUT: the largest forward gap still taken as loss rather than a restart.
    public static let maximumDropout = 3_000
    /// MAX_MISORDER: a packet fewer than this many behind the highest sequence number counts as late;
    /// one further behind counts as a jump that may start a restart.
    public static let maximumMisorder = 100

    static let sequenceModulus = 1 << 16
    @usableFromInline
    static let nanosecondsPerSecond: UInt64 = 1_000_000_000

    /// The RTP clock rate of the source in hertz; jitter is measured in its units.
    public let clockRate: UInt32

    var hasSeenPacket = false
    var maximumSequence: UInt16 = 0
    /// Wraps of the sequence number so far, times 2^16 (RFC 3550's `cycles`).
    var cycles: Int64 = 0
    var baseSequence: UInt16 = 0
    /// The sequence number that would confirm a large jump; out of the 16-bit range when none is
    /// pending, so that no packet matches it.
    var badSequence: Int = sequenceModulus + 1
    var probation = 0
    var received: Int64 = 0
    var expectedPrior: Int64 = 0
    var receivedPrior: Int64 = 0

    /// The last packet's transit time in RTP units, modulo 2^32: only differences matter.
    var lastTransit: UInt32?
    /// The interarrival jitter estimate in RTP timestamp units, unrounded.
    public private(set) var jitter: Double = 0

    /// The middle 32 bits of the last sender report's NTP timestamp, 0 when none arrived yet.
    public private(set) var lastSenderReport: UInt32 = 0
    var lastSenderReportArrival: UInt64?

    /// Creates empty statistics for a source whose RTP clock runs at `clockRate` hertz (90 000 for
    /// video, 48 000 for Opus).
    public init(clockRate: UInt32) {
        self.clockRate = clockRate
    }

    /// Whether the source has passed probation and has counters worth reporting.
    public var isValid: Bool {
        hasSeenPacket && probation == 0
    }

    /// Packets counted as received since the source became valid or last restarted, duplicates
    /// included (RFC 3550 A.3 counts them, which is why loss can go negative).
    public var packetsReceived: Int64 {
        received
    }

    /// The extended highest sequence number as a 64-bit count, which never wraps.
    var extendedMaximum: Int64 {
        cycles + Int64(maximumSequence)
    }

    /// The extended highest sequence number: wraps in the high 16 bits, the highest sequence number
    /// received in the low 16 bits.
    public var extendedHighestSequenceNumber: UInt32 {
        UInt32(truncatingIfNeeded: extendedMaximum)
    }

    /// Packets expected since the source became valid: the span from the first to the highest
    /// sequence number.
    public var packetsExpected: Int64 {
        guard isValid else { return 0 }
        return extendedMaximum - Int64(baseSequence) + 1
    }

    /// Packets lost since the source became valid; negative when duplicates outnumber losses.
    public var cumulativeLost: Int64 {
        packetsExpected - received
    }

    /// Accounts for one RTP packet of this source.
    ///
    /// Jitter takes every packet that is counted or on probation in arrival order, reordered ones
    /// included, as RFC 3550 A.8 prescribes; a rejected jump leaves it alone, and a restart only sets
    /// a new baseline.
    ///
    /// - Parameters:
    ///   - sequenceNumber: the packet's RTP sequence number.
    ///   - rtpTimestamp: the packet's RTP timestamp, for jitter.
    ///   - arrivalNanoseconds: when the packet arrived, on any monotonic clock in nanoseconds; the
    ///     same clock for every call.
    /// - Returns: whether and how the packet was counted.
    @discardableResult
    public mutating func record(sequenceNumber: UInt16, rtpTimestamp: UInt32, arrivalNanoseconds: UInt64) -> PacketOutcome {
        if !hasSeenPacket {
            hasSeenPacket = true
            startSequence(at: sequenceNumber)
            maximumSequence = sequenceNumber &- 1
            probation = Self.minimumSequential
        }
        let outcome = updateSequence(sequenceNumber)
        let transit = Self.rtpUnits(nanoseconds: arrivalNanoseconds, clockRate: clockRate) &- rtpTimestamp
        switch outcome {
        case .accepted, .validated, .onProbation:
            updateJitter(transit: transit)
        case .restarted:
            // The restarted stream's timestamps have no relation to the old ones; comparing them
            // would add one enormous spurious difference to the jitter.
            lastTransit = transit
        case .rejectedJump:
            break
        }
        return outcome
    }

    /// Remembers a sender report from this source, for the LSR and DLSR fields of the next report
    /// block.
    ///
    /// - Parameters:
    ///   - ntpTimestamp: the report's 64-bit NTP timestamp (seconds in the high 32 bits).
    ///   - arrivalNanoseconds: when it arrived, on the clock passed to `record`.
    public mutating func recordSenderReport(ntpTimestamp: UInt64, arrivalNanoseconds: UInt64) {
        lastSenderReport = Self.compactNTP(fromNTPTimestamp: ntpTimestamp)
        lastSenderReportArrival = arrivalNanoseconds
    }

    /// Fills a report block for this source and starts the next reporting interval, so that the
    /// next block's fraction lost covers only the packets after this one (RFC 3550 A.3).
    ///
    /// - Parameters:
    ///   - ssrc: the SSRC of this source, copied into the block.
    ///   - nowNanoseconds: the time the report is sent, on the clock passed to `record`.
    /// - Returns: nil while the source is on probation, since it has no counters yet.
    public mutating func makeReportBlock(ssrc: UInt32, nowNanoseconds: UInt64) -> RTCPReportBlock? {
        guard isValid else { return nil }
        let expected = packetsExpected
        let expectedInterval = expected - expectedPrior
        expectedPrior = expected
        let receivedInterval = received - receivedPrior
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fractionLost: UInt8
        if expectedInterval <= 0 || lostInterval <= 0 {
            fractionLost = 0
        } else {
            // Only a restart could make this reach 256; the field saturates rather than wrap to 0.
            fractionLost = UInt8(min((lostInterval << 8) / expectedInterval, 255))
        }

        let delay: UInt32
        if let arrival = lastSenderReportArrival, lastSenderReport != 0 {
            delay = Self.compactNTPInterval(nanoseconds: nowNanoseconds >= arrival ? nowNanoseconds - arrival : 0)
        } else {
            delay = 0
        }

        return RTCPReportBlock(
            ssrc: ssrc,
            fractionLost: fractionLost,
            cumulativeLost: RTCPReportBlock.clampCumulativeLost(cumulativeLost),
            extendedHighestSequenceNumber: extendedHighestSequenceNumber,
            jitter: jitter < Double(UInt32.max) ? UInt32(jitter) : UInt32.max,
            lastSenderReport: lastSenderReport,
            delaySinceLastSenderReport: delay
        )
    }

    /// RFC 3550 A.1 `init_seq`.
    mutating func startSequence(at sequenceNumber: UInt16) {
        baseSequence = sequenceNumber
        maximumSequence = sequenceNumber
        badSequence = Self.sequenceModulus + 1
        cycles = 0
        received = 0
        receivedPrior = 0
        expectedPrior = 0
    }

    /// RFC 3550 A.1 `update_seq`.
    mutating func updateSequence(_ sequenceNumber: UInt16) -> PacketOutcome {
        let forward = Int(sequenceNumber &- maximumSequence)
        if probation > 0 {
            // Wrapping `+ 1`: the RFC's C promotes to int here, so a source starting at 65535 would
            // never pass probation.
            if sequenceNumber == maximumSequence &+ 1 {
                probation -= 1
                maximumSequence = sequenceNumber
                if probation == 0 {
                    startSequence(at: sequenceNumber)
                    received += 1
                    return .validated
                }
            } else {
                probation = Self.minimumSequential - 1
                maximumSequence = sequenceNumber
            }
            return .onProbation
        } else if forward < Self.maximumDropout {
            if sequenceNumber < maximumSequence {
                cycles += Int64(Self.sequenceModulus)
            }
            maximumSequence = sequenceNumber
        } else if forward <= Self.sequenceModulus - Self.maximumMisorder {
            guard Int(sequenceNumber) == badSequence else {
                badSequence = (Int(sequenceNumber) + 1) & (Self.sequenceModulus - 1)
                return .rejectedJump
            }
            startSequence(at: sequenceNumber)
            received += 1
            return .restarted
        }
        // Otherwise a duplicate or a packet reordered by at most MAX_MISORDER: counted, max unchanged.
        received += 1
        return .accepted
    }

    /// RFC 3550 A.8: J += (|D| - J) / 16, with D the change in transit time between consecutive
    /// arrivals. Transit times are differences of two clocks, so only their changes mean anything,
    /// and wrapping arithmetic gives the right change across either clock's wrap.
    mutating func updateJitter(transit: UInt32) {
        if let previous = lastTransit {
            let difference = Double(Int32(bitPattern: transit &- previous)).magnitude
            jitter += (difference - jitter) / 16
        }
        lastTransit = transit
    }

    /// A monotonic time in nanoseconds expressed in ticks of `clockRate`, modulo 2^32. Split at whole
    /// seconds so the multiplication cannot overflow before the truncation to 32 bits.
    static func rtpUnits(nanoseconds: UInt64, clockRate: UInt32) -> UInt32 {
        let rate = UInt64(clockRate)
        let seconds = nanoseconds / nanosecondsPerSecond
        let fraction = nanoseconds % nanosecondsPerSecond
        return UInt32(truncatingIfNeeded: seconds &* rate &+ fraction * rate / nanosecondsPerSecond)
    }
}
