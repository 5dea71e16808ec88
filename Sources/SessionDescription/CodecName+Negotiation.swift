import MediaControl

/// What negotiation needs of the codecs the router forwards beyond `CodecName` itself. A codec with no
/// rule of its own is chosen by its encoding name and clock rate and named by its encoding name, so a
/// new `CodecName` case is offered and accepted without a change here.
extension CodecName {
    /// Of `codecs`, those an m-section of `kind` (`audio`, `video`) can carry, in the same order.
    static func carried(in kind: String, among codecs: [CodecName] = allCases) -> [CodecName] {
        codecs.filter { $0.kind.rawValue == kind }
    }

    /// The codec as a refusal names what the router would have taken.
    var spelledOut: String {
        switch self {
        case .opus: "Opus"
        case .h264: "H.264 in packetization mode 1"
        default: encodingName
        }
    }

    /// `codecs` spelled out as alternatives: "VP8 or H.264 in packetization mode 1".
    static func alternatives(_ codecs: [CodecName]) -> String {
        let names = codecs.map(\.spelledOut)
        guard let last = names.last, names.count > 1 else { return names.first ?? "none" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
