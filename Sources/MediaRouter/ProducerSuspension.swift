/// Why a producer forwards nothing to its consumers; any one reason is enough.
struct ProducerSuspension: OptionSet {
    let rawValue: UInt8

    /// The publisher's audio-fallback policy turned its video off.
    static let uplinkQuality = ProducerSuspension(rawValue: 1 << 0)
    /// Its publisher, or a moderator, muted it (`MediaControl.setProducerMuted`).
    static let muted = ProducerSuspension(rawValue: 1 << 1)
    /// The router forwards only its loudest audio and this one is not among them.
    static let quieter = ProducerSuspension(rawValue: 1 << 2)
    /// A copy's: its home producer is suspended, for any of the reasons above.
    static let atHome = ProducerSuspension(rawValue: 1 << 3)
}
