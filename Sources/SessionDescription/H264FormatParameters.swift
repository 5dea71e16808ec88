/// What an H.264 format's `a=fmtp` (RFC 6184 section 8.1) says about whether two ends can exchange
/// it: the packetization mode, which both must use, and the profile and level.
public struct H264FormatParameters: Sendable, Equatable {
    /// `packetization-mode`; 0 when absent.
    public var packetizationMode: String
    /// `profile-level-id`; libwebrtc's Constrained Baseline 3.1 when absent.
    public var profileLevelID: H264ProfileLevelID
    /// `level-asymmetry-allowed=1`.
    public var levelAsymmetryAllowed: Bool

    /// Reads `a=fmtp` parameters such as `level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f`;
    /// nil reads as a format without parameters. Throws when the profile-level-id does not parse.
    public init(parsing parameters: String?) throws(SDPError) {
        let value = { (name: String) in parameters.flatMap { SDPAttributeValue.formatParameter(named: name, in: $0) } }
        packetizationMode = value("packetization-mode") ?? "0"
        profileLevelID = try value("profile-level-id").map { text throws(SDPError) in try H264ProfileLevelID(parsing: text) } ?? .webRTCDefault
        levelAsymmetryAllowed = value("level-asymmetry-allowed") == "1"
    }

    /// The profile-level-id to answer `offered` with, sending a stream of these parameters in it
    /// (RFC 6184 section 8.2.2, as libwebrtc's `H264GenerateProfileLevelIdForAnswer` reads it): the
    /// offer's profile as written; the stream's level when both allow level asymmetry, otherwise the
    /// lower of the two, since without asymmetry an answer may not raise the offer's level.
    public func answerProfileLevelID(to offered: H264FormatParameters) -> H264ProfileLevelID {
        let symmetric = !(levelAsymmetryAllowed && offered.levelAsymmetryAllowed)
        return offered.profileLevelID.at(symmetric ? min(profileLevelID.level, offered.profileLevelID.level) : profileLevelID.level)
    }

    /// `parameters` with `profile-level-id` set to `profileLevelID`, every other parameter as written.
    /// Parameters without one keep none when `profileLevelID` is what its absence means.
    public static func setting(_ profileLevelID: H264ProfileLevelID, in parameters: String) -> String {
        var pairs = parameters.split(separator: ";").map(String.init)
        let written = "profile-level-id=\(profileLevelID)"
        if let index = pairs.firstIndex(where: { $0.split(separator: "=").first?.trimmingSpaces() == "profile-level-id" }) {
            pairs[index] = written
        } else if profileLevelID != .webRTCDefault {
            pairs.append(written)
        }
        return pairs.joined(separator: ";")
    }
}
