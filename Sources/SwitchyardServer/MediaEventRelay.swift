import MediaControl
import ServiceLifecycle
import Signaling

/// Carries the media plane's events to the session directory, which tells the clients concerned.
struct MediaEventRelay: Service {
    let media: any MediaControl
    let directory: SessionDirectory

    func run() async throws {
        for await event in media.events.cancelOnGracefulShutdown() {
            if case .transportFailed(let transport, let reason) = event {
                await directory.transportFailed(transport, reason: reason)
            } else {
                await directory.handle(event)
            }
        }
    }
}
