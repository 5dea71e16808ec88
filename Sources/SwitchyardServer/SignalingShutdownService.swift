import Archiving
import Cluster
import Foundation
import MediaRouter
import ServiceLifecycle
import Signaling

/// On graceful shutdown, before the HTTP server stops: tells every client why it is being
/// disconnected, closes their connections and the media plane's routers and workers.
struct SignalingShutdownService: Service {
    let signaling: SignalingServer
    let media: MediaPlane
    let drainTime: Duration
    /// In a cluster, the node is marked draining and gives up its placements before its clients are
    /// told to connect again, so they land on another node.
    let cluster: ClusterNode?
    /// Told that the node drains, in a cluster.
    let webhooks: (any SessionActivitySink)?
    /// Its archives' last descriptions reach the cluster's catalog before the node leaves.
    let archives: ArchiveStore?

    func run() async throws {
        try? await gracefulShutdown()
        if let cluster {
            await cluster.beginDrain()
            let sessions = await signaling.directory.counts().sessions
            webhooks?.record(
                SessionActivity(
                    sessionId: nil, event: .nodeDraining(NodeDraining(nodeId: cluster.nodeId, sessions: sessions)),
                    time: Int64(Date().timeIntervalSince1970 * 1000)))
        }
        await signaling.shutdown(drainTime: drainTime, reason: cluster == nil ? .serverShutdown : .nodeDraining)
        await archives?.flushCatalog()
        media.shutdown()
    }
}
