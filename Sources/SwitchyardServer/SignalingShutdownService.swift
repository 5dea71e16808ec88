import MediaRouter
import ServiceLifecycle
import Signaling
import SignalingProtocol

/// On graceful shutdown, before the HTTP server stops: tells every client why it is being
/// disconnected, closes their connections and the media plane's routers and workers.
struct SignalingShutdownService: Service {
    let directory: SessionDirectory
    let media: MediaPlane

    func run() async throws {
        try? await gracefulShutdown()
        await directory.closeAll(reason: .serverShutdown, message: "the server is shutting down")
        media.shutdown()
    }
}
