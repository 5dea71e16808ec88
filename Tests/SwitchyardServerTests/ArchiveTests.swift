import Foundation
import MediaTestSupport
import Signaling
import SignalingProtocol
import SwitchyardClient
import SwitchyardServer
import Testing

/// Individual archives of real libvpx / libopus streams, recorded by a real daemon and checked with
/// FFmpeg's own tools: ffprobe for the streams and durations, ffmpeg decoding every frame.
@Suite(.serialized) struct ArchiveTests {
    static let media: EncodedMedia = try! EncodedMedia(
        settings: MediaSettings(
            videoBitrate: 300_000, audioBitrate: 24_000, width: 256, height: 144, frameRate: 30, loopSeconds: 2))

    private func decode<Value: Decodable>(_ type: Value.Type, _ response: (status: Int, body: Data)) throws -> Value {
        try JSONDecoder().decode(type, from: response.body)
    }

    @Test func recordsEachStreamAsAWebMThatFFmpegDecodesWhole() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let alice = try await harness.client("archive-individual", .publisher, loop: loop, data: "name=alice")
        let bob = try await harness.client("archive-individual", .publisher, loop: loop, data: "name=bob")
        let first = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        let token = try await harness.restToken()

        let started = try decode(
            ArchiveInfo.self,
            try await harness.http(
                "POST", "/v1/sessions/archive-individual/archives", token: token, body: #"{"name": "standup"}"#))
        #expect(started.status == .started && started.name == "standup" && started.outputMode == .individual)
        #expect(await next(bob.events) { $0 == .archiveStarted(ArchiveEvent(id: started.id, name: "standup")) } != nil)
        #expect(bob.archive?.id == started.id, "the recording indicator")
        // A stream published while the archive records gets a file of its own, from its offset.
        try await Task.sleep(for: .seconds(1))
        let second = try await bob.publish(PublisherSettings(name: "camera", media: Self.media))
        let late = try await harness.client("archive-individual", .subscriber, loop: loop)
        #expect(late.archive?.id == started.id, "a client joining a recorded session is told in its connect reply")
        try await Task.sleep(for: .seconds(4))

        let stopped = try decode(
            ArchiveInfo.self,
            try await harness.http("POST", "/v1/sessions/archive-individual/archives/\(started.id)/stop", token: token))
        #expect(stopped.status == .available, "\(stopped)")
        #expect(
            await next(alice.events) {
                if case .archiveStopped(let event) = $0 { event.id == started.id } else { false }
            } != nil)
        #expect(alice.archive == nil)
        #expect(stopped.droppedPackets == 0)
        #expect(abs(stopped.duration - 5) < 0.6, "\(stopped.duration)")
        let files = Dictionary(uniqueKeysWithValues: stopped.files.map { ($0.streamId, $0) })
        let firstFile = try #require(files[first.streamId])
        let secondFile = try #require(files[second.streamId])
        #expect(firstFile.connectionData == "name=alice" && secondFile.connectionData == "name=bob")
        #expect(firstFile.startOffsetMs < 500, "\(firstFile)")
        #expect((900...1600).contains(secondFile.startOffsetMs), "published a second in: \(secondFile)")

        let directory = harness.configuration.archives!.directory + "/" + started.id
        let manifest = try JSONDecoder().decode(
            ArchiveInfo.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/manifest.json")))
        #expect(manifest == stopped)
        for file in [firstFile, secondFile] {
            let probe = try ArchiveProbe(path: directory + "/" + file.name)
            #expect(probe.codecs == ["vp8", "opus"] || probe.codecs == ["opus", "vp8"], "\(probe.codecs)")
            #expect(probe.width == 256 && probe.height == 144)
            let recorded = Double((file.stopOffsetMs ?? 0) - file.startOffsetMs) / 1000
            #expect(abs(probe.duration - recorded) < 0.5, "ffprobe \(probe.duration) s, recorded \(recorded) s")
            #expect(try ArchiveProbe.decodingErrors(path: directory + "/" + file.name) == "")
            #expect(
                file.sizeBytes
                    == (try FileManager.default.attributesOfItem(atPath: directory + "/" + file.name)[.size]
                    as? NSNumber)?.int64Value)
        }
        let listed = try decode(
            ArchiveList.self, try await harness.http("GET", "/v1/archives?sessionId=archive-individual", token: token))
        #expect(listed.count == 1 && listed.items.first?.id == started.id)
        #expect(try await harness.http("DELETE", "/v1/archives/\(started.id)", token: token).status == 204)
        #expect(!FileManager.default.fileExists(atPath: directory))
        #expect(try await harness.http("GET", "/v1/archives/\(started.id)", token: token).status == 404)

        await late.disconnect()
        await bob.disconnect()
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func aStreamWithLossAndAPauseStillDecodesAndStartsOnAKeyFrame() async throws {
        let harness = try await DaemonHarness.start { configuration in configuration.media.faultInjection = true }
        let loop = try MediaLoop()
        let alice = try await harness.client("archive-impaired", .publisher, loop: loop)
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        let token = try await harness.restToken()
        #expect(
            try await harness.http(
                "PUT", "/v1/sessions/archive-impaired/streams/\(publisher.streamId)/fault", token: token,
                body: #"{"dropShare": 0.1}"#
            ).status == 204)
        let started = try decode(
            ArchiveInfo.self, try await harness.http("POST", "/v1/sessions/archive-impaired/archives", token: token))
        try await Task.sleep(for: .seconds(2))
        try await publisher.setPublishVideo(false)
        try await Task.sleep(for: .seconds(1.5))
        try await publisher.setPublishVideo(true)
        try await Task.sleep(for: .seconds(2))
        let stopped = try decode(
            ArchiveInfo.self,
            try await harness.http("POST", "/v1/sessions/archive-impaired/archives/\(started.id)/stop", token: token))
        let file = try #require(stopped.files.first)
        let path = harness.configuration.archives!.directory + "/\(started.id)/\(file.name)"
        let probe = try ArchiveProbe(path: path)
        #expect(probe.firstVideoPacketIsKey, "video starts on a key frame")
        #expect(probe.videoPackets > 60, "\(probe.videoPackets) video frames")
        #expect(abs(probe.duration - Double((file.stopOffsetMs ?? 0) - file.startOffsetMs) / 1000) < 0.5)
        #expect(try ArchiveProbe.decodingErrors(path: path) == "")

        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func badRequestsGetTheirDocumentedErrors() async throws {
        let harness = try await DaemonHarness.start()
        let token = try await harness.restToken()
        let (client, _) = try await harness.connect(session: "archive-errors", role: .publisher)
        #expect(try await harness.http("POST", "/v1/sessions/nowhere/archives", token: token).status == 404)
        for body in [
            #"{"outputMode": "composed", "layout": "spiral"}"#, #"{"outputMode": "composed", "resolution": "99x99"}"#,
            #"{"layout": "grid"}"#, #"{"hasAudio": false, "hasVideo": false}"#, #"{"streamIds": []}"#,
            #"{"outputMode": "mosaic"}"#,
            #"{"name": 7}"#,
        ] {
            let response = try await harness.http(
                "POST", "/v1/sessions/archive-errors/archives", token: token, body: body)
            #expect(response.status == 400, "\(body)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("invalidParams"), "\(body)")
        }
        let started = try decode(
            ArchiveInfo.self, try await harness.http("POST", "/v1/sessions/archive-errors/archives", token: token))
        let twice = try await harness.http("POST", "/v1/sessions/archive-errors/archives", token: token)
        #expect(twice.status == 409 && String(decoding: twice.body, as: UTF8.self).contains(started.id))
        #expect(
            try await harness.http("DELETE", "/v1/archives/\(started.id)", token: token).status == 409,
            "still recording")
        #expect(
            try await harness.http("POST", "/v1/sessions/archive-errors/archives/\(started.id)/stop", token: token)
                .status == 200)
        #expect(
            try await harness.http("POST", "/v1/sessions/archive-errors/archives/\(started.id)/stop", token: token)
                .status == 409)
        #expect(
            try await harness.http("POST", "/v1/sessions/archive-errors/archives/ar_none/stop", token: token).status
                == 404)
        #expect(try await harness.http("GET", "/v1/archives/ar_none", token: token).status == 404)
        #expect(try await harness.http("GET", "/v1/archives?offset=-1", token: token).status == 400)
        #expect(try await harness.http("GET", "/v1/archives", token: nil).status == 401)
        await client.close()
        try await harness.stop()
    }

    @Test func noArchiveStartsOnADiskBelowItsFreeSpaceFloor() async throws {
        let harness = try await DaemonHarness.start { configuration in configuration.archives?.minimumFreeBytes = 1 << 60 }
        let (client, _) = try await harness.connect(session: "archive-full", role: .publisher)
        let refused = try await harness.http("POST", "/v1/sessions/archive-full/archives", token: try await harness.restToken())
        #expect(refused.status == 429)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("archives.minimumFreeBytes"), "\(String(decoding: refused.body, as: UTF8.self))")
        await client.close()
        try await harness.stop()
    }

    @Test func anArchivePastItsSizeCapFailsWithTheReasonAndItsFilesStillPlay() async throws {
        let harness = try await DaemonHarness.start { configuration in
            configuration.archives?.maximumBytesPerArchive = 60_000
        }
        let loop = try MediaLoop()
        let alice = try await harness.client("archive-cap", .publisher, loop: loop)
        _ = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        let token = try await harness.restToken()
        let started = try decode(
            ArchiveInfo.self, try await harness.http("POST", "/v1/sessions/archive-cap/archives", token: token))
        guard
            case .archiveStopped(let event) = await next(
                alice.events, where: { if case .archiveStopped = $0 { true } else { false } })
        else {
            Issue.record("no archiveStopped")
            return
        }
        #expect(event.id == started.id && event.status == .failed && event.reason == .sizeLimit)
        let info = try decode(
            ArchiveInfo.self, try await harness.http("GET", "/v1/archives/\(started.id)", token: token))
        #expect(
            info.status == .failed && info.reason == .sizeLimit
                && info.failureDetail?.contains("maximumBytesPerArchive") == true)
        let file = try #require(info.files.first)
        #expect(
            try ArchiveProbe.decodingErrors(
                path: harness.configuration.archives!.directory + "/\(started.id)/\(file.name)"
            ).isEmpty)
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func aDaemonKilledMidArchiveLeavesFilesThatPlayAndTheArchiveReadsInterruptedAfterARestart() async throws {
        let directory = NSTemporaryDirectory() + "switchyard-archives-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let node = try await KillableNode.start(
            nodeId: "archiver", host: "127.0.0.1", mediaPorts: 47600...47639, database: nil,
            archives: #"{"directory": "\#(directory)", "minimumFreeBytes": 0}"#)
        defer { node.stop() }
        let tokens = await TokenAuthority(
            apiKey: SwitchyardConfiguration.developmentAPIKey, apiSecret: SwitchyardConfiguration.developmentAPISecret,
            restTokenMaximumLifetime: 600)
        let rest = try await tokens.mintRESTToken(lifetime: 60, now: Date())
        let loop = try MediaLoop()
        let alice = try await Session.connect(
            url: node.webSocketURL, sessionId: "archive-crash",
            token: try await tokens.mintClientToken(
                sessionId: "archive-crash", role: .publisher, connectionData: "", lifetime: 600, now: Date()),
            options: SessionOptions(mediaLoop: loop))
        _ = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        let response = try await DaemonHarness.http(
            "POST", url: node.baseURL + "/v1/sessions/archive-crash/archives", token: rest, body: nil, contentType: nil)
        let started = try JSONDecoder().decode(ArchiveInfo.self, from: response.body)
        try await Task.sleep(for: .seconds(4))
        node.kill()

        let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/" + started.id).filter {
            $0.hasSuffix(".webm")
        }
        #expect(files.count == 1)
        for file in files {
            let path = directory + "/\(started.id)/\(file)"
            #expect(try ArchiveProbe.decodingErrors(path: path) == "")
            // Four seconds at 30 frames a second, less at most the last cluster (one second).
            #expect(try ArchiveProbe(path: path).videoPackets >= 60)
        }
        try await node.restart()
        let after = try JSONDecoder().decode(
            ArchiveInfo.self,
            from: try await DaemonHarness.http(
                "GET", url: node.baseURL + "/v1/archives/\(started.id)", token: rest, body: nil, contentType: nil
            ).body)
        #expect(after.status == .failed && after.reason == .interrupted)
        #expect(after.files.count == 1 && after.files.allSatisfy { $0.sizeBytes > 0 }, "\(after.files)")
        // The manifest is rewritten every two seconds while recording: four seconds in, it knew of two.
        #expect(after.duration >= 2, "\(after.duration) s")
        await alice.disconnect()
        await loop.stop()
    }

    @Test func audioAndVideoOfAStreamStayInSyncWithin40Milliseconds() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let alice = try await harness.client("archive-sync", .publisher, loop: loop)
        let marked = try EncodedMedia(
            settings: MediaSettings(
                videoBitrate: 300_000, audioBitrate: 32_000, width: 256, height: 144, frameRate: 30, loopSeconds: 2,
                syncMarks: true))
        _ = try await alice.publish(PublisherSettings(name: "camera", media: marked))
        let token = try await harness.restToken()
        let started = try decode(
            ArchiveInfo.self, try await harness.http("POST", "/v1/sessions/archive-sync/archives", token: token))
        try await Task.sleep(for: .seconds(5))
        let stopped = try decode(
            ArchiveInfo.self,
            try await harness.http("POST", "/v1/sessions/archive-sync/archives/\(started.id)/stop", token: token))
        let file = try #require(stopped.files.first)
        let lag = try #require(
            try ArchiveProbe.audioLagBehindVideo(
                path: harness.configuration.archives!.directory + "/\(started.id)/\(file.name)"))
        print("archive A/V sync: audio \(Int((lag * 1000).rounded())) ms behind video")
        #expect(abs(lag) <= 0.040, "audio \(lag) s behind the video")
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func aComposedArchiveTilesTheVideosAsStreamsComeAndMixesTheAudio() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let alice = try await harness.client("archive-composed", .publisher, loop: loop)
        let bob = try await harness.client("archive-composed", .publisher, loop: loop)
        _ = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        let token = try await harness.restToken()
        let started = try decode(
            ArchiveInfo.self,
            try await harness.http(
                "POST", "/v1/sessions/archive-composed/archives", token: token,
                body: #"{"outputMode": "composed", "resolution": "640x480", "frameRate": 15, "layout": "grid"}"#))
        #expect(started.outputMode == .composed)
        try await Task.sleep(for: .seconds(3))
        _ = try await bob.publish(PublisherSettings(name: "camera", media: Self.media))
        try await Task.sleep(for: .seconds(3))
        let stopped = try decode(
            ArchiveInfo.self,
            try await harness.http("POST", "/v1/sessions/archive-composed/archives/\(started.id)/stop", token: token))
        #expect(stopped.status == .available, "\(stopped)")
        let file = try #require(stopped.files.first)
        #expect(stopped.files.count == 1 && file.name == "composed.webm" && file.streamId == nil)
        let path = harness.configuration.archives!.directory + "/\(started.id)/\(file.name)"
        let probe = try ArchiveProbe(path: path)
        #expect(Set(probe.codecs) == ["vp8", "opus"] && probe.width == 640 && probe.height == 480)
        #expect(abs(probe.duration - stopped.duration) < 1, "ffprobe \(probe.duration) s of \(stopped.duration) s")
        #expect(try ArchiveProbe.decodingErrors(path: path) == "")

        // Alone, Alice's 16:9 picture fills the width: 640x360 at y 60. With Bob, two cells of
        // 320x480 side by side, each picture 320x180 at y 150; above them is black.
        let alone = try ArchiveProbe.luma(path: path, at: 2, width: 640, height: 480)
        #expect(
            ArchiveProbe.meanLuma(alone, width: 640, rows: 0..<56, columns: 0..<640) < 24, "black above the one picture"
        )
        #expect(
            ArchiveProbe.meanLuma(alone, width: 640, rows: 70..<140, columns: 40..<600) > 60, "the picture, full width")
        let together = try ArchiveProbe.luma(path: path, at: stopped.duration - 1, width: 640, height: 480)
        #expect(
            ArchiveProbe.meanLuma(together, width: 640, rows: 70..<140, columns: 0..<640) < 24,
            "black above the two pictures")
        #expect(
            ArchiveProbe.meanLuma(together, width: 640, rows: 160..<320, columns: 10..<310) > 60,
            "Alice's picture, left")
        #expect(
            ArchiveProbe.meanLuma(together, width: 640, rows: 160..<320, columns: 330..<630) > 60,
            "Bob's picture, right")
        let volume = try #require(try ArchiveProbe.meanVolume(path: path))
        #expect(volume > -40, "the mixed audio is there: \(volume) dB")

        await bob.disconnect()
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func aModeratorStartsAndStopsAnArchiveFromTheWebSocketAndOthersMayNot() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let host = try await harness.client("archive-moderated", .moderator, loop: loop)
        let guest = try await harness.client("archive-moderated", .publisher, loop: loop)
        _ = try await guest.publish(PublisherSettings(name: "camera", media: Self.media))
        let refused = await sessionFailure { try await guest.startArchive() }
        #expect(refused?.refusalCode == .forbidden)
        let invalid = await sessionFailure { try await host.startArchive(RESTBody.StartArchive(resolution: "640x480")) }
        #expect(
            invalid?.refusalCode == .invalidParams && "\(invalid!)".contains("params.resolution"),
            "\(String(describing: invalid))")
        let started = try await host.startArchive(RESTBody.StartArchive(name: "from the room"))
        #expect(
            await next(guest.events) { $0 == .archiveStarted(ArchiveEvent(id: started.id, name: "from the room")) }
                != nil)
        try await Task.sleep(for: .seconds(1))
        #expect(await sessionFailure { try await guest.stopArchive(archiveId: started.id) }?.refusalCode == .forbidden)
        let stopped = try await host.stopArchive(archiveId: started.id)
        #expect(stopped.status == .available && stopped.files.count == 1)
        #expect(
            await next(guest.events) {
                if case .archiveStopped(let event) = $0 {
                    event.id == started.id && event.status == .available
                } else {
                    false
                }
            } != nil)
        await guest.disconnect()
        await host.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func aSimulcastStreamIsRecordedAtItsTopLayer() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let alice = try await harness.client("archive-simulcast", .publisher, loop: loop)
        let layered = try EncodedMedia(
            settings: MediaSettings(
                videoBitrate: 600_000, audioBitrate: 24_000, width: 512, height: 288, frameRate: 30, loopSeconds: 2,
                lowerLayers: [VideoLayerSettings(width: 256, height: 144, bitrate: 150_000)]))
        _ = try await alice.publish(PublisherSettings(name: "camera", media: layered))
        // Every layer flowing: a recording started in a simulcast stream's first moments begins on
        // the layers that arrived and moves up with the next key frame.
        try await Task.sleep(for: .seconds(1))
        let token = try await harness.restToken()
        let started = try decode(
            ArchiveInfo.self, try await harness.http("POST", "/v1/sessions/archive-simulcast/archives", token: token))
        try await Task.sleep(for: .seconds(3))
        let stopped = try decode(
            ArchiveInfo.self,
            try await harness.http("POST", "/v1/sessions/archive-simulcast/archives/\(started.id)/stop", token: token))
        let file = try #require(stopped.files.first)
        let path = harness.configuration.archives!.directory + "/\(started.id)/\(file.name)"
        let probe = try ArchiveProbe(path: path)
        #expect(
            probe.width == 512 && probe.height == 288,
            "the top layer: \(String(describing: probe.width))x\(String(describing: probe.height))")
        #expect(try ArchiveProbe.decodingErrors(path: path) == "")
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    /// H.264 as OBS and hardware encoders send it, recorded into Matroska without decoding.
    @Test func anH264StreamIsRecordedIntoMatroskaThatFFmpegDecodes() async throws {
        let harness = try await DaemonHarness.start()
        let stream = try H264TestStream(seconds: 3, width: 320, height: 240)
        let (client, _) = try await harness.connect(session: "archive-h264", role: .publisher)
        let peer = try TestPeer()
        let parameters = PublishParameters(
            name: "obs", videoDimensions: VideoDimensions(width: 320, height: 240),
            video: TrackDescription(codec: .h264, payloadType: H264TestStream.payloadType, ssrc: TestPeer.videoSSRC),
            transport: peer.transportOffer)
        guard case .publish(let published) = try await client.call(.publish(parameters)) else {
            Issue.record("publish refused")
            return
        }
        try peer.accept(try #require(published.transport))
        let token = try await harness.restToken()
        let started = try decode(
            ArchiveInfo.self, try await harness.http("POST", "/v1/sessions/archive-h264/archives", token: token))
        try await stream.send(from: peer, ssrc: TestPeer.videoSSRC)
        try await Task.sleep(for: .milliseconds(500))
        let stopped = try decode(
            ArchiveInfo.self,
            try await harness.http("POST", "/v1/sessions/archive-h264/archives/\(started.id)/stop", token: token))
        let file = try #require(stopped.files.first)
        #expect(file.name == "\(published.stream.streamId).mkv" && file.hasVideo && !file.hasAudio)
        let path = harness.configuration.archives!.directory + "/\(started.id)/\(file.name)"
        let probe = try ArchiveProbe(path: path)
        #expect(probe.codecs == ["h264"] && probe.width == 320 && probe.height == 240, "\(probe.codecs)")
        #expect(probe.firstVideoPacketIsKey)
        #expect(
            probe.videoPackets >= stream.accessUnits.count - 2,
            "\(probe.videoPackets) of \(stream.accessUnits.count) pictures")
        #expect(abs(probe.duration - 3) < 0.5, "\(probe.duration) s")
        #expect(try ArchiveProbe.decodingErrors(path: path) == "")
        await client.close()
        try await harness.stop()
    }
}
