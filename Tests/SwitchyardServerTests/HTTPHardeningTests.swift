import Foundation
import Testing

/// What the HTTP port does with input that is not HTTP, with requests that never finish and with
/// more connections than it allows: every such connection gets an answer and is closed, and the
/// daemon goes on serving everyone else.
@Suite(.serialized) struct HTTPHardeningTests {
    private func statusLine(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
    }

    private func healthAnswers(_ harness: DaemonHarness) async throws -> Bool {
        try await healthAnswers(on: RawTCPClient(port: harness.port))
    }

    private func healthAnswers(on client: RawTCPClient) async throws -> Bool {
        try client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let answer = try await client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains(#"{"status":"ok"}"#) }
        return statusLine(answer.bytes) == "HTTP/1.1 200 OK"
    }

    /// `count` connections, each admitted (it got an answer) and kept open.
    private func heldConnections(_ count: Int, _ harness: DaemonHarness) async throws -> [RawTCPClient] {
        var held: [RawTCPClient] = []
        for _ in 0..<count {
            let client = try RawTCPClient(port: harness.port)
            #expect(try await healthAnswers(on: client))
            held.append(client)
        }
        return held
    }

    @Test(arguments: [
        ("not HTTP", Array("HELLO WORLD\r\n\r\n".utf8), "HTTP/1.1 400 Bad Request"),
        ("random bytes", (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }, "HTTP/1.1 400 Bad Request"),
        ("an HTTP/2 preface", Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), "HTTP/1.1 505 HTTP Version Not Supported"),
        ("a 100 KB header line", Array(("GET /health HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 100_000) + "\r\n\r\n").utf8),
         "HTTP/1.1 431 Request Header Fields Too Large"),
        ("10,000 headers", Array(("GET /health HTTP/1.1\r\n" + (0..<10_000).map { "X-\($0): 1\r\n" }.joined() + "\r\n").utf8),
         "HTTP/1.1 431 Request Header Fields Too Large"),
        ("a folded header line", Array("GET /health HTTP/1.1\r\nHost: a\r\n b\r\n\r\n".utf8), "HTTP/1.1 400 Bad Request"),
    ])
    func garbageIsAnsweredAndClosed(_ name: String, _ input: [UInt8], _ expected: String) async throws {
        let harness = try await DaemonHarness.start()
        let client = try RawTCPClient(port: harness.port)
        try? client.send(input)
        let answer = try await client.readToEnd(seconds: 10)
        #expect(statusLine(answer.bytes) == expected, "\(name)")
        #expect(answer.ending != .stillOpen, "\(name): the connection must be closed")
        #expect(try await healthAnswers(harness))
        try await harness.stop()
    }

    @Test func anUnfinishedHeadTimesOut() async throws {
        let harness = try await DaemonHarness.start { $0.http.headerTimeout = .seconds(1) }
        let silent = try RawTCPClient(port: harness.port)
        let slow = try RawTCPClient(port: harness.port)
        try slow.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for client in [silent, slow] {
            let answer = try await client.readToEnd(seconds: 10)
            #expect(statusLine(answer.bytes) == "HTTP/1.1 408 Request Timeout")
            #expect(answer.ending == .closed)
        }
        #expect(try await healthAnswers(harness))
        try await harness.stop()
    }

    @Test func connectionsPastTheCapFromOneAddressAreRefused() async throws {
        let harness = try await DaemonHarness.start { $0.http.maximumConnectionsPerAddress = 3 }
        let held = try await heldConnections(3, harness)
        let refused = try RawTCPClient(port: harness.port)
        let answer = try await refused.readToEnd(seconds: 10)
        #expect(statusLine(answer.bytes) == "HTTP/1.1 503 Service Unavailable")
        #expect(String(decoding: answer.bytes, as: UTF8.self).contains("3 connections are open from your address"))
        #expect(answer.ending == .closed)
        held[0].close()
        // The closed connection's place is free again once the server has seen it go.
        var answered = false
        for _ in 0..<50 where !answered {
            answered = try await healthAnswers(harness)
            if !answered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(answered)
        withExtendedLifetime(held) {}
        try await harness.stop()
    }

    @Test func connectionsPastTheTotalCapAreRefused() async throws {
        let harness = try await DaemonHarness.start { $0.http.maximumConnections = 2 }
        let held = try await heldConnections(2, harness)
        let refused = try RawTCPClient(port: harness.port)
        let answer = try await refused.readToEnd(seconds: 10)
        #expect(statusLine(answer.bytes) == "HTTP/1.1 503 Service Unavailable")
        #expect(String(decoding: answer.bytes, as: UTF8.self).contains("the server has 2 connections open"))
        #expect(answer.ending == .closed)
        withExtendedLifetime(held) {}
        try await harness.stop()
    }

    @Test func aPlainGetOfTheWebSocketPathIsToldToUpgrade() async throws {
        let harness = try await DaemonHarness.start()
        let client = try RawTCPClient(port: harness.port)
        try client.send("GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let answer = try await client.readToEnd(seconds: 10)
        #expect(statusLine(answer.bytes) == "HTTP/1.1 426 Upgrade Required")
        #expect(String(decoding: answer.bytes, as: UTF8.self).contains("/v1/ws is a WebSocket"))
        try await harness.stop()
    }

    @Test func keptAliveRequestsStillWorkAfterTheFirst() async throws {
        let harness = try await DaemonHarness.start()
        let client = try RawTCPClient(port: harness.port)
        for _ in 0..<3 {
            try client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answer = try await client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains(#"{"status":"ok"}"#) }
            #expect(statusLine(answer.bytes) == "HTTP/1.1 200 OK")
        }
        try client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + String(repeating: "a", count: 20_000) + "\r\n\r\n")
        let refused = try await client.readToEnd(seconds: 10)
        #expect(statusLine(refused.bytes) == "HTTP/1.1 400 Bad Request", "a later head over the limit")
        #expect(refused.ending != .stillOpen)
        try await harness.stop()
    }
}
