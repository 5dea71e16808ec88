import Foundation
import HTTPTypes
import Hummingbird
import SessionDescription
import SignalingProtocol

/// WHIP (RFC 9725) and WHEP: `POST /v1/whip/{sessionId}` with a client token (`Authorization:
/// Bearer`) and an SDP offer publishes a stream; `POST /v1/whep/{sessionId}/{streamId}` plays one. The
/// answer comes back with a `Location` for the resource, and `DELETE` on it ends it. Every answer
/// carries CORS headers, so a page on another origin can use them, and with a `turn` configuration
/// one `Link: <url>; rel="ice-server"` header per STUN or TURN URL (RFC 9725 section 4.6), TURN
/// ones with credentials minted for the resource's connection. Errors are JSON `{"code",
/// "message"}`, as in the REST API.
struct WHIPWHEPRoutes: Sendable {
    static let whipPath = "/v1/whip"
    static let whepPath = "/v1/whep"
    static let sdpContentType = "application/sdp"
    /// Longest SDP offer taken, in bytes.
    static let maximumOfferBytes = 65_536
    /// Where the directory says the offer's faults lie; over WHIP and WHEP the offer is the body.
    static let offerField = "params.sdpOffer"
    static let linkField = HTTPField.Name("Link")!

    let directory: SessionDirectory
    let tokens: TokenAuthority
    let turn: TURNCredentialMinter?
    let wallClock: @Sendable () -> Date

    func register(on router: Router<BasicRequestContext>) {
        router.post("\(Self.whipPath)/:sessionId") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            return await answer { () async throws(WHIPWHEPFailure) -> Response in
                try await create(request, sessionId: sessionId) { grant, offer throws(SignalingError) in
                    let resource = try await directory.publishWHIP(grant: grant, name: request.uri.queryParameters.get("name"), sdpOffer: offer)
                    return ("\(Self.whipPath)/\(sessionId)/\(resource.streamId)", resource.streamId, resource.connectionId, resource.sdpAnswer)
                }
            }
        }
        router.post("\(Self.whepPath)/:sessionId/:streamId") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let streamId = context.parameters.get("streamId") ?? ""
            return await answer { () async throws(WHIPWHEPFailure) -> Response in
                try await create(request, sessionId: sessionId) { grant, offer throws(SignalingError) in
                    let resource = try await directory.subscribeWHEP(grant: grant, streamId: streamId, sdpOffer: offer)
                    return (
                        "\(Self.whepPath)/\(sessionId)/\(streamId)/\(resource.subscriberId)", resource.subscriberId, resource.connectionId,
                        resource.sdpAnswer
                    )
                }
            }
        }
        router.delete("\(Self.whipPath)/:sessionId/:streamId") { request, context in
            await end(request, sessionId: context.parameters.get("sessionId") ?? "") { grant throws(SignalingError) in
                try await directory.endWHIP(grant: grant, streamId: context.parameters.get("streamId") ?? "")
            }
        }
        router.delete("\(Self.whepPath)/:sessionId/:streamId/:subscriberId") { request, context in
            await end(request, sessionId: context.parameters.get("sessionId") ?? "") { grant throws(SignalingError) in
                try await directory.endWHEP(grant: grant, subscriberId: context.parameters.get("subscriberId") ?? "")
            }
        }
        // Candidates come from the router's answer (it is ICE-lite) and the client's own address is
        // learned from its connectivity checks, so trickle ICE and ICE restarts are not offered.
        for resource in ["\(Self.whipPath)/:sessionId/:streamId", "\(Self.whepPath)/:sessionId/:streamId/:subscriberId"] {
            router.patch(RouterPath(resource)) { _, _ in
                var headers = Self.corsHeaders
                headers[.allow] = "DELETE, OPTIONS"
                return Self.error(
                    SignalingError(.invalidParams, "this resource takes no trickle ICE or ICE restart (PATCH); the answer holds every candidate"),
                    status: .methodNotAllowed, headers: headers)
            }
            router.on(RouterPath(resource), method: .options) { _, _ in
                var headers = Self.corsHeaders
                headers[.accessControlAllowMethods] = "DELETE, PATCH, OPTIONS"
                return Response(status: .noContent, headers: headers)
            }
        }
        for endpoint in ["\(Self.whipPath)/:sessionId", "\(Self.whepPath)/:sessionId/:streamId"] {
            router.on(RouterPath(endpoint), method: .options) { _, _ in
                var headers = Self.corsHeaders
                headers[.accessControlAllowMethods] = "POST, OPTIONS"
                headers[HTTPField.Name("Accept-Post")!] = Self.sdpContentType
                return Response(status: .noContent, headers: headers)
            }
        }
    }

    /// A POST: the offer is checked, `make` creates the resource and gives its path, id, connection and answer.
    private func create(
        _ request: Request, sessionId: String,
        _ make: (ClientGrant, String) async throws(SignalingError) -> (location: String, id: String, connectionId: String, answer: String)
    ) async throws(WHIPWHEPFailure) -> Response {
        let grant = try await authenticate(request, for: sessionId)
        if let redirect = try await redirect(request, sessionId: sessionId, placing: true) { return redirect }
        let contentType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == Self.sdpContentType else {
            throw WHIPWHEPFailure(
                .invalidParams("Content-Type", contentType.map { "must be \(Self.sdpContentType), not \"\($0)\"" } ?? "must be \(Self.sdpContentType); the request has none"),
                status: .unsupportedMediaType)
        }
        let offer: String
        do {
            offer = String(decoding: try await request.body.collect(upTo: Self.maximumOfferBytes).readableBytesView, as: UTF8.self)
        } catch {
            throw WHIPWHEPFailure(SignalingError(.invalidParams, "body: an SDP offer of more than \(Self.maximumOfferBytes) bytes"), status: .contentTooLarge)
        }
        do throws(SDPError) {
            _ = try SessionDescription(parsing: offer)
        } catch {
            throw WHIPWHEPFailure(SignalingError(.invalidParams, "body: \(error)"), status: .badRequest)
        }
        let created: (location: String, id: String, connectionId: String, answer: String)
        do throws(SignalingError) {
            created = try await make(grant, offer)
        } catch {
            // A well-formed offer the router cannot take (codecs, simulcast, a missing line) is
            // unprocessable rather than malformed; the message names the line, in the body.
            var refusal = error
            if refusal.message.hasPrefix(Self.offerField) { refusal.message = "body" + refusal.message.dropFirst(Self.offerField.count) }
            throw WHIPWHEPFailure(refusal, status: error.code == .invalidParams ? .unprocessableContent : nil)
        }
        var headers = Self.corsHeaders
        headers[.contentType] = Self.sdpContentType
        headers[.location] = created.location
        headers[.eTag] = "\"\(created.id)\""
        for server in turn?.iceServers(for: created.connectionId, now: wallClock()) ?? [] {
            for link in Self.links(to: server) { headers.append(HTTPField(name: Self.linkField, value: link)) }
        }
        return Response(status: .created, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: created.answer)))
    }

    /// A DELETE: `remove` ends the resource.
    private func end(_ request: Request, sessionId: String, _ remove: (ClientGrant) async throws(SignalingError) -> Void) async -> Response {
        await answer { () async throws(WHIPWHEPFailure) -> Response in
            let grant = try await authenticate(request, for: sessionId)
            if let redirect = try await redirect(request, sessionId: sessionId, placing: false) { return redirect }
            do throws(SignalingError) {
                try await remove(grant)
            } catch {
                throw WHIPWHEPFailure(error)
            }
            return Response(status: .ok, headers: Self.corsHeaders)
        }
    }

    /// In a cluster, a 307 to the same path on the node that serves the session (RFC 9725 section
    /// 4.5: WHIP clients follow redirects), placing the session first when `placing`; nil when it is here.
    private func redirect(_ request: Request, sessionId: String, placing: Bool) async throws(WHIPWHEPFailure) -> Response? {
        let location: SessionLocation?
        do throws(SignalingError) {
            location = try await directory.location(of: sessionId, placing: placing)
        } catch {
            throw WHIPWHEPFailure(error)
        }
        guard case .node(let node) = location else { return nil }
        var headers = Self.corsHeaders
        headers[.location] = node.publicHTTPURL + request.uri.description
        return Response(status: .temporaryRedirect, headers: headers)
    }

    /// The client token of `Authorization: Bearer`, which must be for the path's session.
    private func authenticate(_ request: Request, for sessionId: String) async throws(WHIPWHEPFailure) -> ClientGrant {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw WHIPWHEPFailure(SignalingError(.invalidToken, "missing \"Authorization: Bearer <client token>\" header"))
        }
        let grant: ClientGrant
        do {
            grant = try await tokens.verifyClientToken(String(header.dropFirst("Bearer ".count)), now: wallClock())
        } catch {
            throw WHIPWHEPFailure(SignalingError(error.code, error.description))
        }
        guard grant.sessionId == sessionId else {
            throw WHIPWHEPFailure(SignalingError(.forbidden, "the token is for session \(grant.sessionId), not \(sessionId)"))
        }
        return grant
    }

    /// One `Link` value per URL of `server` (RFC 9725 section 4.6, RFC 8288). The values hold
    /// only what was checked when the configuration was read and base64 and the connection id,
    /// none of which has a quote or a backslash, so they need no escaping in a quoted string.
    static func links(to server: ICEServer) -> [String] {
        server.urls.map { url in
            var link = "<\(url)>; rel=\"ice-server\""
            if let username = server.username, let credential = server.credential {
                link += "; username=\"\(username)\"; credential=\"\(credential)\"; credential-type=\"password\""
            }
            return link
        }
    }

    private func answer(_ action: () async throws(WHIPWHEPFailure) -> Response) async -> Response {
        do throws(WHIPWHEPFailure) {
            return try await action()
        } catch {
            return Self.error(error.error, status: error.status ?? RESTRoutes.status(for: error.error.code), headers: Self.corsHeaders)
        }
    }

    private static func error(_ error: SignalingError, status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var response = RESTRoutes.json(error, status: status)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    private static var corsHeaders: HTTPFields {
        [
            .accessControlAllowOrigin: "*",
            .accessControlAllowHeaders: "Authorization, Content-Type, If-Match",
            .accessControlExposeHeaders: "Location, ETag, Accept-Post, Link",
        ]
    }
}

/// A WHIP or WHEP request's refusal: the error, and the HTTP status when it is not the REST API's for its code.
struct WHIPWHEPFailure: Error {
    var error: SignalingError
    var status: HTTPResponse.Status?

    init(_ error: SignalingError, status: HTTPResponse.Status? = nil) {
        self.error = error
        self.status = status
    }
}
