import Foundation
import SignalingProtocol
import SwitchyardClient
import Testing

/// Archives in a cluster (docs/archiving.md#in-a-cluster).
extension ClusterTests {
    /// The session's node records; the archive list lives in the cluster's database, so any node
    /// lists and describes it, and a delete through another node reaches the one with the files.
    @Test func theSessionsNodeRecordsAndEveryNodeListsAndDeletesItsArchives() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2)
        let loop = try MediaLoop()
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        let carol = try await join(a.webSocketURL, "recorded", .publisher, token: a, loop: loop)
        _ = try await carol.publish(PublisherSettings(name: "camera", media: ClientEndToEndTests.media))
        #expect(try cluster.holder(of: "recorded") == "node-a")
        let rest = try await b.restToken()
        let started = try await b.http(
            "POST", "/v1/sessions/recorded/archives", token: rest, body: #"{"name": "across"}"#)
        #expect(started.status == 201, "started through node b, recorded by node a")
        let archive = try JSONDecoder().decode(ArchiveInfo.self, from: started.body)
        try await Task.sleep(for: .seconds(2))
        let stopped = try await b.http("POST", "/v1/sessions/recorded/archives/\(archive.id)/stop", token: rest)
        #expect(try JSONDecoder().decode(ArchiveInfo.self, from: stopped.body).status == .available)
        let files = a.configuration.archives!.directory + "/\(archive.id)"
        #expect(FileManager.default.fileExists(atPath: files + "/manifest.json"), "the files are on node a")
        #expect(!FileManager.default.fileExists(atPath: b.configuration.archives!.directory + "/\(archive.id)"))

        // The catalog is written behind the archive's own manifest: node b sees it soon after.
        var listed: ArchiveList?
        let caughtUp = await eventually(.seconds(10)) {
            listed = try? JSONDecoder().decode(
                ArchiveList.self, from: try await b.http("GET", "/v1/archives?sessionId=recorded", token: rest).body)
            return listed?.items.first?.status == .available
        }
        #expect(caughtUp)
        #expect(listed?.count == 1 && listed?.items.first?.id == archive.id && listed?.items.first?.files.count == 1)
        let described = try await b.http("GET", "/v1/archives/\(archive.id)", token: rest)
        #expect(described.status == 200)
        #expect(try JSONDecoder().decode(ArchiveInfo.self, from: described.body).name == "across")

        #expect(try await b.http("DELETE", "/v1/archives/\(archive.id)", token: rest).status == 204)
        #expect(!FileManager.default.fileExists(atPath: files), "node a deleted the files")
        #expect(try await b.http("GET", "/v1/archives/\(archive.id)", token: rest).status == 404)
        #expect(
            try JSONDecoder().decode(ArchiveList.self, from: try await a.http("GET", "/v1/archives", token: rest).body)
                .count == 0)
        await carol.disconnect()
        await loop.stop()
        await cluster.stop()
    }
}
