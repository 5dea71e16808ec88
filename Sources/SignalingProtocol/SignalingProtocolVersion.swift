/// The protocol version every message carries in `v`. A server answers a message of another version
/// with `unsupportedVersion`.
public enum SignalingProtocolVersion {
    public static let current = 1
}
