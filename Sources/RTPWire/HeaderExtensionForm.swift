/// The RFC 8285 header extension forms, identified by the "defined by profile" field.
public enum HeaderExtensionForm: Equatable, Sendable {
    /// Profile 0xBEDE: 1-byte element headers, IDs 1–14, values of 1–16 bytes.
    case oneByte
    /// Profile 0x100X: 2-byte element headers, IDs 1–255, values of 0–255 bytes; X is the
    /// application-defined "appbits" nibble.
    case twoByte(appBits: UInt8)

    public static let oneByteProfile: UInt16 = 0xBEDE
    public static let twoByteProfileMask: UInt16 = 0xFFF0
    public static let twoByteProfile: UInt16 = 0x1000

    /// The form a profile value names, or nil for a non-RFC 8285 profile.
    @inlinable
    public init?(profile: UInt16) {
        if profile == Self.oneByteProfile {
            self = .oneByte
        } else if profile & Self.twoByteProfileMask == Self.twoByteProfile {
            self = .twoByte(appBits: UInt8(profile & 0x000F))
        } else {
            return nil
        }
    }

    /// The profile value that identifies this form on the wire.
    @inlinable
    public var profile: UInt16 {
        switch self {
        case .oneByte: Self.oneByteProfile
        case .twoByte(let appBits): Self.twoByteProfile | UInt16(appBits & 0x0F)
        }
    }

    /// Bytes of header in front of each element's value.
    @inlinable
    public var elementHeaderLength: Int {
        switch self {
        case .oneByte: 1
        case .twoByte: 2
        }
    }

    /// Whether an element with this ID and value length can be written in this form.
    @inlinable
    public func canCarry(id: UInt8, length: Int) -> Bool {
        switch self {
        case .oneByte: id >= 1 && id <= 14 && length >= 1 && length <= 16
        case .twoByte: id >= 1 && length >= 0 && length <= 255
        }
    }
}
