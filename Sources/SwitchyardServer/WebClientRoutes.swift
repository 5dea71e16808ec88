import Foundation
import Hummingbird
import HummingbirdWebSocket
import Signaling
import SignalingProtocol

/// The browser client the daemon serves: the demo page at `/`, the JavaScript client library at
/// `/switchyard.js`, and, only while the public development credentials are in use (which the daemon
/// allows on loopback only), `/v1/dev/token` so the demo can join without an app backend.
struct WebClientRoutes: Sendable {
    /// Lifetime of a development token.
    static let developmentTokenLifetime: Int64 = 3600

    private struct File: Sendable {
        var contentType: String
        var bytes: Data
    }

    private let files: [String: File]
    let tokens: TokenAuthority
    let servesDevelopmentTokens: Bool

    init(tokens: TokenAuthority, servesDevelopmentTokens: Bool) {
        self.tokens = tokens
        self.servesDevelopmentTokens = servesDevelopmentTokens
        files = [
            "/": File(contentType: "text/html; charset=utf-8", bytes: Data(PackageResources.index_html)),
            "/switchyard.js": File(contentType: "text/javascript; charset=utf-8", bytes: Data(PackageResources.switchyard_js)),
            "/demo.js": File(contentType: "text/javascript; charset=utf-8", bytes: Data(PackageResources.demo_js)),
            "/switchyard-e2ee-worker.js": File(
                contentType: "text/javascript; charset=utf-8", bytes: Data(PackageResources.switchyard_e2ee_worker_js)),
        ]
    }

    func register(on router: Router<BasicRequestContext>) {
        for (path, file) in files {
            router.get(RouterPath(path)) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
        }
        guard servesDevelopmentTokens else { return }
        router.get("/v1/dev/token") { request, _ in
            await developmentToken(request)
        }
    }

    private func developmentToken(_ request: Request) async -> Response {
        let query = request.uri.queryParameters
        let sessionId = query.get("sessionId") ?? "demo"
        guard TokenAuthority.isValidSessionId(sessionId) else {
            return Self.json(["code": "invalidParams", "message": "query.sessionId: \(TokenAuthority.sessionIdRule)"], status: .badRequest)
        }
        let roleName = query.get("role") ?? Role.publisher.rawValue
        guard let role = Role(rawValue: roleName) else {
            let known = Role.allCases.map(\.rawValue).joined(separator: ", ")
            return Self.json(["code": "invalidParams", "message": "query.role: \"\(roleName)\" is not one of \(known)"], status: .badRequest)
        }
        do {
            let token = try await tokens.mintClientToken(
                sessionId: sessionId, role: role, connectionData: query.get("data") ?? "", lifetime: Self.developmentTokenLifetime,
                now: Date())
            return Self.json(["token": token], status: .ok)
        } catch {
            return Self.json(["code": "internalError", "message": "\(error)"], status: .internalServerError)
        }
    }

    private static func json(_ value: [String: String], status: HTTPResponse.Status) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
