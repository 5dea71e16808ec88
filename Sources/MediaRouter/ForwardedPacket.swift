/// What a consumer sent under one of its sequence numbers, so that a subscriber's NACK for it is
/// answered with the same packet, whichever run or simulcast layer it belonged to: the producer
/// packet (its encoding and sequence number), the offset that turned its timestamp into the one
/// sent, and the VP8 picture numbers it went out with when the consumer rewrote them.
struct ForwardedPacket: Equatable, Sendable {
    /// The consumer's sequence number.
    var sequenceNumber: UInt16
    var producerSequenceNumber: UInt16
    /// The producer encoding (simulcast layer) the packet came from; 0 for one encoding.
    var encoding: UInt8
    /// Sent timestamp = producer timestamp + this (the offset of the run it was sent in).
    var timestampOffset: UInt32
    /// The PictureID and TL0PICIDX the packet went out with; nil when they were not rewritten.
    var pictureID: UInt16?
    var tl0PictureIndex: UInt8?
}
