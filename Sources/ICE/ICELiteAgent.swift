/// The router's ICE-lite agent for one transport (RFC 8445 section 2.5): it only answers the checks
/// of the full agent in the browser, always in the controlled role, and learns from them which
/// remote addresses are reachable and which one the browser nominated.
///
/// A struct state machine: `handle` and `tick` return what to do and the caller sends. Generic over
/// the address type so the media plane keeps its own socket address wrapper.
///
/// ## A check succeeds when, in this order
/// 1. it is a Binding request (indications are keepalives and are dropped quietly; anything else is
///    dropped),
/// 2. it carries a valid FINGERPRINT (otherwise dropped: on a shared port a bad one means "not STUN"),
/// 3. it carries USERNAME and MESSAGE-INTEGRITY (otherwise 400 Bad Request, unauthenticated),
/// 4. USERNAME is "our ufrag:their ufrag" (otherwise dropped: the check is for someone else), and
///    when the remote credentials are known "their ufrag" is the remote ufrag (otherwise dropped),
/// 5. MESSAGE-INTEGRITY verifies with our password (otherwise 401 Unauthorized, unauthenticated),
/// 6. it has no comprehension-required attribute we do not know (otherwise dropped),
/// 7. it does not carry ICE-CONTROLLED (otherwise 487 Role Conflict: a lite agent is always
///    controlled, so it never switches roles, RFC 8445 section 7.3.1.1), and it carries
///    ICE-CONTROLLING and PRIORITY (otherwise 400 Bad Request, authenticated).
///
/// ## Addresses
/// A successful check verifies its source: DTLS and media are accepted only from verified
/// addresses. At most `maximumVerifiedAddresses` are kept; a new one evicts the one whose last
/// successful check is oldest, never the nominated one. USE-CANDIDATE nominates the source;
/// a later USE-CANDIDATE from another address re-nominates. `selected` is the nominated address, or
/// before any nomination the most recently verified one.
///
/// ## Remote credentials arriving late
/// Checks can arrive before the SDP with the remote ufrag has been applied; they are answered and
/// each verified address remembers the ufrag its check named. `setRemote` then forgets addresses
/// verified under another ufrag.
///
/// ## Consent (RFC 7675)
/// Once an address is nominated, every successful check from it refreshes consent; `tick` reports
/// `.consentExpired` when `consentTimeout` passes without one, and the agent then forgets every
/// address. Before nomination nothing expires: the transport's own connect timeout covers that.
///
/// ## ICE restart
/// `restart` installs new credentials at once: checks with the old ufrag are dropped from then on.
/// Addresses verified before stay verified (media keeps flowing) until the first successful check
/// with the new credentials; that check forgets them, except its own source, and the nomination
/// with them unless the nominated address is that source. `restart` also refreshes consent, so the
/// browser has a whole timeout to complete the restart.
public struct ICELiteAgent<Address: Hashable> {
    /// The most addresses kept verified at once.
    public static var maximumVerifiedAddresses: Int { 8 }

    /// Our credentials, as sent in the SDP answer.
    public private(set) var localCredentials: ICECredentials
    /// The browser's credentials, once known. Only the ufrag is used: a lite agent sends no checks,
    /// so it never needs the remote password.
    public private(set) var remoteCredentials: ICECredentials?
    /// How long a nominated address keeps consent without a successful check, in nanoseconds.
    public let consentTimeout: UInt64
    /// Our password's bytes: the MESSAGE-INTEGRITY key of checks and of our responses.
    public private(set) var localIntegrityKey: [UInt8]

    private var localUsernameFragment: [UInt8]
    private var remoteUsernameFragment: [UInt8]?
    /// Verified addresses in the order they were first verified.
    private var entries: [Entry]
    /// Bumped by every restart, so addresses verified under older credentials can be told apart.
    private var generation: UInt32 = 0
    /// Whether `entries` may hold addresses verified before the last restart, which the next
    /// successful check retires.
    private var retiringEarlierGenerations = false
    private var nominatedAddress: Address?
    /// When the nominated address last passed a check (or was nominated, or a restart began).
    private var consentRefreshedAt: UInt64 = 0

    fileprivate struct Entry {
        var address: Address
        var generation: UInt32
        var lastSuccess: UInt64
        /// The ufrag the check named as its sender's; bytes, so later checks compare without a String.
        var remoteUsernameFragment: [UInt8]
    }

    /// An agent answering checks for `local`; `consentTimeout` is in nanoseconds (RFC 7675: 30 s).
    public init(local: ICECredentials, consentTimeout: UInt64 = 30_000_000_000) {
        localCredentials = local
        localUsernameFragment = Array(local.usernameFragment.utf8)
        localIntegrityKey = Array(local.password.utf8)
        self.consentTimeout = consentTimeout
        entries = []
        entries.reserveCapacity(Self.maximumVerifiedAddresses)
    }

    // MARK: Queries

    /// Whether a check from `address` succeeded: DTLS and media are accepted only from these.
    public func isVerified(_ address: Address) -> Bool {
        index(of: address) != nil
    }

    /// Where to send: the nominated address, or before nomination the most recently verified one.
    public var selected: Address? {
        nominatedAddress ?? entries.last?.address
    }

    /// The address the browser nominated with USE-CANDIDATE, if any.
    public var nominated: Address? { nominatedAddress }

    /// The verified addresses, oldest first; at most `maximumVerifiedAddresses`. Allocates: for the
    /// control plane and tests; the packet path asks `isVerified`.
    public var verifiedAddresses: [Address] {
        entries.map(\.address)
    }

    /// When consent runs out unless refreshed, in the clock of `now`; nil before nomination. A caller
    /// may schedule its next `tick` for then.
    public var consentDeadline: UInt64? {
        guard nominatedAddress != nil else { return nil }
        let (deadline, overflow) = consentRefreshedAt.addingReportingOverflow(consentTimeout)
        return overflow ? UInt64.max : deadline
    }

    // MARK: Credentials

    /// Applies the browser's credentials from its SDP. Addresses verified (under the current local
    /// credentials) by checks that named another remote ufrag are forgotten, and the nomination with
    /// them; read `selected` afterwards.
    public mutating func setRemote(_ remote: ICECredentials) {
        remoteCredentials = remote
        let ufrag = Array(remote.usernameFragment.utf8)
        remoteUsernameFragment = ufrag
        entries.removeAll { $0.generation == generation && $0.remoteUsernameFragment != ufrag }
        dropNominationIfForgotten()
    }

    /// An ICE restart: new local credentials and, when already known, the new remote ones. See the
    /// type's documentation for what happens to verified addresses.
    public mutating func restart(local: ICECredentials, remote: ICECredentials?, now: UInt64) {
        localCredentials = local
        localUsernameFragment = Array(local.usernameFragment.utf8)
        localIntegrityKey = Array(local.password.utf8)
        remoteCredentials = remote
        remoteUsernameFragment = remote.map { Array($0.usernameFragment.utf8) }
        generation &+= 1
        retiringEarlierGenerations = !entries.isEmpty
        if nominatedAddress != nil {
            consentRefreshedAt = now
        }
    }

    // MARK: Events

    /// Handles a STUN message that arrived from `source`. The message's buffer must still be alive:
    /// FINGERPRINT and MESSAGE-INTEGRITY are checked against it.
    public mutating func handle(_ message: STUNMessage, from source: Address, now: UInt64) -> ICELiteAction<Address> {
        guard message.isBindingRequest else {
            return .drop(message.isBindingIndication ? .indication : .notBindingRequest)
        }
        guard message.hasFingerprint else { return .drop(.missingFingerprint) }
        guard message.hasValidFingerprint() else { return .drop(.badFingerprint) }
        guard let username = message.username, message.hasMessageIntegrity else {
            return .respondError(
                code: 400, reason: "Bad Request: USERNAME and MESSAGE-INTEGRITY are required", authenticated: false)
        }

        let localCount = localUsernameFragment.count
        guard username.count > localCount, username[localCount] == UInt8(ascii: ":"),
            localUsernameFragment.elementsEqual(username[0..<localCount])
        else {
            return .drop(.unknownUsername)
        }
        let remotePart = username[(localCount + 1)...]
        if let remoteUsernameFragment, !remoteUsernameFragment.elementsEqual(remotePart) {
            return .drop(.wrongRemoteUsername)
        }

        guard message.hasValidMessageIntegrity(key: localIntegrityKey) else {
            return .respondError(code: 401, reason: "Unauthorized", authenticated: false)
        }
        guard message.unknownComprehensionRequiredAttribute == nil else {
            return .drop(.unknownComprehensionRequiredAttribute)
        }
        guard message.iceControlled == nil else {
            return .respondError(
                code: 487, reason: "Role Conflict: an ICE-lite agent is always controlled", authenticated: true)
        }
        guard message.iceControlling != nil else {
            return .respondError(code: 400, reason: "Bad Request: ICE-CONTROLLING is required", authenticated: true)
        }
        guard message.priority != nil else {
            return .respondError(code: 400, reason: "Bad Request: PRIORITY is required", authenticated: true)
        }

        recordSuccess(from: source, remoteUsernameFragment: remotePart, now: now)
        let response = ICELiteResponse(transactionID: message.transactionID, integrityKey: localIntegrityKey)
        if message.hasUseCandidate, nominatedAddress != source {
            nominatedAddress = source
            consentRefreshedAt = now
            return .nominated(source, respond: response)
        }
        if nominatedAddress == source {
            consentRefreshedAt = now
        }
        return .respond(response)
    }

    /// Parses `datagram` and handles it; a datagram that is not well-formed STUN is dropped as
    /// `.malformed`. For callers that do not need the message themselves.
    public mutating func handle(
        datagram: UnsafeRawBufferPointer, from source: Address, now: UInt64
    ) -> ICELiteAction<Address> {
        do throws(STUNError) {
            return handle(try STUNMessage(parsing: datagram), from: source, now: now)
        } catch {
            return .drop(.malformed)
        }
    }

    /// Reports `.consentExpired` once when the nominated address has gone `consentTimeout` without a
    /// successful check, and forgets every address; nil otherwise. Call it periodically (for
    /// example every second, or at `consentDeadline`).
    public mutating func tick(now: UInt64) -> ICELiteTimeout? {
        guard nominatedAddress != nil, now >= consentRefreshedAt, now - consentRefreshedAt >= consentTimeout else {
            return nil
        }
        entries.removeAll(keepingCapacity: true)
        retiringEarlierGenerations = false
        nominatedAddress = nil
        return .consentExpired
    }

    // MARK: Bookkeeping

    private mutating func recordSuccess(
        from source: Address, remoteUsernameFragment remote: Slice<UnsafeRawBufferPointer>, now: UInt64
    ) {
        // The first success with restarted credentials retires what older credentials verified.
        let current = generation
        if retiringEarlierGenerations {
            retiringEarlierGenerations = false
            entries.removeAll { $0.generation != current && $0.address != source }
            dropNominationIfForgotten()
        }

        if let index = index(of: source) {
            entries[index].lastSuccess = now
            entries[index].generation = current
            if !entries[index].remoteUsernameFragment.elementsEqual(remote) {
                entries[index].remoteUsernameFragment = Array(remote)
            }
            return
        }
        if entries.count >= Self.maximumVerifiedAddresses {
            evictLeastRecentlySuccessful()
        }
        entries.append(
            Entry(address: source, generation: current, lastSuccess: now, remoteUsernameFragment: Array(remote)))
    }

    /// Where `address` is in `entries`. A plain loop: callers in other modules run this generic code
    /// unspecialized, and there a closure capturing the address (`firstIndex(where:)`) costs a heap
    /// allocation per call.
    private func index(of address: Address) -> Int? {
        for index in entries.indices where entries[index].address == address {
            return index
        }
        return nil
    }

    private mutating func evictLeastRecentlySuccessful() {
        var victim: Int?
        for index in entries.indices where entries[index].address != nominatedAddress {
            if victim.map({ entries[index].lastSuccess < entries[$0].lastSuccess }) ?? true {
                victim = index
            }
        }
        if let victim {
            entries.remove(at: victim)
        }
    }

    private mutating func dropNominationIfForgotten() {
        if let nominatedAddress, !isVerified(nominatedAddress) {
            self.nominatedAddress = nil
        }
    }
}

extension ICELiteAgent: Sendable where Address: Sendable {}
extension ICELiteAgent.Entry: Sendable where Address: Sendable {}
