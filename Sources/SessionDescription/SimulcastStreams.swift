/// The send direction of `a=simulcast` (RFC 8853 section 5.1), such as `send q;h;~f` or
/// `send 1,2;3 recv 4`: one entry per simulcast stream, each the first of its alternatives, with
/// the `~` that pauses it removed (a paused stream is still a layer the publisher may start).
public struct SimulcastStreams: Sendable, Equatable {
    public var send: [String]

    public init(send: [String]) {
        self.send = send
    }

    public init(parsing value: String) throws(SDPError) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard let sendIndex = fields.firstIndex(of: "send"), sendIndex + 1 < fields.count else {
            throw SDPError(reason: "a=simulcast has no send streams (expected send <rid>;<rid>...)")
        }
        var streams: [String] = []
        for stream in fields[sendIndex + 1].split(separator: ";", omittingEmptySubsequences: false) {
            let first = stream.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
            let id = first.hasPrefix("~") ? first.dropFirst() : first
            guard !id.isEmpty else { throw SDPError(reason: "a=simulcast has an empty stream id in \"\(fields[sendIndex + 1])\"") }
            guard !streams.contains(String(id)) else { throw SDPError(reason: "a=simulcast names rid \(id) twice") }
            streams.append(String(id))
        }
        send = streams
    }
}
