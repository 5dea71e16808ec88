import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import SignalingProtocol

/// The REST API the app's backend calls, authenticated with a short-lived REST token in
/// `Authorization: Bearer <token>`. Bodies and errors are JSON; errors are `{"code", "message"}`.
struct RESTRoutes: Sendable {
    static let maximumBodyBytes = 65_536

    let directory: SessionDirectory
    let tokens: TokenAuthority
    let placement: (any SessionPlacement)?
    let wallClock: @Sendable () -> Date

    private struct CreatedSession: Encodable {
        var sessionId: String
    }

    /// Connections on one page of the listing when the request does not say, and at most.
    static let defaultPageLimit = 100
    static let pageLimits = 1...1000

    private static func pageLimit(_ text: String?) throws(SignalingError) -> Int {
        guard let text else { return defaultPageLimit }
        guard let limit = Int(text), pageLimits.contains(limit) else {
            throw .invalidParams("query.limit", "must be an integer in \(pageLimits.lowerBound)-\(pageLimits.upperBound), not \(text)")
        }
        return limit
    }

    func register(on router: Router<BasicRequestContext>) {
        router.post("/v1/sessions") { request, _ in
            try await respond(to: request, status: .created, session: .new) { body throws(SignalingError) in
                let parsed = try RESTBody.decode(RESTBody.CreateSession.self, from: body)
                return CreatedSession(
                    sessionId: try await directory.createSession(
                        id: parsed.sessionId, audio: parsed.audio, e2ee: parsed.e2ee, connectionEventsSuppressed: parsed.connectionEventsSuppressed,
                        archiveMode: parsed.archiveMode))
            }
        }
        router.get("/v1/cluster") { request, _ in
            try await respond(to: request, status: .ok) { _ throws(SignalingError) in
                guard let placement else {
                    throw SignalingError(.notFound, "this server does not run in a cluster (its configuration has no \"cluster\")")
                }
                return try await placement.overview()
            }
        }
        router.get("/v1/sessions/:sessionId") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            return try await respond(to: request, status: .ok, session: .existing(sessionId)) { _ throws(SignalingError) in
                guard let snapshot = await directory.snapshot(of: sessionId) else {
                    throw SignalingError(.notFound, "no session \(sessionId)")
                }
                return snapshot
            }
        }
        router.get("/v1/sessions/:sessionId/connections") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let query = request.uri.queryParameters
            return try await respond(to: request, status: .ok, session: .existing(sessionId)) { _ throws(SignalingError) in
                let limit = try Self.pageLimit(query.get("limit"))
                return try await directory.connectionPage(of: sessionId, after: query.get("after"), limit: limit)
            }
        }
        router.delete("/v1/sessions/:sessionId/connections/:connectionId") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let connectionId = context.parameters.get("connectionId") ?? ""
            return try await respond(to: request, status: .noContent, session: .existing(sessionId)) { _ throws(SignalingError) in
                try await directory.forceDisconnect(sessionId: sessionId, by: .application, connectionId: connectionId)
                return nil as EmptyResult?
            }
        }
        router.delete("/v1/sessions/:sessionId/streams/:streamId") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let streamId = context.parameters.get("streamId") ?? ""
            return try await respond(to: request, status: .noContent, session: .existing(sessionId)) { _ throws(SignalingError) in
                try await directory.forceUnpublish(sessionId: sessionId, by: .application, streamId: streamId)
                return nil as EmptyResult?
            }
        }
        router.post("/v1/sessions/:sessionId/streams/:streamId/mute") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let streamId = context.parameters.get("streamId") ?? ""
            return try await respond(to: request, status: .noContent, session: .existing(sessionId)) { _ throws(SignalingError) in
                try await directory.forceMuteStream(sessionId: sessionId, by: .application, streamId: streamId)
                return nil as EmptyResult?
            }
        }
        router.post("/v1/sessions/:sessionId/mute") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            return try await respond(to: request, status: .noContent, session: .existing(sessionId)) { body throws(SignalingError) in
                let forceMute = try RESTBody.decode(RESTBody.ForceMute.self, from: body)
                if forceMute.active {
                    try await directory.forceMuteAll(sessionId: sessionId, by: .application, excludedStreamIds: forceMute.excludedStreamIds ?? [])
                } else {
                    guard forceMute.excludedStreamIds == nil else {
                        throw .invalidParams("body.excludedStreamIds", "only goes with active true")
                    }
                    try await directory.disableForceMute(sessionId: sessionId, by: .application)
                }
                return nil as EmptyResult?
            }
        }
        registerArchives(on: router)
        router.get("/v1/sessions/:sessionId/subscribers/:subscriberId/stats") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let subscriberId = context.parameters.get("subscriberId") ?? ""
            return try await respond(to: request, status: .ok, session: .existing(sessionId)) { _ throws(SignalingError) in
                try await directory.statistics(sessionId: sessionId, subscriberId: subscriberId)
            }
        }
        router.get("/v1/sessions/:sessionId/streams/:streamId/stats") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let streamId = context.parameters.get("streamId") ?? ""
            return try await respond(to: request, status: .ok, session: .existing(sessionId)) { _ throws(SignalingError) in
                try await directory.publisherStatistics(sessionId: sessionId, streamId: streamId)
            }
        }
        // Test aids, refused unless media.faultInjection is on: loss and a rate cap toward one
        // subscriber, or from one stream's publisher.
        // Each path's parameter keeps the name the other routes give that position.
        for (collection, parameter) in [("subscribers", "subscriberId"), ("streams", "streamId")] {
            router.put("/v1/sessions/:sessionId/\(collection)/:\(parameter)/fault") { request, context in
                let sessionId = context.parameters.get("sessionId") ?? ""
                let id = context.parameters.get(parameter) ?? ""
                return try await respond(to: request, status: .noContent, session: .existing(sessionId)) { body throws(SignalingError) in
                    let fault = try RESTBody.decode(RESTBody.Fault.self, from: body)
                    try await directory.setFaultInjection(
                        sessionId: sessionId, subscriberId: collection == "subscribers" ? id : nil,
                        streamId: collection == "streams" ? id : nil, fault: fault)
                    return nil as EmptyResult?
                }
            }
        }
        // A test aid, refused unless media.faultInjection is on: a network drop under one connection.
        router.put("/v1/sessions/:sessionId/connections/:connectionId/fault") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let connectionId = context.parameters.get("connectionId") ?? ""
            return try await respond(to: request, status: .noContent, session: .existing(sessionId)) { body throws(SignalingError) in
                let fault = try RESTBody.decode(RESTBody.ConnectionFault.self, from: body)
                if fault.dropWebSocket { try await directory.dropWebSocket(sessionId: sessionId, connectionId: connectionId) }
                return nil as EmptyResult?
            }
        }
        router.post("/v1/sessions/:sessionId/signal") { request, context in
            try await signal(request, sessionId: context.parameters.get("sessionId") ?? "", to: nil)
        }
        router.post("/v1/sessions/:sessionId/connections/:connectionId/signal") { request, context in
            try await signal(request, sessionId: context.parameters.get("sessionId") ?? "", to: context.parameters.get("connectionId") ?? "")
        }
    }

    /// Archives (docs/archiving.md): started and stopped on the session's node, listed and deleted
    /// where their files are.
    private func registerArchives(on router: Router<BasicRequestContext>) {
        router.post("/v1/sessions/:sessionId/archives") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            return try await respond(to: request, status: .created, session: .existing(sessionId)) { body throws(SignalingError) in
                let parsed = try body.isEmpty ? RESTBody.StartArchive() : RESTBody.decode(RESTBody.StartArchive.self, from: body)
                return try await directory.startArchive(sessionId: sessionId, request: parsed)
            }
        }
        router.post("/v1/sessions/:sessionId/archives/:archiveId/stop") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let archiveId = context.parameters.get("archiveId") ?? ""
            return try await respond(to: request, status: .ok, session: .existing(sessionId)) { _ throws(SignalingError) in
                try await directory.stopArchive(sessionId: sessionId, archiveId: archiveId)
            }
        }
        router.get("/v1/archives") { request, _ in
            let query = request.uri.queryParameters
            return try await respond(to: request, status: .ok) { _ throws(SignalingError) in
                let limit = try Self.pageLimit(query.get("limit"))
                let offset = try Self.offset(query.get("offset"))
                return try await directory.archives(sessionId: query.get("sessionId"), offset: offset, count: limit)
            }
        }
        router.get("/v1/archives/:archiveId") { request, context in
            let archiveId = context.parameters.get("archiveId") ?? ""
            return try await respond(to: request, status: .ok) { _ throws(SignalingError) in
                try await directory.archive(archiveId)
            }
        }
        router.delete("/v1/archives/:archiveId") { request, context in
            let archiveId = context.parameters.get("archiveId") ?? ""
            var elsewhere: ForwardedResponse?
            let answer = try await respond(to: request, status: .noContent) { _ throws(SignalingError) in
                switch try await directory.deleteArchive(archiveId) {
                case .deleted:
                    break
                case .heldBy(let nodeId):
                    // The node that recorded it holds its files: it deletes them.
                    elsewhere = try await forward(request, toNode: nodeId, because: "holds archive \(archiveId)")
                }
                return nil as EmptyResult?
            }
            return elsewhere.map(Self.response) ?? answer
        }
    }

    private static func offset(_ text: String?) throws(SignalingError) -> Int {
        guard let text else { return 0 }
        guard let offset = Int(text), offset >= 0 else { throw .invalidParams("query.offset", "must be an integer of 0 or more, not \(text)") }
        return offset
    }

    private func signal(_ request: Request, sessionId: String, to connectionId: String?) async throws -> Response {
        try await respond(to: request, status: .noContent, session: .existing(sessionId)) { body throws(SignalingError) in
            let signal = try RESTBody.decode(RESTBody.Signal.self, from: body)
            try await directory.signal(
                sessionId: sessionId, from: .application,
                parameters: SignalParameters(to: connectionId, type: signal.type, data: signal.data, signalId: signal.signalId))
            return nil as EmptyResult?
        }
    }

    /// The session a request acts on, which in a cluster decides the node that answers it.
    private enum SessionRoute {
        case existing(String)
        /// `POST /v1/sessions`: the session is placed before it is created, so its id is settled
        /// first and the action gets a body that names it.
        case new
    }

    /// Authenticates, reads the body, hands the request to the node that serves its session when
    /// that is another node of the cluster, else runs `action`, and turns its result or error into JSON.
    private func respond<Result: Encodable>(
        to request: Request, status: HTTPResponse.Status, session: SessionRoute? = nil,
        _ action: (Data) async throws(SignalingError) -> Result?
    ) async throws -> Response {
        do throws(SignalingError) {
            try await authenticate(request)
            var body: Data
            do {
                body = Data(try await request.body.collect(upTo: Self.maximumBodyBytes).readableBytesView)
            } catch {
                throw .invalidParams("body", "larger than \(Self.maximumBodyBytes) bytes")
            }
            switch session {
            case nil:
                break
            case .existing(let sessionId):
                if let answer = try await answerElsewhere(request, sessionId: sessionId, body: body, placing: false) { return Self.response(answer) }
            case .new:
                let parsed = try body.isEmpty ? RESTBody.CreateSession() : RESTBody.decode(RESTBody.CreateSession.self, from: body)
                let sessionId = parsed.sessionId ?? SessionIdentifier.make(prefix: "s_")
                guard SessionIdentifier.isValid(sessionId) else { throw .invalidParams("body.sessionId", SessionIdentifier.rule) }
                // The node that places the session creates it as asked, under the id chosen here.
                body = try! JSONEncoder().encode(
                    RESTBody.CreateSession(
                        sessionId: sessionId, audio: parsed.audio, e2ee: parsed.e2ee, connectionEventsSuppressed: parsed.connectionEventsSuppressed,
                        archiveMode: parsed.archiveMode))
                if let answer = try await answerElsewhere(request, sessionId: sessionId, body: body, placing: true) { return Self.response(answer) }
            }
            guard let result = try await action(body) else { return Response(status: status) }
            return Self.json(result, status: status)
        } catch {
            return Self.json(error, status: Self.status(for: error.code))
        }
    }

    /// Hands `request` to node `nodeId` of the cluster, unless another node sent it here already.
    private func forward(_ request: Request, toNode nodeId: String, because reason: String) async throws(SignalingError) -> ForwardedResponse {
        guard let placement, request.headers[Self.forwardedByField] == nil else {
            throw SignalingError(.notFound, "node \(nodeId) \(reason) by the cluster's catalog, and this node was asked by another")
        }
        guard let node = try await placement.address(ofNode: nodeId) else {
            throw SignalingError(.unavailable, "node \(nodeId), which \(reason), is not live; try again once it is back")
        }
        return try await placement.forward(Self.forwarded(request, contentType: request.headers[.contentType], body: Data()), to: node)
    }

    /// `request` as another node receives it, with `body`.
    private static func forwarded(_ request: Request, contentType: String?, body: Data) -> ForwardedRequest {
        ForwardedRequest(
            method: request.method.rawValue, path: request.uri.description, authorization: request.headers[.authorization],
            contentType: contentType, body: body)
    }

    /// In a cluster, the answer of the node that serves `sessionId` when that is another node
    /// (placing the session first when `placing`); nil when this node answers. A request another
    /// node forwarded is always answered here.
    private func answerElsewhere(_ request: Request, sessionId: String, body: Data, placing: Bool) async throws(SignalingError) -> ForwardedResponse? {
        guard let placement, request.headers[Self.forwardedByField] == nil,
            case .node(let node) = try await directory.location(of: sessionId, placing: placing)
        else { return nil }
        return try await placement.forward(
            Self.forwarded(request, contentType: placing ? "application/json" : request.headers[.contentType], body: body), to: node)
    }

    static let forwardedByField = HTTPField.Name(forwardedByHeader)!

    private static func response(_ answer: ForwardedResponse) -> Response {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(status: HTTPResponse.Status(code: answer.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    private func authenticate(_ request: Request) async throws(SignalingError) {
        try await tokens.verifyRESTAuthorization(request.headers[.authorization], now: wallClock())
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func status(for code: SignalingErrorCode) -> HTTPResponse.Status {
        switch code {
        case .invalidToken, .tokenExpired: .unauthorized
        case .forbidden, .notOwner: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .limitReached, .rateLimited: .tooManyRequests
        case .mediaError: .badGateway
        case .unavailable: .serviceUnavailable
        case .internalError: .internalServerError
        default: .badRequest
        }
    }
}
