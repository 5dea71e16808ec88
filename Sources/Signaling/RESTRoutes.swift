import Foundation
import Hummingbird
import HummingbirdWebSocket
import SignalingProtocol

/// The REST API the app's backend calls, authenticated with a short-lived REST token in
/// `Authorization: Bearer <token>`. Bodies and errors are JSON; errors are `{"code", "message"}`.
struct RESTRoutes: Sendable {
    static let maximumBodyBytes = 65_536

    let directory: SessionDirectory
    let tokens: TokenAuthority
    let wallClock: @Sendable () -> Date

    private struct CreatedSession: Encodable {
        var sessionId: String
    }

    func register(on router: Router<BasicRequestContext>) {
        router.post("/v1/sessions") { request, _ in
            try await respond(to: request, status: .created) { body throws(SignalingError) in
                let parsed = try body.isEmpty ? RESTBody.CreateSession() : RESTBody.decode(RESTBody.CreateSession.self, from: body)
                return CreatedSession(sessionId: try await directory.createSession(id: parsed.sessionId))
            }
        }
        router.get("/v1/sessions/:sessionId") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            return try await respond(to: request, status: .ok) { _ throws(SignalingError) in
                guard let snapshot = await directory.snapshot(of: sessionId) else {
                    throw SignalingError(.notFound, "no session \(sessionId)")
                }
                return snapshot
            }
        }
        router.delete("/v1/sessions/:sessionId/connections/:connectionId") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let connectionId = context.parameters.get("connectionId") ?? ""
            return try await respond(to: request, status: .noContent) { _ throws(SignalingError) in
                try await directory.forceDisconnect(sessionId: sessionId, by: .application, connectionId: connectionId)
                return nil as EmptyResult?
            }
        }
        router.delete("/v1/sessions/:sessionId/streams/:streamId") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let streamId = context.parameters.get("streamId") ?? ""
            return try await respond(to: request, status: .noContent) { _ throws(SignalingError) in
                try await directory.forceUnpublish(sessionId: sessionId, by: .application, streamId: streamId)
                return nil as EmptyResult?
            }
        }
        router.get("/v1/sessions/:sessionId/subscribers/:subscriberId/stats") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let subscriberId = context.parameters.get("subscriberId") ?? ""
            return try await respond(to: request, status: .ok) { _ throws(SignalingError) in
                try await directory.statistics(sessionId: sessionId, subscriberId: subscriberId)
            }
        }
        router.get("/v1/sessions/:sessionId/streams/:streamId/stats") { request, context in
            let sessionId = context.parameters.get("sessionId") ?? ""
            let streamId = context.parameters.get("streamId") ?? ""
            return try await respond(to: request, status: .ok) { _ throws(SignalingError) in
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
                return try await respond(to: request, status: .noContent) { body throws(SignalingError) in
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
            return try await respond(to: request, status: .noContent) { body throws(SignalingError) in
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

    private func signal(_ request: Request, sessionId: String, to connectionId: String?) async throws -> Response {
        try await respond(to: request, status: .noContent) { body throws(SignalingError) in
            let signal = try RESTBody.decode(RESTBody.Signal.self, from: body)
            try await directory.signal(
                sessionId: sessionId, from: .application, parameters: SignalParameters(to: connectionId, type: signal.type, data: signal.data))
            return nil as EmptyResult?
        }
    }

    /// Authenticates, reads the body, runs `action`, and turns its result or error into JSON.
    private func respond<Result: Encodable>(
        to request: Request, status: HTTPResponse.Status,
        _ action: (Data) async throws(SignalingError) -> Result?
    ) async throws -> Response {
        do throws(SignalingError) {
            try await authenticate(request)
            let body: Data
            do {
                body = Data(try await request.body.collect(upTo: Self.maximumBodyBytes).readableBytesView)
            } catch {
                throw .invalidParams("body", "larger than \(Self.maximumBodyBytes) bytes")
            }
            guard let result = try await action(body) else { return Response(status: status) }
            return Self.json(result, status: status)
        } catch {
            return Self.json(error, status: Self.status(for: error.code))
        }
    }

    private func authenticate(_ request: Request) async throws(SignalingError) {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw SignalingError(.invalidToken, "missing \"Authorization: Bearer <REST token>\" header")
        }
        do {
            try await tokens.verifyRESTToken(String(header.dropFirst("Bearer ".count)), now: wallClock())
        } catch {
            throw SignalingError(error.code, error.description)
        }
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
        case .limitReached, .rateLimited: .tooManyRequests
        case .mediaError: .badGateway
        case .internalError: .internalServerError
        default: .badRequest
        }
    }
}
