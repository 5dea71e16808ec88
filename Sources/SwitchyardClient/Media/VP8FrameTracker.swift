import RTPWire

/// Puts received VP8 packets back into frames and decides which frames a decoder could use: a frame
/// is complete when its first packet (S=1, partition 0), its marker packet and everything between
/// arrived; it is decodable when it is a key frame or directly follows the last decodable frame. A
/// gap that stays unrepaired for `maximumWait` breaks the chain: frames are dropped until the next
/// key frame, which the receiver then asks for.
///
/// Padding-only packets (the router's bandwidth probes) take sequence numbers but carry no frame; the
/// chain steps over them.
struct VP8FrameTracker {
    struct Frame {
        var timestamp: UInt32
        var first: Int64?
        var last: Int64?
        var isKeyFrame = false
        /// The VP8 PictureID, when the frame's first packet carries one.
        var pictureID: UInt16?
        /// The first packet of this frame that arrived.
        var seen: Int64
        var firstSeenAt: UInt64
    }

    enum Slot: UInt8 {
        case empty, media, padding
    }

    static let window = 2048
    static let maximumPendingFrames = 48
    let maximumWait: UInt64

    private var unwrapper = SequenceNumberUnwrapper()
    private var slots = [Slot](repeating: .empty, count: window)
    private var slotSequence = [Int64](repeating: -1, count: window)
    private var pending: [Frame] = []
    /// The sequence number the next decodable frame must start at; nil until the first key frame.
    private(set) var nextExpected: Int64?
    private(set) var isWaitingForKeyFrame = true

    init(maximumWait: UInt64 = 400_000_000) {
        self.maximumWait = maximumWait
        pending.reserveCapacity(Self.maximumPendingFrames)
    }

    /// Records a packet; returns its unwrapped sequence number.
    mutating func received(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: UInt64) -> Int64 {
        let sequence = unwrapper.unwrap(sequenceNumber)
        let index = Int(sequence & Int64(Self.window - 1))
        if payload.isEmpty {
            mark(index, sequence, .padding)
            return sequence
        }
        mark(index, sequence, .media)
        let descriptor = try? VP8PayloadDescriptor(parsing: payload)
        let frameIndex: Int
        if let found = pending.firstIndex(where: { $0.timestamp == timestamp }) {
            frameIndex = found
        } else {
            if let nextExpected, sequence < nextExpected { return sequence }
            if pending.count == Self.maximumPendingFrames { pending.removeFirst() }
            pending.append(Frame(timestamp: timestamp, seen: sequence, firstSeenAt: now))
            frameIndex = pending.count - 1
        }
        if let descriptor, descriptor.isStartOfFrame {
            pending[frameIndex].first = sequence
            pending[frameIndex].isKeyFrame = descriptor.isKeyFrame
            pending[frameIndex].pictureID = descriptor.pictureID
        }
        if marker { pending[frameIndex].last = sequence }
        return sequence
    }

    private mutating func mark(_ index: Int, _ sequence: Int64, _ slot: Slot) {
        slots[index] = slot
        slotSequence[index] = sequence
    }

    /// The state of one unwrapped sequence number within the window.
    func slot(_ sequence: Int64) -> Slot {
        let index = Int(sequence & Int64(Self.window - 1))
        return slotSequence[index] == sequence ? slots[index] : .empty
    }

    private func isComplete(_ frame: Frame) -> Bool {
        guard let first = frame.first, let last = frame.last, last >= first, last - first < Int64(Self.window) else { return false }
        var sequence = first
        while sequence <= last {
            if slot(sequence) != .media { return false }
            sequence += 1
        }
        return true
    }

    /// Hands each frame that has become decodable to `deliver` (in order), and calls `broken` when
    /// the chain breaks for good.
    mutating func collect(now: UInt64, deliver: (Frame) -> Void, broken: () -> Void) {
        while true {
            skipPadding()
            var best: Frame?
            for frame in pending where isComplete(frame) {
                if let nextExpected, frame.first! < nextExpected { continue }
                if isWaitingForKeyFrame, !frame.isKeyFrame { continue }
                if best == nil || best!.first! > frame.first! { best = frame }
            }
            guard let frame = best else { break }
            if frame.isKeyFrame || frame.first == nextExpected {
                isWaitingForKeyFrame = false
                nextExpected = frame.last! + 1
                pending.removeAll { $0.seen <= frame.last! }
                deliver(frame)
                continue
            }
            // A later frame is complete but the chain has a gap: give NACK time to repair it.
            if let oldest = pending.lazy.map(\.firstSeenAt).min(), now - oldest < maximumWait { break }
            isWaitingForKeyFrame = true
            broken()
        }
        pending.removeAll { now - $0.firstSeenAt > 4 * maximumWait }
    }

    /// Steps the chain over padding packets that sit exactly where the next frame should start.
    private mutating func skipPadding() {
        guard var expected = nextExpected else { return }
        while slot(expected) == .padding { expected += 1 }
        nextExpected = expected
    }

    /// Forgets the chain, as when video was turned off: the next frame must be a key frame.
    mutating func requireKeyFrame() {
        isWaitingForKeyFrame = true
        pending.removeAll()
    }
}
