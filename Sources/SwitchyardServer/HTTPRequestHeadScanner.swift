/// Reads the head of a connection's first HTTP request as its bytes arrive, before NIO's parser sees
/// them, and decides at the first byte that breaks a rule: a request line that is not
/// `METHOD SP target SP HTTP/1.x`, a header line that is not `name: value`, a head larger than
/// `maximumBytes` or with more than `maximumFields` header fields. NIO's parser, while it waits to
/// learn whether a connection upgrades to a WebSocket, neither answers nor closes on such input.
///
/// ```text
/// request-line = method SP request-target SP HTTP-version CRLF   (RFC 9112 section 3)
/// field-line   = field-name ":" OWS field-value OWS CRLF          (RFC 9112 section 5)
/// ```
struct HTTPRequestHeadScanner {
    enum Rejection: Equatable, Error {
        case malformedRequestLine(String)
        case unsupportedVersion(String)
        case malformedHeaderLine(String)
        case headTooLarge(limit: Int)
        case tooManyHeaderFields(limit: Int)
        case headTimedOut

        /// The status line and a one-line text for the response that ends the connection.
        var response: (status: String, text: String) {
            switch self {
            case .malformedRequestLine(let why): ("400 Bad Request", "malformed request line: \(why)")
            case .unsupportedVersion(let version): ("505 HTTP Version Not Supported", "\(version) is not supported; use HTTP/1.1")
            case .malformedHeaderLine(let why): ("400 Bad Request", "malformed header line: \(why)")
            case .headTooLarge(let limit): ("431 Request Header Fields Too Large", "request head is larger than \(limit) bytes")
            case .tooManyHeaderFields(let limit): ("431 Request Header Fields Too Large", "request has more than \(limit) header fields")
            case .headTimedOut: ("408 Request Timeout", "request head not received in time")
            }
        }
    }

    enum Verdict: Equatable {
        /// The head is not complete yet; every byte so far is acceptable.
        case needMore
        /// The head ended `consumed` bytes into the last buffer; the rest belongs to what follows.
        case complete(consumed: Int, upgradesToWebSocket: Bool)
        case reject(Rejection)
    }

    let maximumBytes: Int
    let maximumFields: Int
    /// Request lines longer than this are refused as malformed before the whole head is read.
    private static let maximumRequestLineBytes = 8192
    /// Empty lines a client may send before its request line (RFC 9112 section 2.2 allows some).
    private static let maximumLeadingEmptyLines = 4

    private var headBytes = 0
    private var line: [UInt8] = []
    private var sawRequestLine = false
    private var leadingEmptyLines = 0
    private var fields = 0
    private var upgradesToWebSocket = false
    private var finished = false

    init(maximumBytes: Int, maximumFields: Int) {
        self.maximumBytes = maximumBytes
        self.maximumFields = maximumFields
    }

    /// Takes the next bytes of the connection. After `.complete` or `.reject`, scanning has ended.
    mutating func scan(_ bytes: some Collection<UInt8>) -> Verdict {
        precondition(!finished, "the head was already decided")
        var consumed = 0
        for byte in bytes {
            consumed += 1
            headBytes += 1
            if headBytes > maximumBytes { return end(.reject(.headTooLarge(limit: maximumBytes))) }
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                if !sawRequestLine, line.count > Self.maximumRequestLineBytes {
                    return end(.reject(.malformedRequestLine("longer than \(Self.maximumRequestLineBytes) bytes")))
                }
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            defer { line.removeAll(keepingCapacity: true) }
            if !sawRequestLine {
                if line.isEmpty {
                    leadingEmptyLines += 1
                    if leadingEmptyLines > Self.maximumLeadingEmptyLines {
                        return end(.reject(.malformedRequestLine("only empty lines")))
                    }
                    continue
                }
                if let rejection = Self.checkRequestLine(line) { return end(.reject(rejection)) }
                sawRequestLine = true
                continue
            }
            if line.isEmpty {
                return end(.complete(consumed: consumed, upgradesToWebSocket: upgradesToWebSocket))
            }
            fields += 1
            if fields > maximumFields { return end(.reject(.tooManyHeaderFields(limit: maximumFields))) }
            switch Self.checkField(line) {
            case .failure(let rejection): return end(.reject(rejection))
            case .success(let upgrade): upgradesToWebSocket = upgradesToWebSocket || upgrade
            }
        }
        return .needMore
    }

    private mutating func end(_ verdict: Verdict) -> Verdict {
        finished = true
        line = []
        return verdict
    }

    private static func checkRequestLine(_ line: [UInt8]) -> Rejection? {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .malformedRequestLine("expected METHOD SP target SP version") }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard !method.isEmpty, method.count <= 32, method.allSatisfy(isTokenCharacter) else {
            return .malformedRequestLine("the method is not a token")
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .malformedRequestLine("the request target is empty or has control or non-ASCII bytes")
        }
        let versionText = String(decoding: version, as: UTF8.self)
        guard versionText.hasPrefix("HTTP/"), version.count == 8 else {
            return .malformedRequestLine("the version is not HTTP/x.y")
        }
        guard versionText == "HTTP/1.1" || versionText == "HTTP/1.0" else { return .unsupportedVersion(versionText) }
        return nil
    }

    /// Checks one field line; succeeds with whether it asks for a WebSocket upgrade.
    private static func checkField(_ line: [UInt8]) -> Result<Bool, Rejection> {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            return .failure(line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t")
                ? .malformedHeaderLine("folded lines are not accepted") : .malformedHeaderLine("no colon"))
        }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
            return .failure(.malformedHeaderLine("the field name is empty or not a token"))
        }
        let value = line[(colon + 1)...]
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            return .failure(.malformedHeaderLine("the field value has control characters"))
        }
        let isUpgrade = name.count == 7 && String(decoding: name, as: UTF8.self).lowercased() == "upgrade"
            && String(decoding: value, as: UTF8.self).lowercased().contains("websocket")
        return .success(isUpgrade)
    }

    /// RFC 9110 section 5.6.2: `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
