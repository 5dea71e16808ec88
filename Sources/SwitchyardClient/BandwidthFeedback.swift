/// What a subscriber tells the router about its downlink, besides receiver reports.
public enum BandwidthFeedback: String, Sendable, CaseIterable {
    /// A REMB with the subscriber's own estimate every report interval (what the router checks
    /// against the delivered rate).
    case receiverEstimate = "remb"
    /// Transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01) every 50 ms about
    /// every packet the router numbered: the router estimates the downlink on its side. No REMB.
    case transportWide = "transport-cc"

    /// The header extension id the subscriber asks the router to number its packets with: clear of
    /// the publishers' abs-send-time (3).
    static let transportWideSequenceID: UInt8 = 5
}
