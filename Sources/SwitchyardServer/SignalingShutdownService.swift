import MediaRouter
import ServiceLifecycle
import Signaling

/// On graceful shutdown, before the HTTP server stops: tells every client why it is being
/// disconnected, closes their connections and the media plane's routers and workers.
struct SignalingShutdownService: Service {
    let signaling: SignalingServer
    let media: MediaPlane
    let drainTime: Duration

    func run() async throws {
        try? await gracefulShutdown()
        await signaling.shutdown(drainTime: drainTime)
        media.shutdown()
    }
}
