import SignalingProtocol
import SwitchyardClient

extension DaemonHarness {
    /// A SwitchyardClient session of `sessionId` on this daemon, with a token of `role` (and
    /// `data`), its media on `loop`.
    func client(
        _ sessionId: String, _ role: Role, loop: MediaLoop, data: String = "", reconnectTimeout: Duration? = nil
    ) async throws -> Session {
        var options = SessionOptions(mediaLoop: loop)
        if let reconnectTimeout { options.reconnectTimeout = reconnectTimeout }
        return try await Session.connect(
            url: "ws://127.0.0.1:\(port)/v1/ws", sessionId: sessionId,
            token: try await token(session: sessionId, role: role, data: data),
            options: options)
    }
}

extension SessionError {
    var refusalCode: SignalingErrorCode? {
        if case .refused(let code, _) = self { return code }
        return nil
    }
}

/// The error `body` fails with as the client library reports it, nil when it succeeds.
func sessionFailure<Value>(_ body: () async throws -> Value) async -> SessionError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? SessionError
    }
}
