extension SignalingError {
    /// An `invalidParams` error in the one form every such message has: the full path of the field
    /// from the root of what the client sent (`params.video.payloadType` in a WebSocket request,
    /// `body.sessionId` in a REST body), a colon, then what is wrong with it. A problem that concerns
    /// two fields together names their parent (`params: ...`).
    public static func invalidParams(_ path: String, _ problem: String) -> SignalingError {
        SignalingError(.invalidParams, "\(path): \(problem)")
    }
}
