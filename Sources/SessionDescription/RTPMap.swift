import MediaControl

/// What a dynamic payload type stands for, from `a=rtpmap` (RFC 8866 section 6.6).
public struct RTPMap: Sendable, Equatable {
    /// The RTP payload type this line maps.
    public var payloadType: UInt8
    /// The encoding name as written, such as `VP8` or `opus`; compare it case-insensitively.
    public var name: String
    /// The RTP clock rate in Hz.
    public var clockRate: UInt32
    /// The audio channel count, when given.
    public var channels: Int?

    public init(payloadType: UInt8, name: String, clockRate: UInt32, channels: Int? = nil) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
    }

    /// Reads an attribute value such as `111 opus/48000/2`.
    init(parsing attributeValue: String) throws(SDPError) {
        let usage = "a=rtpmap needs <payload type> <encoding name>/<clock rate>[/<channels>]"
        let fields = attributeValue.split(separator: " ")
        guard fields.count == 2 else { throw SDPError(reason: usage) }
        let encoding = fields[1].split(separator: "/", omittingEmptySubsequences: false)
        guard encoding.count == 2 || encoding.count == 3, !encoding[0].isEmpty else {
            throw SDPError(reason: usage)
        }
        guard let clockRate = UInt32(encoding[1]), clockRate > 0 else {
            throw SDPError(reason: "clock rate \"\(encoding[1])\" is not a positive number")
        }
        var channels: Int?
        if encoding.count == 3 {
            guard let count = Int(encoding[2]), count > 0 else {
                throw SDPError(reason: "channel count \"\(encoding[2])\" is not a positive number")
            }
            channels = count
        }
        self.init(
            payloadType: try SDPAttributeValue.payloadType(fields[0]), name: String(encoding[0]),
            clockRate: clockRate, channels: channels)
    }

    /// The attribute value: `111 opus/48000/2`.
    var attributeValue: String {
        "\(payloadType) \(name)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }

    /// Whether this maps `name` at `clockRate`; encoding names are case-insensitive (RFC 4855).
    func matches(_ name: String, clockRate: UInt32) -> Bool {
        self.name.lowercased() == name.lowercased() && self.clockRate == clockRate
    }

    /// The `a=rtpmap` and `a=fmtp` of RFC 2198 redundant audio at `payloadType` whose every block is
    /// `primary` (`red/48000/2` with `111/111` for Opus at 111).
    static func redundantAudioLines(payloadType: UInt8, primary: RTPMap) -> [SDPLine] {
        let red = RTPMap(payloadType: payloadType, name: "red", clockRate: primary.clockRate, channels: primary.channels)
        return [.attribute("rtpmap", red.attributeValue), .attribute("fmtp", "\(payloadType) \(primary.payloadType)/\(primary.payloadType)")]
    }

    /// Whether this maps RFC 2198 redundant audio (`red`).
    var isRedundantAudio: Bool { name.lowercased() == "red" }

    /// Whether this maps `codec` at the clock rate it always runs at.
    func matches(_ codec: CodecName) -> Bool {
        matches(codec.encodingName, clockRate: codec.clockRate)
    }
}
