import RTPWire

/// Gives one consumer of a simulcast VP8 track a continuous PictureID and TL0PICIDX across layer
/// switches and dropped temporal layers, as `ConsumerSequenceRewriter` does for sequence numbers:
/// each layer numbers its pictures on its own, and a receiver that saw the numbers jump would take
/// the jump for lost pictures and wait for them (or ask for a key frame).
///
/// Within a run, outgoing = incoming + an offset. A run starts on a key frame (`startRun()` before
/// it); its first picture gets the previous picture's number + 1 and its TL0PICIDX the previous one's
/// + 1 (a key frame is a base-layer picture). A dropped picture moves the offset down by one, so the
/// next picture follows the last forwarded one.
struct VP8PictureRewriter: Sendable {
    private static let pictureIDModulus: UInt16 = 1 << 15

    private var pictureIDOffset: UInt16 = 0
    private var tl0Offset: UInt8 = 0
    /// The outgoing PictureID and TL0PICIDX of the newest forwarded picture.
    private var lastPictureID: UInt16 = UInt16.random(in: 0..<(1 << 15))
    private var lastTL0PictureIndex = UInt8.random(in: .min ... .max)
    /// The incoming PictureID of the newest picture forwarded or dropped in the run.
    private var newestIncoming: UInt16?
    private var isAwaitingRun = true
    /// The outgoing PictureID of recent pictures, by incoming PictureID modulo its size (incoming in
    /// the high half, outgoing in the low): a late packet of an earlier picture (a retransmission, a
    /// reordering) gets the number its picture went out with, even after drops moved the offset.
    private var recent = [UInt32](repeating: .max, count: Self.recentPictures)
    private static let recentPictures = 64

    /// The next forwarded packet starts a run: call with the consumer's sequence `resync()`.
    mutating func startRun() {
        isAwaitingRun = true
        for index in recent.indices { recent[index] = .max }
    }

    /// Rewrites the packet's PictureID and TL0PICIDX in place and returns what it wrote; packets
    /// without a PictureID pass unchanged (nil).
    @discardableResult
    mutating func rewrite(
        _ descriptor: VP8PayloadDescriptor, in payload: UnsafeMutableRawBufferPointer
    ) -> (pictureID: UInt16, tl0PictureIndex: UInt8?)? {
        guard let incoming = descriptor.pictureID else { return nil }
        if isAwaitingRun {
            isAwaitingRun = false
            pictureIDOffset = (lastPictureID &+ 1 &- incoming) % Self.pictureIDModulus
            if let tl0 = descriptor.tl0PictureIndex { tl0Offset = lastTL0PictureIndex &+ 1 &- tl0 }
            newestIncoming = incoming
        }
        let modulus = descriptor.pictureIDWidth?.modulus ?? Self.pictureIDModulus
        let newest = isNewest(incoming, modulus: modulus)
        let slot = Int(incoming) % Self.recentPictures
        let outgoing: UInt16
        if !newest, recent[slot] >> 16 == UInt32(incoming) {
            outgoing = UInt16(truncatingIfNeeded: recent[slot])
        } else {
            outgoing = (incoming &+ pictureIDOffset) % Self.pictureIDModulus
            if newest { recent[slot] = UInt32(incoming) << 16 | UInt32(outgoing) }
        }
        var descriptor = descriptor
        try? descriptor.rewrite(pictureID: outgoing, in: payload)
        var outgoingTL0: UInt8?
        if let tl0 = descriptor.tl0PictureIndex {
            outgoingTL0 = tl0 &+ tl0Offset
            try? descriptor.rewrite(tl0PictureIndex: outgoingTL0!, in: payload)
            if newest { lastTL0PictureIndex = outgoingTL0! }
        }
        if newest {
            newestIncoming = incoming
            lastPictureID = outgoing
        }
        return (outgoing, outgoingTL0)
    }

    /// A picture the consumer does not forward (a temporal layer above its target): the pictures
    /// after it move down one number. Counted once per picture, and only when it is newer than
    /// every picture of the run so far.
    mutating func dropPicture(_ descriptor: VP8PayloadDescriptor) {
        guard !isAwaitingRun, let incoming = descriptor.pictureID, let newest = newestIncoming,
            Self.isNewer(incoming, than: newest, modulus: descriptor.pictureIDWidth?.modulus ?? Self.pictureIDModulus)
        else { return }
        newestIncoming = incoming
        pictureIDOffset = (pictureIDOffset &+ Self.pictureIDModulus &- 1) % Self.pictureIDModulus
    }

    private func isNewest(_ incoming: UInt16, modulus: UInt16) -> Bool {
        guard let newestIncoming else { return true }
        return incoming == newestIncoming || Self.isNewer(incoming, than: newestIncoming, modulus: modulus)
    }

    /// Whether `a` follows `b` within half the PictureID space (`modulus`: 128 or 32768).
    private static func isNewer(_ a: UInt16, than b: UInt16, modulus: UInt16) -> Bool {
        let distance = (a &+ modulus &- b) % modulus
        return distance != 0 && distance < modulus / 2
    }
}
