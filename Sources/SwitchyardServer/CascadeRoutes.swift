import Cluster
import Foundation
import HTTPTypes
import Hummingbird
import Signaling
import SignalingProtocol

/// `POST /v1/cluster/media`: another node of the cluster asking this node's media plane to carry a
/// session past its node (`CascadeRequest`), with a REST token of the cluster's shared key.
struct CascadeRoutes: Sendable {
    /// Event batches are the largest requests: `CascadingMediaControl.maximumHeldEvents` events.
    static let maximumBodyBytes = 1 << 20

    let cascade: CascadingMediaControl
    let tokens: TokenAuthority

    func register(on router: Router<BasicRequestContext>) {
        router.post(RouterPath(CascadingMediaControl.path)) { request, _ in
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
                return Self.refusal(SignalingError(.invalidToken, "missing \"Authorization: Bearer <REST token>\" header"), status: .unauthorized)
            }
            do throws(TokenError) {
                try await tokens.verifyRESTToken(String(header.dropFirst("Bearer ".count)), now: Date())
            } catch {
                return Self.refusal(SignalingError(error.code, error.description), status: .unauthorized)
            }
            let body: Data
            do {
                body = Data(try await request.body.collect(upTo: Self.maximumBodyBytes).readableBytesView)
            } catch {
                return Self.refusal(.invalidParams("body", "larger than \(Self.maximumBodyBytes) bytes"), status: .contentTooLarge)
            }
            let parsed: CascadeRequest
            do {
                parsed = try CascadingMediaControl.decoder.decode(CascadeRequest.self, from: body)
            } catch {
                return Self.refusal(.invalidParams("body", "not a cascading request: \(error)"), status: .badRequest)
            }
            let reply = await cascade.handle(parsed)
            return Self.json(reply, status: .ok)
        }
    }

    private static func refusal(_ error: SignalingError, status: HTTPResponse.Status) -> Response {
        json(error, status: status)
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let data = (try? CascadingMediaControl.encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
