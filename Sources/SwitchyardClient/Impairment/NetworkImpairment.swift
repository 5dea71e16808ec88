/// What one direction of a client's network does to its packets. `clean` does nothing.
///
/// Loss follows a two-state (Gilbert) model: `loss` is the long-run share of packets lost and
/// `meanBurstPackets` how many are lost in a row on average; 1 means independent random loss.
/// A `bandwidth` cap serialises packets at that rate behind a queue that holds at most
/// `queueMilliseconds` of traffic, dropping from the tail like a router's buffer. `delay` and `jitter`
/// (uniform in ±jitter) are added after the queue; packets never overtake each other.
public struct NetworkImpairment: Codable, Equatable, Sendable, CustomStringConvertible {
    public var loss: Double
    public var meanBurstPackets: Double
    public var delayMilliseconds: Double
    public var jitterMilliseconds: Double
    /// Bits per second; 0 is unlimited.
    public var bandwidth: Int
    public var queueMilliseconds: Double

    public init(
        loss: Double = 0, meanBurstPackets: Double = 1, delayMilliseconds: Double = 0, jitterMilliseconds: Double = 0,
        bandwidth: Int = 0, queueMilliseconds: Double = 200
    ) {
        self.loss = loss
        self.meanBurstPackets = meanBurstPackets
        self.delayMilliseconds = delayMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.bandwidth = bandwidth
        self.queueMilliseconds = queueMilliseconds
    }

    public static let clean = NetworkImpairment()

    public var isClean: Bool { loss == 0 && delayMilliseconds == 0 && jitterMilliseconds == 0 && bandwidth == 0 }

    /// The problem with these values, or nil when they are usable.
    public var problem: String? {
        if !(0...1).contains(loss) { return "loss \(loss) is outside 0...1" }
        if !(meanBurstPackets >= 1) { return "burst \(meanBurstPackets) is below 1 packet" }
        if !(delayMilliseconds >= 0) || !(jitterMilliseconds >= 0) { return "delay and jitter cannot be negative" }
        if jitterMilliseconds > delayMilliseconds { return "jitter \(jitterMilliseconds) ms exceeds delay \(delayMilliseconds) ms" }
        if bandwidth < 0 { return "rate cannot be negative" }
        if !(queueMilliseconds > 0) { return "queue must be longer than 0 ms" }
        return nil
    }

    /// `clean`, or comma-separated settings: `loss=0.3`, `burst=4` (packets), `delay=40ms`,
    /// `jitter=10ms`, `rate=300kbps` (or `bps`, `mbps`), `queue=200ms`.
    public init(parsing text: String) throws(ImpairmentParseError) {
        self.init()
        let trimmed = text.trimmingWhitespace
        guard trimmed != "clean", !trimmed.isEmpty else { return }
        for part in trimmed.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace }
            guard pieces.count == 2 else { throw .malformedSetting(String(part)) }
            let (key, value) = (pieces[0], pieces[1])
            switch key {
            case "loss": loss = try Self.number(value, key: key, unit: "")
            case "burst": meanBurstPackets = try Self.number(value, key: key, unit: "")
            case "delay": delayMilliseconds = try Self.number(value, key: key, unit: "ms")
            case "jitter": jitterMilliseconds = try Self.number(value, key: key, unit: "ms")
            case "queue": queueMilliseconds = try Self.number(value, key: key, unit: "ms")
            case "rate": bandwidth = try Self.rate(value)
            default: throw .unknownSetting(key)
            }
        }
        if let problem { throw .invalidValue(problem) }
    }

    public var description: String {
        if isClean { return "clean" }
        var parts: [String] = []
        if loss > 0 { parts.append("loss=\(loss)") }
        if meanBurstPackets != 1 { parts.append("burst=\(meanBurstPackets)") }
        if delayMilliseconds > 0 { parts.append("delay=\(delayMilliseconds)ms") }
        if jitterMilliseconds > 0 { parts.append("jitter=\(jitterMilliseconds)ms") }
        if bandwidth > 0 { parts.append("rate=\(bandwidth)bps") }
        if bandwidth > 0, queueMilliseconds != 200 { parts.append("queue=\(queueMilliseconds)ms") }
        return parts.joined(separator: ",")
    }

    private static func number(_ text: String, key: String, unit: String) throws(ImpairmentParseError) -> Double {
        let digits = unit.isEmpty || !text.hasSuffix(unit) ? Substring(text) : text.dropLast(unit.count)
        guard let value = Double(digits), value.isFinite else { throw .badNumber(key: key, value: text) }
        return value
    }

    private static func rate(_ text: String) throws(ImpairmentParseError) -> Int {
        let lowered = text.lowercased()
        for (suffix, scale) in [("mbps", 1_000_000.0), ("kbps", 1000.0), ("bps", 1.0)] where lowered.hasSuffix(suffix) {
            guard let value = Double(lowered.dropLast(suffix.count)), value.isFinite, value >= 0 else { break }
            return Int(value * scale)
        }
        throw .badNumber(key: "rate", value: text)
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
