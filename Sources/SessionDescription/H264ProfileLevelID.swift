/// H.264's `profile-level-id` (RFC 6184 section 8.1): three bytes in hex.
///
/// ```
///  profile_idc   profile-iop   level_idc
/// +-----------+ +-----------+ +-----------+
/// | 0x42      | |1 1 1 0 0 0| | 0x1f      |    42e01f
/// +-----------+ +-----------+ +-----------+
///               cs0 ... cs5 + 2 reserved bits
/// ```
///
/// The profile is profile_idc read together with the constraint_set flags of profile-iop, from the
/// table libwebrtc matches formats with (`h264_profile_level_id.cc`), so that `42e01f` and `42c01f`
/// are both Constrained Baseline and `42001f` is Baseline: the first byte alone cannot tell them apart.
public struct H264ProfileLevelID: Sendable, Equatable, CustomStringConvertible {
    /// The profiles WebRTC stacks negotiate.
    public enum Profile: Sendable, Equatable, CaseIterable, CustomStringConvertible {
        case constrainedBaseline, baseline, main, constrainedHigh, high, predictiveHigh444

        /// Whether a decoder of this profile plays every stream of `stream`'s (H.264 Annex A.2):
        /// Constrained Baseline is the subset of Baseline and Main that every decoder here plays;
        /// Baseline's slice groups and Main's B slices and CABAC are not in each other's decoders.
        public func plays(_ stream: Profile) -> Bool {
            switch self {
            case .constrainedBaseline: stream == .constrainedBaseline
            case .baseline: stream == .constrainedBaseline || stream == .baseline
            case .main: stream == .constrainedBaseline || stream == .main
            case .constrainedHigh: stream == .constrainedBaseline || stream == .constrainedHigh
            case .high: stream != .baseline && stream != .predictiveHigh444
            case .predictiveHigh444: stream != .baseline
            }
        }

        public var description: String {
            switch self {
            case .constrainedBaseline: "Constrained Baseline"
            case .baseline: "Baseline"
            case .main: "Main"
            case .constrainedHigh: "Constrained High"
            case .high: "High"
            case .predictiveHigh444: "High 4:4:4 Predictive"
            }
        }
    }

    /// A level of H.264 Annex A. Level 1b, between 1 and 1.1, is written as level_idc 11 with the
    /// constraint_set3 flag in the Baseline, Main and Extended profiles, and as level_idc 9 in the others.
    public struct Level: Sendable, Equatable, Comparable, CustomStringConvertible {
        /// Ten times the level number (31 for 3.1), and 10 for 1b.
        public var tenfold: UInt8
        public var isOneB: Bool

        public static let oneB = Level(tenfold: 10, isOneB: true)

        public static func < (lhs: Level, rhs: Level) -> Bool {
            (lhs.tenfold, lhs.isOneB ? 1 : 0) < (rhs.tenfold, rhs.isOneB ? 1 : 0)
        }

        public var description: String {
            isOneB ? "1b" : tenfold % 10 == 0 ? "\(tenfold / 10)" : "\(tenfold / 10).\(tenfold % 10)"
        }

        static let known: Set<UInt8> = [10, 11, 12, 13, 20, 21, 22, 30, 31, 32, 40, 41, 42, 50, 51, 52, 60, 61, 62]
    }

    public var profileIDC: UInt8
    /// The constraint_set flags as written; with `profileIDC`, they name `profile`.
    public var profileIOP: UInt8
    public var profile: Profile
    public var level: Level

    /// What libwebrtc takes when a format has no `profile-level-id`: Constrained Baseline 3.1, not
    /// RFC 6184's Baseline 1, since WebRTC stacks have announced H.264 without parameters meaning that.
    public static let webRTCDefault = H264ProfileLevelID(
        profileIDC: 0x42, profileIOP: 0xE0, profile: .constrainedBaseline, level: Level(tenfold: 31, isOneB: false))

    /// Reads a value such as `42e01f`. Throws when it is not three bytes in hex, or names a profile or
    /// level outside the table.
    public init(parsing text: some StringProtocol) throws(SDPError) {
        guard text.utf8.count == 6, text.allSatisfy(\.isHexDigit), let numeric = UInt32(text, radix: 16) else {
            throw SDPError(reason: "profile-level-id \(text) is not three bytes in hex")
        }
        let profileIDC = UInt8(numeric >> 16)
        let profileIOP = UInt8(truncatingIfNeeded: numeric >> 8)
        let levelIDC = UInt8(truncatingIfNeeded: numeric)
        guard let profile = Self.patterns.first(where: { $0.idc == profileIDC && profileIOP & $0.mask == $0.bits })?.profile else {
            throw SDPError(
                reason: "profile-level-id \(text) names no profile WebRTC negotiates: "
                    + Profile.allCases.map(\.description).joined(separator: ", "))
        }
        let level: Level
        switch levelIDC {
        case 11 where Self.writesOneBWithConstraintSet3(profileIDC) && profileIOP & Self.constraintSet3 != 0: level = .oneB
        case 9 where !Self.writesOneBWithConstraintSet3(profileIDC): level = .oneB
        case let tenfold where Level.known.contains(tenfold): level = Level(tenfold: tenfold, isOneB: false)
        default: throw SDPError(reason: "profile-level-id \(text) has level_idc \(levelIDC), which is no H.264 level")
        }
        self.init(profileIDC: profileIDC, profileIOP: profileIOP, profile: profile, level: level)
    }

    init(profileIDC: UInt8, profileIOP: UInt8, profile: Profile, level: Level) {
        self.profileIDC = profileIDC
        self.profileIOP = profileIOP
        self.profile = profile
        self.level = level
    }

    /// This profile, as written, at `level`.
    public func at(_ level: Level) -> H264ProfileLevelID {
        var copy = self
        copy.level = level
        if Self.writesOneBWithConstraintSet3(profileIDC) {
            // At level_idc 11 the flag is what tells 1b from 1.1.
            if level.isOneB {
                copy.profileIOP |= Self.constraintSet3
            } else if level.tenfold == 11 {
                copy.profileIOP &= ~Self.constraintSet3
            }
        }
        return copy
    }

    /// Six hex digits, lowercase, as browsers write them.
    public var description: String {
        let levelIDC: UInt8 = level.isOneB ? (Self.writesOneBWithConstraintSet3(profileIDC) ? 11 : 9) : level.tenfold
        return [profileIDC, profileIOP, levelIDC].map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// `Constrained Baseline (42e01f)`, for messages.
    public var spelledOut: String { "\(profile) (\(self))" }

    private static let constraintSet3: UInt8 = 0x10

    private static func writesOneBWithConstraintSet3(_ profileIDC: UInt8) -> Bool {
        profileIDC == 0x42 || profileIDC == 0x4D || profileIDC == 0x58
    }

    /// libwebrtc's table (RFC 6184 section 8.1): profile_idc, and the profile-iop bits `mask` selects
    /// equal to `bits`; the first row that matches names the profile.
    private static let patterns: [(idc: UInt8, mask: UInt8, bits: UInt8, profile: Profile)] = [
        (0x42, 0b0100_1111, 0b0100_0000, .constrainedBaseline),  // x1xx0000
        (0x4D, 0b1000_1111, 0b1000_0000, .constrainedBaseline),  // 1xxx0000
        (0x58, 0b1100_1111, 0b1100_0000, .constrainedBaseline),  // 11xx0000
        (0x42, 0b0100_1111, 0b0000_0000, .baseline),  // x0xx0000
        (0x58, 0b1100_1111, 0b1000_0000, .baseline),  // 10xx0000
        (0x4D, 0b1010_1111, 0b0000_0000, .main),  // 0x0x0000
        (0x64, 0b1111_1111, 0b0000_0000, .high),  // 00000000
        (0x64, 0b1111_1111, 0b0000_1100, .constrainedHigh),  // 00001100
        (0xF4, 0b1111_1111, 0b0000_0000, .predictiveHigh444),  // 00000000
    ]
}
