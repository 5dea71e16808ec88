import Testing

@testable import SessionDescription

/// H.264's profile-level-id read as libwebrtc reads it: profile_idc with the constraint flags.
@Suite struct H264ProfileLevelIDTests {
    @Test(arguments: [
        ("42e01f", H264ProfileLevelID.Profile.constrainedBaseline), ("42c01f", .constrainedBaseline), ("4d801f", .constrainedBaseline),
        ("58c01f", .constrainedBaseline), ("42001f", .baseline), ("58801f", .baseline), ("4d001f", .main), ("640c1f", .constrainedHigh),
        ("64001f", .high), ("f4001f", .predictiveHigh444), ("42E01F", .constrainedBaseline),
    ])
    func theProfileIsProfileIDCWithTheConstraintFlags(text: String, profile: H264ProfileLevelID.Profile) throws {
        let parsed = try H264ProfileLevelID(parsing: text)
        #expect(parsed.profile == profile)
        #expect(parsed.level == H264ProfileLevelID.Level(tenfold: 31, isOneB: false))
        #expect(parsed.description == text.lowercased())
    }

    @Test(arguments: ["", "42e01", "42e01f0", "zze01f", "+2e01f", "000000", "6e001f", "64081f", "42e0ff", "42e000"])
    func whatNamesNoProfileOrLevelIsRefusedSayingWhat(text: String) {
        let error = #expect(throws: SDPError.self) { try H264ProfileLevelID(parsing: text) }
        #expect(error?.reason.hasPrefix("profile-level-id \(text) ") == true, "\(String(describing: error))")
    }

    @Test func level1bIsConstraintSet3AtLevel11InBaselineAndMainAnd9InHigh() throws {
        #expect(try H264ProfileLevelID(parsing: "42f00b").level == .oneB)
        #expect(try H264ProfileLevelID(parsing: "4d100b").level == .oneB)
        #expect(try H264ProfileLevelID(parsing: "640009").level == .oneB)
        #expect(try H264ProfileLevelID(parsing: "42e00b").level.description == "1.1")
        #expect(try H264ProfileLevelID(parsing: "42e00b").at(.oneB).description == "42f00b")
        #expect(try H264ProfileLevelID(parsing: "42f00b").at(H264ProfileLevelID.Level(tenfold: 11, isOneB: false)).description == "42e00b")
        #expect(try H264ProfileLevelID(parsing: "42001f").at(.oneB).profile == .baseline)
        let levels = try ["42e00a", "42f00b", "42e00b", "42e01f", "42e034"].map { try H264ProfileLevelID(parsing: $0).level }
        #expect(levels.map(\.description) == ["1", "1b", "1.1", "3.1", "5.2"])
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func aDecoderPlaysItsOwnProfileAndThoseItContains() {
        #expect(H264ProfileLevelID.Profile.allCases.allSatisfy { $0.plays($0) && $0.plays(.constrainedBaseline) })
        #expect(H264ProfileLevelID.Profile.baseline.plays(.constrainedBaseline))
        #expect(!H264ProfileLevelID.Profile.constrainedBaseline.plays(.baseline), "slice groups and redundant slices")
        #expect(!H264ProfileLevelID.Profile.main.plays(.baseline) && !H264ProfileLevelID.Profile.high.plays(.baseline))
        #expect(H264ProfileLevelID.Profile.high.plays(.main) && H264ProfileLevelID.Profile.high.plays(.constrainedHigh))
        #expect(!H264ProfileLevelID.Profile.constrainedHigh.plays(.main), "B slices")
        #expect(!H264ProfileLevelID.Profile.main.plays(.high), "the 8x8 transform")
    }

    @Test func formatParametersReadTheModeAndProfileWithRFCAndWebRTCDefaults() throws {
        let none = try H264FormatParameters(parsing: nil)
        #expect(none.packetizationMode == "0" && none.profileLevelID == .webRTCDefault && !none.levelAsymmetryAllowed)
        let obs = try H264FormatParameters(parsing: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d0032")
        #expect(obs.packetizationMode == "1" && obs.profileLevelID.profile == .main && obs.levelAsymmetryAllowed)
        #expect(throws: SDPError.self) { try H264FormatParameters(parsing: "packetization-mode=1;profile-level-id=nonsense") }
    }

    @Test func theAnswerKeepsTheOffersProfileAndTakesTheStreamsLevelOnlyWhenBothAllowAsymmetry() throws {
        let stream = try H264FormatParameters(parsing: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        let asymmetric = try H264FormatParameters(parsing: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42c034")
        #expect(stream.answerProfileLevelID(to: asymmetric).description == "42c01f")
        let higher = try H264FormatParameters(parsing: "packetization-mode=1;profile-level-id=42c034")
        #expect(stream.answerProfileLevelID(to: higher).description == "42c01f")
        let lower = try H264FormatParameters(parsing: "packetization-mode=1;profile-level-id=42000d")
        #expect(stream.answerProfileLevelID(to: lower).description == "42000d")
        #expect(
            H264FormatParameters.setting(try H264ProfileLevelID(parsing: "42c01f"), in: "level-asymmetry-allowed=1;profile-level-id=42c034;packetization-mode=1")
                == "level-asymmetry-allowed=1;profile-level-id=42c01f;packetization-mode=1")
        #expect(H264FormatParameters.setting(.webRTCDefault, in: "packetization-mode=1") == "packetization-mode=1")
        #expect(H264FormatParameters.setting(try H264ProfileLevelID(parsing: "4d001f"), in: "packetization-mode=1") == "packetization-mode=1;profile-level-id=4d001f")
    }
}
