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
            do throws(SignalingError) {
                try await tokens.verifyRESTAuthorization(request.headers[.authorization], now: Date())
            } catch {
                return Self.json(error, status: .unauthorized)
            }
            let body: Data
            do {
                body = Data(try await request.body.collect(upTo: Self.maximumBodyBytes).readableBytesView)
            } catch {
                return Self.json(SignalingError.invalidParams("body", "larger than \(Self.maximumBodyBytes) bytes"), status: .contentTooLarge)
            }
            let parsed: CascadeRequest
            do {
                parsed = try CascadingMediaControl.decoder.decode(CascadeRequest.self, from: body)
            } catch {
                return Self.json(SignalingError.invalidParams("body", "not a cascading request: \(error)"), status: .badRequest)
            }
            let reply = await cascade.handle(parsed)
            return Self.json(reply, status: .ok)
        }
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let data = (try? CascadingMediaControl.encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
