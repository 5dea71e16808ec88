/// The `o=` line: who made the description and which version of the session it is (RFC 8866
/// section 5.2).
public struct SDPOrigin: Sendable, Equatable, CustomStringConvertible {
    /// The originator's login, `-` when there is none (always, for browsers).
    public var username: String
    /// Stays the same for the life of the session.
    public var sessionID: UInt64
    /// Grows each time the writer changes the description.
    public var sessionVersion: UInt64
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(
        username: String = "-", sessionID: UInt64, sessionVersion: UInt64, networkType: String = "IN",
        addressType: String = "IP4", address: String = "0.0.0.0"
    ) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// Reads the value of an `o=` line, such as `- 4611731400430051336 2 IN IP4 127.0.0.1`.
    init(parsing value: String) throws(SDPError) {
        let fields = value.split(separator: " ")
        guard fields.count == 6 else {
            throw SDPError(
                reason: "o= needs <username> <session id> <session version> <network type> <address type> <address>")
        }
        guard let sessionID = UInt64(fields[1]), let sessionVersion = UInt64(fields[2]) else {
            throw SDPError(reason: "o= session id and version must be numbers that fit in 64 bits")
        }
        self.init(
            username: String(fields[0]), sessionID: sessionID, sessionVersion: sessionVersion,
            networkType: String(fields[3]), addressType: String(fields[4]), address: String(fields[5]))
    }

    /// The value of the `o=` line.
    public var description: String {
        "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)"
    }
}
