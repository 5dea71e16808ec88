import SignalingProtocol

/// The reference platform's limits on signals.
public enum SignalRules {
    public static let maximumTypeCharacters = 128
    public static let maximumDataBytes = 8192
    public static let maximumSignalIdCharacters = 64

    /// Checks a signal's `type` and `data`, naming what is wrong; `root` is where the two fields are
    /// (`params` in a WebSocket request, `body` in a REST one).
    public static func validate(type: String, data: String, signalId: String? = nil, at root: String = "params") throws(SignalingError) {
        guard type.count <= maximumTypeCharacters else {
            throw .invalidParams("\(root).type", "has \(type.count) characters; the limit is \(maximumTypeCharacters)")
        }
        if let bad = type.unicodeScalars.first(where: { !isAllowed($0) }) {
            throw .invalidParams("\(root).type", "contains \"\(bad)\"; only A-Z a-z 0-9 - _ ~ are allowed")
        }
        if let signalId {
            guard (1...maximumSignalIdCharacters).contains(signalId.unicodeScalars.count) else {
                throw .invalidParams("\(root).signalId", "has \(signalId.unicodeScalars.count) characters; it must have 1 to \(maximumSignalIdCharacters)")
            }
            if let bad = signalId.unicodeScalars.first(where: { !isAllowed($0) }) {
                throw .invalidParams("\(root).signalId", "contains \"\(bad)\"; only A-Z a-z 0-9 - _ ~ are allowed")
            }
        }
        let bytes = data.utf8.count
        guard bytes <= maximumDataBytes else {
            throw .invalidParams("\(root).data", "is \(bytes) bytes; the limit is \(maximumDataBytes)")
        }
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_", "~": true
        default: false
        }
    }
}
