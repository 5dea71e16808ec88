import Foundation
import HTTPTypes
import Hummingbird
import Signaling
import SignalingProtocol
import Webhooks

/// `GET /v1/webhooks/status`: each endpoint's queue, deliveries, failures and drops, with a REST
/// token as the rest of the REST API takes it.
struct WebhookRoutes: Sendable {
    /// nil when the configuration has no `webhooks`.
    let dispatcher: WebhookDispatcher?
    let tokens: TokenAuthority

    func register(on router: Router<BasicRequestContext>) {
        router.get("/v1/webhooks/status") { request, _ in
            do throws(SignalingError) {
                try await tokens.verifyRESTAuthorization(request.headers[.authorization], now: Date())
            } catch {
                return Self.json(error, status: .unauthorized)
            }
            guard let dispatcher else {
                return Self.json(
                    SignalingError(.notFound, "this server sends no webhooks (its configuration has no \"webhooks\")"), status: .notFound)
            }
            return Self.json(await dispatcher.status(), status: .ok)
        }
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
