import Testing

@testable import SwitchyardServer

/// The first request's head, scanned as its bytes arrive, in one piece or one byte at a time.
struct HTTPRequestHeadScannerTests {
    private func scan(_ text: String, maximumBytes: Int = 16_384, maximumFields: Int = 100, byteByByte: Bool = false) -> HTTPRequestHeadScanner.Verdict {
        var scanner = HTTPRequestHeadScanner(maximumBytes: maximumBytes, maximumFields: maximumFields)
        let bytes = Array(text.utf8)
        guard byteByByte else { return scanner.scan(bytes) }
        for byte in bytes {
            let verdict = scanner.scan([byte])
            if verdict != .needMore { return verdict }
        }
        return .needMore
    }

    @Test(arguments: [false, true]) func aWellFormedHeadCompletesWhereItEnds(byteByByte: Bool) {
        let head = "GET /v1/ws HTTP/1.1\r\nHost: a\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n\r\n"
        #expect(scan(head + "\u{81}\u{80}", byteByByte: byteByByte) == (byteByByte
            ? .complete(consumed: 1, upgradesToWebSocket: true) : .complete(consumed: head.utf8.count, upgradesToWebSocket: true)))
        #expect(scan("\r\nPOST /v1/sessions HTTP/1.0\nContent-Length: 0\n\n", byteByByte: byteByByte)
            == .complete(consumed: byteByByte ? 1 : 48, upgradesToWebSocket: false))
    }

    @Test(arguments: [false, true]) func anUnfinishedHeadNeedsMore(byteByByte: Bool) {
        #expect(scan("GET / HTTP/1.1\r\nHost: a\r\n", byteByByte: byteByByte) == .needMore)
    }

    @Test func malformedRequestLinesAreRejected() {
        #expect(scan("HELLO WORLD\r\n\r\n") == .reject(.malformedRequestLine("expected METHOD SP target SP version")))
        #expect(scan("GET  / HTTP/1.1\r\n\r\n") == .reject(.malformedRequestLine("expected METHOD SP target SP version")))
        #expect(scan("G(T / HTTP/1.1\r\n\r\n") == .reject(.malformedRequestLine("the method is not a token")))
        #expect(scan("GET /\u{7F} HTTP/1.1\r\n\r\n") == .reject(.malformedRequestLine("the request target is empty or has control or non-ASCII bytes")))
        #expect(scan("GET / HTTX/1.1\r\n\r\n") == .reject(.malformedRequestLine("the version is not HTTP/x.y")))
        #expect(scan("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == .reject(.unsupportedVersion("HTTP/2.0")))
        #expect(scan("\r\n\r\n\r\n\r\n\r\n") == .reject(.malformedRequestLine("only empty lines")))
        #expect(scan("GET /" + String(repeating: "a", count: 9000)) == .reject(.malformedRequestLine("longer than 8192 bytes")))
    }

    @Test func malformedHeaderLinesAreRejected() {
        #expect(scan("GET / HTTP/1.1\r\nno colon here\r\n\r\n") == .reject(.malformedHeaderLine("no colon")))
        #expect(scan("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n") == .reject(.malformedHeaderLine("folded lines are not accepted")))
        #expect(scan("GET / HTTP/1.1\r\nBad Name: a\r\n\r\n") == .reject(.malformedHeaderLine("the field name is empty or not a token")))
        #expect(scan("GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n") == .reject(.malformedHeaderLine("the field value has control characters")))
    }

    @Test(arguments: [false, true]) func headsOverTheLimitsAreRejected(byteByByte: Bool) {
        let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 2000) + "\r\n\r\n"
        #expect(scan(long, maximumBytes: 1024, byteByByte: byteByByte) == .reject(.headTooLarge(limit: 1024)))
        let many = "GET / HTTP/1.1\r\n" + (0..<9).map { "X-\($0): 1\r\n" }.joined() + "\r\n"
        #expect(scan(many, maximumFields: 8, byteByByte: byteByByte) == .reject(.tooManyHeaderFields(limit: 8)))
        #expect(scan(many, maximumFields: 9, byteByByte: byteByByte) != .reject(.tooManyHeaderFields(limit: 9)))
    }
}

/// Client frames followed header by header, whatever the split of the bytes.
struct WebSocketClientFrameCheckTests {
    @Test(arguments: [1, 3, 1000]) func maskedFramesOfEveryLengthFormPass(chunk: Int) {
        let frames = [0, 125, 126, 65_535, 65_536].flatMap { WebSocketFrameBytes.frame(opcode: 1, payload: Array(repeating: 0x61, count: $0)) }
        var check = WebSocketClientFrameCheck()
        for start in stride(from: 0, to: frames.count, by: chunk) {
            #expect(check.scan(frames[start..<min(start + chunk, frames.count)]) == .acceptable)
        }
    }

    @Test(arguments: [1, 1000]) func anUnmaskedFrameAfterMaskedOnesIsFound(chunk: Int) throws {
        let frames = WebSocketFrameBytes.frame(opcode: 1, payload: Array(repeating: 0x61, count: 300))
            + WebSocketFrameBytes.frame(opcode: 1, payload: [0x61], masked: false)
        let firstFrameLength = frames.count - 3
        var check = WebSocketClientFrameCheck()
        var foundAt: Int?
        for start in stride(from: 0, to: frames.count, by: chunk) where foundAt == nil {
            if check.scan(frames[start..<min(start + chunk, frames.count)]) == .unmaskedFrame { foundAt = start }
        }
        let found = try #require(foundAt)
        #expect(chunk == 1 ? found == firstFrameLength + 1 : found == 0, "found at the unmasked frame's second byte, not before")
    }
}
