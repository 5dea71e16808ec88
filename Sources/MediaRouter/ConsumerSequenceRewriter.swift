import RTPWire

/// Gives one consumer its own RTP sequence-number and timestamp space, so that pausing and resuming
/// (and later, switching layers) look to the receiver like one continuous stream.
///
/// Forwarding happens in runs. A run starts with the first packet forwarded after `resync()` (and
/// with the very first packet); within a run, outgoing = incoming + a fixed offset, for sequence
/// numbers and timestamps alike, so reordered packets and retransmissions map consistently. When a
/// run starts, the offsets are chosen so that:
/// - the outgoing sequence number is the last outgoing one + 1: the receiver sees no gap, so it
///   neither NACKs the packets we never meant to send nor counts them as lost;
/// - the outgoing timestamp is the last outgoing one + the wall time since the last forwarded packet
///   in clock-rate ticks (at least 1): the receiver's jitter estimate and playout clock see time
///   advance as it really did, instead of a pause collapsing to nothing.
///
/// Packets older than the first packet of the current run are dropped: their outgoing numbers would
/// fall before the run and collide with the previous run's. So a run should start on the first packet
/// of a key frame (the caller waits for one after `resync()`).
///
/// A jump in the producer's own sequence numbers (a publisher restart) passes through unchanged; the
/// caller should `resync()` on such an event.
struct ConsumerSequenceRewriter: Sendable {
    /// Ticks per second of the consumer's RTP clock (48 000 for Opus, 90 000 for video).
    let clockRate: UInt32

    /// The outgoing sequence number of the newest packet forwarded (the first packet will get this + 1).
    private(set) var lastSequenceNumber: UInt16
    /// The outgoing timestamp of the newest packet forwarded.
    private(set) var lastTimestamp: UInt32
    /// Monotonic nanoseconds at which the newest packet was forwarded, nil before the first.
    private(set) var lastForwardedAt: UInt64?
    /// Whether the next forwarded packet starts a new run.
    private(set) var isAwaitingResync = true
    /// Packets dropped because they predate the current run.
    private(set) var droppedBeforeRunCount = 0
    /// Outgoing sequence numbers skipped because the producer's packets never reached the router
    /// (upstream loss), less those filled in late. The subscriber reports them lost, but its own
    /// path is not to blame.
    private(set) var skippedCount: UInt64 = 0

    private var sequenceNumberOffset: UInt16 = 0
    private var timestampOffset: UInt32
    /// Unwraps the producer's sequence numbers of the current run; its `lastUnwrapped` is always the
    /// newest packet forwarded, because only such packets are unwrapped rather than peeked.
    private var producerSequence = SequenceNumberUnwrapper()
    /// The unwrapped producer sequence number that started the current run.
    private var runStart: Int64 = 0
    /// What each recent outgoing number carried, by outgoing number modulo its size; kept once
    /// packets are dropped within a run (`drop`) or runs switch between layers, when the offset alone
    /// no longer maps a subscriber's NACK back. Nil for a number that carried no producer packet
    /// (inserted padding). Preallocated by `keepHistory()`, so the packet path does not allocate.
    private var history: [ForwardedPacket?] = []
    /// Whether `keepHistory()` was called.
    private(set) var keepsHistory = false
    /// The producer encoding the current run forwards, recorded in the history.
    private var encoding: UInt8 = 0

    /// Creates a rewriter whose first outgoing packet has `initialSequenceNumber` and whose
    /// timestamps are the producer's plus `timestampOffset` until the first resync.
    init(clockRate: UInt32, initialSequenceNumber: UInt16, timestampOffset: UInt32) {
        precondition(clockRate > 0, "clockRate must be positive")
        self.clockRate = clockRate
        lastSequenceNumber = initialSequenceNumber &- 1
        lastTimestamp = timestampOffset
        self.timestampOffset = timestampOffset
    }

    /// Creates a rewriter with a random initial sequence number and timestamp offset, as RFC 3550
    /// section 5.1 asks, drawn from `generator`.
    init<Generator: RandomNumberGenerator>(clockRate: UInt32, using generator: inout Generator) {
        self.init(
            clockRate: clockRate,
            initialSequenceNumber: UInt16.random(in: .min ... .max, using: &generator),
            timestampOffset: UInt32.random(in: .min ... .max, using: &generator))
    }

    /// Creates a rewriter with a random initial sequence number and timestamp offset.
    init(clockRate: UInt32) {
        var generator = SystemRandomNumberGenerator()
        self.init(clockRate: clockRate, using: &generator)
    }

    /// Starts a new run with the next forwarded packet: call when forwarding restarts (resume after a
    /// pause), before forwarding the key frame that restarts it.
    mutating func resync() {
        isAwaitingResync = true
    }

    /// Outgoing numbers remembered for NACKs once packets are dropped within runs.
    static let historySize = 1024

    /// Makes room for the NACK history `drop`, padding and layer switches need; call once, before
    /// forwarding. Outgoing numbers then map back through it, across runs.
    mutating func keepHistory() {
        guard !keepsHistory else { return }
        keepsHistory = true
        history = Array(repeating: nil, count: Self.historySize)
    }

    /// A padding-only packet slipped in after the newest forwarded one (a bandwidth probe while media
    /// flows): the next number and the newest timestamp; the packets after it move up one number.
    /// Nil when there is no run, or no history to keep a NACK for it from mapping to a packet.
    mutating func insertPadding() -> (sequenceNumber: UInt16, timestamp: UInt32)? {
        guard !isAwaitingResync, keepsHistory, producerSequence.lastUnwrapped != nil else { return nil }
        lastSequenceNumber &+= 1
        sequenceNumberOffset &+= 1
        history[Int(lastSequenceNumber) % Self.historySize] = nil
        return (lastSequenceNumber, lastTimestamp)
    }

    /// Leaves a producer packet out of the consumer's stream without a gap (a temporal layer the
    /// subscriber does not receive): the packets after it move down one number. Only the newest
    /// packet can be dropped this way; an older one is already behind packets that were numbered.
    /// Returns false when the packet could not be left out seamlessly.
    @discardableResult
    mutating func drop(sequenceNumber: UInt16) -> Bool {
        guard !isAwaitingResync, keepsHistory else { return false }
        let unwrapped = producerSequence.peek(sequenceNumber)
        guard let newest = producerSequence.lastUnwrapped, unwrapped > newest else { return false }
        skippedCount &+= UInt64(unwrapped - newest - 1)
        _ = producerSequence.unwrap(sequenceNumber)
        sequenceNumberOffset &-= 1
        return true
    }

    /// The sequence number and timestamp of a padding-only packet sent at `now` while nothing is
    /// forwarded (probing a paused consumer's path): the next sequence number, so the receiver sees
    /// no gap, and the timestamp of `now` extrapolated from the newest forwarded packet. A receiver
    /// computes jitter from every packet (RFC 3550 A.8), so padding stuck at the last frame's
    /// timestamp would read as a delay growing by the length of the pause and ruin the very quality
    /// the probe is meant to show. The next forwarded packet starts a new run, whose timestamp is
    /// never below the padding's.
    mutating func nextPaddingPacket(now: UInt64) -> (sequenceNumber: UInt16, timestamp: UInt32) {
        lastSequenceNumber &+= 1
        isAwaitingResync = true
        return (lastSequenceNumber, timestamp(at: now))
    }

    /// The consumer's sequence number and timestamp for a producer packet being forwarded to it, or
    /// nil when the packet predates the current run and must be dropped.
    /// - Parameter encoding: The producer encoding the packet belongs to; a run forwards one.
    mutating func rewrite(
        sequenceNumber: UInt16, timestamp: UInt32, encoding: UInt8 = 0, now: UInt64
    ) -> (sequenceNumber: UInt16, timestamp: UInt32)? {
        if isAwaitingResync {
            self.encoding = encoding
            return startRun(sequenceNumber: sequenceNumber, timestamp: timestamp, now: now)
        }
        let unwrapped = producerSequence.peek(sequenceNumber)
        guard unwrapped >= runStart else {
            droppedBeforeRunCount += 1
            return nil
        }
        let outgoing = (sequenceNumber &+ sequenceNumberOffset, timestamp &+ timestampOffset)
        remember(outgoing.0, producer: sequenceNumber)
        // Only the newest packet moves the "last" values: a reordered one must not pull them back,
        // or the next resync would reuse sequence numbers and sender reports would run behind.
        let newest = producerSequence.lastUnwrapped ?? .min
        if unwrapped > newest {
            if newest != .min { skippedCount &+= UInt64(unwrapped - newest - 1) }
            _ = producerSequence.unwrap(sequenceNumber)
            lastSequenceNumber = outgoing.0
            lastTimestamp = outgoing.1
            lastForwardedAt = now
        } else if skippedCount > 0 {
            skippedCount -= 1
        }
        return outgoing
    }

    /// What went out under a sequence number a subscriber NACKed, or nil when nothing the router
    /// still knows did. With a history, any recent number maps back, whichever run (and layer) sent
    /// it; without one, only numbers of the current run do (the offset is all there is).
    func forwardedPacket(forConsumer sequenceNumber: UInt16) -> ForwardedPacket? {
        if keepsHistory {
            guard lastSequenceNumber &- sequenceNumber < Self.historySize,
                let entry = history[Int(sequenceNumber) % Self.historySize], entry.sequenceNumber == sequenceNumber
            else { return nil }
            return entry
        }
        // Until a new run starts, the previous run's mapping is still the one the subscriber saw.
        guard let newest = producerSequence.lastUnwrapped else { return nil }
        let producer = sequenceNumber &- sequenceNumberOffset
        let unwrapped = producerSequence.peek(producer)
        guard unwrapped >= runStart, unwrapped <= newest else { return nil }
        return ForwardedPacket(
            sequenceNumber: sequenceNumber, producerSequenceNumber: producer, encoding: encoding, timestampOffset: timestampOffset)
    }

    /// Records the VP8 picture numbers the packet sent as `sequenceNumber` went out with, so a
    /// resend carries the same ones.
    mutating func recordPicture(sequenceNumber: UInt16, pictureID: UInt16, tl0PictureIndex: UInt8?) {
        let slot = Int(sequenceNumber) % Self.historySize
        guard keepsHistory, history[slot]?.sequenceNumber == sequenceNumber else { return }
        history[slot]!.pictureID = pictureID
        history[slot]!.tl0PictureIndex = tl0PictureIndex
    }

    /// The outgoing RTP timestamp that corresponds to `now`, extrapolated from the newest forwarded
    /// packet at the clock rate; pairs with the NTP time of `now` in a sender report. Before the first
    /// packet it is `lastTimestamp`, but no sender report should be sent before anything was.
    func timestamp(at now: UInt64) -> UInt32 {
        guard let forwardedAt = lastForwardedAt else { return lastTimestamp }
        return lastTimestamp &+ ticks(from: forwardedAt, to: now)
    }

    // MARK: - Private

    private mutating func startRun(sequenceNumber: UInt16, timestamp: UInt32, now: UInt64) -> (sequenceNumber: UInt16, timestamp: UInt32) {
        let outgoingSequenceNumber = lastSequenceNumber &+ 1
        let outgoingTimestamp: UInt32
        if let forwardedAt = lastForwardedAt {
            // At least one tick, so the receiver never sees two frames with the same timestamp.
            outgoingTimestamp = lastTimestamp &+ max(1, ticks(from: forwardedAt, to: now))
            timestampOffset = outgoingTimestamp &- timestamp
        } else {
            // The first run keeps the offset given at init (random by default).
            outgoingTimestamp = timestamp &+ timestampOffset
        }
        sequenceNumberOffset = outgoingSequenceNumber &- sequenceNumber
        remember(outgoingSequenceNumber, producer: sequenceNumber)
        producerSequence = SequenceNumberUnwrapper()
        runStart = producerSequence.unwrap(sequenceNumber)
        isAwaitingResync = false
        lastSequenceNumber = outgoingSequenceNumber
        lastTimestamp = outgoingTimestamp
        lastForwardedAt = now
        return (outgoingSequenceNumber, outgoingTimestamp)
    }

    @inline(__always)
    private mutating func remember(_ outgoing: UInt16, producer: UInt16) {
        guard keepsHistory else { return }
        history[Int(outgoing) % Self.historySize] = ForwardedPacket(
            sequenceNumber: outgoing, producerSequenceNumber: producer, encoding: encoding, timestampOffset: timestampOffset)
    }

    /// Clock-rate ticks in the wall time from `start` to `end`, rounded to the nearest tick and
    /// truncated to 32 bits (RTP timestamps wrap). Whole seconds and the remainder are converted
    /// apart so that the product cannot overflow however long the pause.
    private func ticks(from start: UInt64, to end: UInt64) -> UInt32 {
        guard end > start else { return 0 }
        let nanoseconds = end - start
        let perSecond: UInt64 = 1_000_000_000
        let rate = UInt64(clockRate)
        let whole = (nanoseconds / perSecond) &* rate
        let fraction = ((nanoseconds % perSecond) * rate + perSecond / 2) / perSecond
        return UInt32(truncatingIfNeeded: whole &+ fraction)
    }
}
