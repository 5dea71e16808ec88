// Switchyard browser client: the signaling protocol of docs/protocol.md over a WebSocket, with
// WebRTC (ICE-lite router, DTLS-SRTP, no trickle) for the media. An ES module with no dependencies.
//
//   import { Session } from "/switchyard.js";
//   const session = await Session.connect({ url: "ws://127.0.0.1:7880/v1/ws", sessionId, token });
//   session.addEventListener("streamCreated", async (e) => {
//     const subscriber = await session.subscribe(e.detail.stream);
//     videoElement.srcObject = subscriber.mediaStream;
//   });
//   const publisher = await session.publish({ name: "Alice" });
//
// Peer connections use the STUN and TURN servers the server gives in the connect reply
// (`iceServers`, docs/turn.md); `Session.connect({ ..., forceRelay: true })` makes them use TURN
// relays only, as the hosted platform's `forceTurn` does. `Session.connect({ ...,
// subscribeToSpeakerEvents: true })` brings the router's `activeSpeakerChanged` and `audioLevels`
// (docs/speakers.md). In a session created with `e2ee: true`, `Session.connect({ ..., e2eeSecret })`
// encrypts what this page sends and decrypts what it receives with a key derived from the secret,
// in encoded transforms the router cannot see into (docs/e2ee.md).

const PROTOCOL_VERSION = 1;
const REQUEST_TIMEOUT_MS = 15000;
const ICE_DISCONNECTED_GRACE_MS = 3000;
/** How long a dropped session tries to come back, and the pauses between tries (doubling). */
const RECONNECT_TIMEOUT_MS = 30000;
const RECONNECT_FIRST_PAUSE_MS = 250;
const RECONNECT_MAX_PAUSE_MS = 500;
const PC_CONFIG = { bundlePolicy: "max-bundle", rtcpMuxPolicy: "require" };

/** Events about one subscriber (data has `subscriberId`): also dispatched on that {@link Subscriber}. */
const SUBSCRIBER_EVENTS = new Set(["videoDisabled", "videoEnabled", "videoDisableWarning", "videoDisableWarningLifted",
  "videoLayerChanged"]);
/** The simulcast encodings `publish({ simulcast: true })` sends, lowest first (the router takes them
 *  in this order): a quarter, half and the whole of the camera's picture. */
const SIMULCAST_ENCODINGS = [
  { rid: "q", scaleResolutionDownBy: 4, maxBitrate: 150000 },
  { rid: "h", scaleResolutionDownBy: 2, maxBitrate: 500000 },
  { rid: "f", scaleResolutionDownBy: 1, maxBitrate: 1500000 },
];
/** Events about one of our streams (data has `streamId`): also dispatched on that {@link Publisher}. */
const PUBLISHER_EVENTS = new Set(["publisherVideoDisableWarning", "publisherVideoDisableWarningLifted",
  "publisherVideoDisabled", "publisherVideoEnabled", "muteForced"]);

/** An error answer from the server (`code` and `message` exactly as sent, see protocol.md), or a
 *  local failure (`code` `timeout`, `closed`, or `reconnecting` for a request made while the session
 *  is reconnecting; `e2eeSecretRequired` and `unsupported` for end-to-end encryption, docs/e2ee.md).
 *  `method` is the request's method. */
export class SwitchyardError extends Error {
  /** @param {string} code @param {string} message @param {string} [method] @param {string} [location] */
  constructor(code, message, method, location) {
    super(message);
    this.name = "SwitchyardError";
    this.code = code;
    this.method = method;
    /** With `sessionOnOtherNode`: the WebSocket URL of the cluster node that serves the session. */
    this.location = location;
  }

  toString() { return `SwitchyardError ${this.method ? this.method + " " : ""}${this.code}: ${this.message}`; }
}

const LOCAL_CODES = new Set(["timeout", "closed", "reconnecting"]);

/** PBKDF2 rounds that make the session's key from its secret: a guessed secret costs as much. */
const E2EE_KEY_ROUNDS = 100000;

/**
 * The end-to-end encryption of one session's media (docs/e2ee.md): the AES-GCM key derived from the
 * secret and the session id, and the worker whose encoded transforms (RTCRtpScriptTransform) seal
 * every frame sent and open every frame received. Frames another key sealed are dropped there, and
 * reported to `onDecryptionFailed(receiverId, kind, count)`.
 */
class FrameEncryption {
  static async create(secret, sessionId, onDecryptionFailed) {
    if (typeof RTCRtpScriptTransform === "undefined" || !globalThis.crypto?.subtle) {
      throw new SwitchyardError("unsupported", "end-to-end encryption needs encoded transforms (RTCRtpScriptTransform) and WebCrypto in a secure context", "connect");
    }
    const encoder = new TextEncoder();
    const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "PBKDF2", false, ["deriveKey"]);
    const key = await crypto.subtle.deriveKey(
      { name: "PBKDF2", salt: encoder.encode(`switchyard-e2ee/${sessionId}`), iterations: E2EE_KEY_ROUNDS, hash: "SHA-256" },
      material, { name: "AES-GCM", length: 128 }, false, ["encrypt", "decrypt"]);
    const worker = new Worker(new URL("./switchyard-e2ee-worker.js", import.meta.url));
    worker.postMessage({ key });
    worker.onmessage = (event) => {
      if (event.data?.type === "decryptionFailed") onDecryptionFailed(event.data.id, event.data.kind, event.data.count);
    };
    return new FrameEncryption(worker);
  }

  constructor(worker) { this.worker = worker; }

  /** Seals what `sender` sends. */
  encrypt(sender) {
    sender.transform = new RTCRtpScriptTransform(this.worker, { operation: "encrypt", kind: sender.track?.kind ?? "video" });
  }

  /** Opens what `receiver` receives, once; `id` names it in failure reports. */
  decrypt(receiver, id) {
    if (receiver.transform) return;
    receiver.transform = new RTCRtpScriptTransform(this.worker, { operation: "decrypt", kind: receiver.track.kind, id });
  }

  close() { this.worker.terminate(); }
}

/** A signal id: 128 random bits in hex, so a signal resent after a reconnection is delivered once. */
function newSignalId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Keeps only the given codecs (by MIME type, in that order) on a transceiver; ignored where unsupported. */
function preferCodecs(transceiver, kind, mimeTypes) {
  const capabilities = globalThis.RTCRtpSender?.getCapabilities?.(kind);
  if (!capabilities || !transceiver.setCodecPreferences) return;
  const codecs = mimeTypes.flatMap((mime) => capabilities.codecs.filter((c) => c.mimeType.toLowerCase() === mime));
  try { if (codecs.length) transceiver.setCodecPreferences(codecs); } catch { /* keep the browser's defaults */ }
}

/**
 * Calls `restart()` when the peer connection's ICE state is `failed`, or `disconnected` for more than
 * 3 s; one restart at a time, re-armed if the state is still bad afterwards. `onPath(false)` when the
 * media path breaks (ICE disconnected or failed), `onPath(true)` when it is back.
 */
function watchIce(pc, restart, onPath) {
  let timer = null;
  let restarting = false;
  let broken = false;
  const run = async () => {
    timer = null;
    if (restarting || pc.signalingState === "closed") return;
    restarting = true;
    try { await restart(); } catch (error) { console.warn("switchyard: ICE restart failed", error); }
    restarting = false;
    check();
  };
  const check = () => {
    const state = pc.iceConnectionState;
    const isBroken = state === "failed" || state === "disconnected";
    if (isBroken !== broken && (isBroken || state === "connected" || state === "completed")) { broken = isBroken; onPath(!broken); }
    if (state === "failed") { clearTimeout(timer); timer = setTimeout(run, 0); }
    else if (state === "disconnected") { if (!timer) timer = setTimeout(run, ICE_DISCONNECTED_GRACE_MS); }
    else { clearTimeout(timer); timer = null; }
  };
  pc.addEventListener("iceconnectionstatechange", check);
  return () => { clearTimeout(timer); pc.removeEventListener("iceconnectionstatechange", check); };
}

/**
 * Which way a peer connection's media goes, from its selected candidate pair's local candidate:
 * `{path, relayProtocol, candidateType, protocol, remoteAddress}` where `path` is `"udp"` or
 * `"tcp"` (straight to the router: ICE over UDP or TCP) or `"relay"` (through a TURN server; then
 * `relayProtocol` is how this browser reaches it: `"udp"`, `"tcp"` or `"tls"`); null until a pair
 * is selected.
 * @param {RTCPeerConnection} pc
 */
export async function mediaPath(pc) {
  const stats = await pc.getStats();
  let pair = null;
  stats.forEach((s) => {
    // The transport names the selected pair (the standard); Firefox marks the pair itself instead.
    if (s.type === "transport" && s.selectedCandidatePairId) pair = stats.get(s.selectedCandidatePairId) ?? pair;
  });
  if (!pair) stats.forEach((s) => { if (s.type === "candidate-pair" && (s.selected || (s.nominated && s.state === "succeeded"))) pair ??= s; });
  const local = pair && stats.get(pair.localCandidateId);
  if (!local) return null;
  const remote = stats.get(pair.remoteCandidateId);
  const relayed = local.candidateType === "relay";
  return {
    path: relayed ? "relay" : local.protocol,
    relayProtocol: relayed ? local.relayProtocol : undefined,
    candidateType: local.candidateType,
    protocol: local.protocol,
    remoteAddress: remote ? `${remote.address ?? remote.ip}:${remote.port}` : undefined,
  };
}

/**
 * One connection to a Switchyard session. Dispatches every protocol event (`connectionCreated`,
 * `streamCreated`, `streamDestroyed`, `streamPropertyChanged`, `videoDisabled`, `signal`,
 * `sessionDisconnected`, ...) as a `CustomEvent` of the same name whose `detail` is the event's `data`.
 * A WebSocket that drops without `sessionDisconnected` is reconnected (`reconnect`, docs/protocol.md):
 * `sessionReconnecting`, then `sessionReconnected` (detail: {connection}) followed by the events
 * missed meanwhile, in order; publishers and subscribers go on meanwhile. If it cannot come back
 * (the server keeps no grace period, refuses, or 30 s pass), a local `sessionDisconnected` with reason
 * `networkDisconnected`. `connectionStatus` says where it stands.
 * In a cluster, `connect` follows the node that serves the session (`url` may be any node or a load
 * balancer). When that node drains or is lost, the session connects afresh through `url`, lands on a
 * live node as a new connection and publishes every stream again: `sessionReconnecting`, then
 * `sessionMoved` (detail: {connection}); each Publisher fires `streamMoved` (detail: {stream}, its new
 * StreamInfo); subscriptions end, and the others' streams come again as `streamCreated`
 * (docs/cluster.md).
 * An error answer that cannot be matched to a request (`"id": null`) is dispatched as `error`.
 * Force mute (moderators: `forceMuteStream`, `forceMuteAll`, `disableForceMute`): `muteForced`
 * (detail: {streamId}) when a moderator muted one of our streams, also on its Publisher, whose
 * microphone track is then disabled (`publisher.setPublishAudio(true)` turns it on again; a stream
 * muted as it is published fires it on the Session before `publish` resolves, and starts with its
 * track disabled); `forceMuteChanged` (detail: {active, excludedStreamIds}) when force mute is
 * turned on or off, kept in `forceMute`.
 * Speakers (connected with `subscribeToSpeakerEvents`): `activeSpeakerChanged` (detail: {streamId},
 * null when the floor went free), kept in `activeSpeakerStreamId`; `audioLevels` (detail: {levels:
 * [{streamId, level, speaking}]}, the loudest streams, at most 4 a second; never replayed after a
 * reconnection, since a level is stale by then).
 * Connection events suppressed (connected with `suppressConnectionEvents`, or in a session created
 * with `connectionEventsSuppressed: true`, for all but moderators; docs/protocol.md): no
 * `connectionCreated` / `connectionDestroyed` for the others; `connections` holds ours and the
 * publishers', and `connectionCountChanged` (detail: {connectionCount}, at most once a second) keeps
 * `connectionCount` current.
 * Archives (docs/archiving.md): `archiveStarted` (detail: {id, name}) and `archiveStopped` (detail:
 * {id, name, status, reason}) when the session starts and stops being recorded; `archive` holds the
 * archive recording now (also from the connect reply when the session already was), null when none:
 * what a recording indicator shows. Moderators: `startArchive(options)`, `stopArchive(archiveId)`.
 */
export class Session extends EventTarget {
  /**
   * Opens the WebSocket and joins the session.
   * @param {{url: string, sessionId: string, token: string, forceRelay?: boolean,
   *   subscribeToSpeakerEvents?: boolean, suppressConnectionEvents?: boolean, e2eeSecret?: string}} options `url` e.g.
   *   `ws://127.0.0.1:7880/v1/ws`; `forceRelay`: media only through the TURN servers of the connect
   *   reply (`iceTransportPolicy: "relay"`), refused when the server gives none;
   *   `subscribeToSpeakerEvents`: receive `activeSpeakerChanged` and `audioLevels`
   *   (docs/speakers.md); `suppressConnectionEvents`: the count of connections instead of each
   *   join and leave (an audience member of a broadcast, docs/protocol.md); `e2eeSecret`: the secret of a session created with `e2ee: true`, required
   *   there and refused elsewhere (docs/e2ee.md)
   * @returns {Promise<Session>} once `connect` succeeded; rejects with {@link SwitchyardError}
   */
  static async connect({ url, sessionId, token, forceRelay = false, subscribeToSpeakerEvents = false, suppressConnectionEvents = false, e2eeSecret }) {
    const session = new Session(url);
    session.#entryUrl = url;
    session.#token = token;
    session.#forceRelay = forceRelay;
    session.#speakerEvents = subscribeToSpeakerEvents;
    session.#suppressConnectionEvents = suppressConnectionEvents;
    session.#connected(await session.#join(sessionId));
    if (forceRelay && !session.iceServers.some((server) => [server.urls].flat().some((u) => /^turns?:/i.test(u)))) {
      await session.disconnect();
      throw new SwitchyardError("invalidParams", "forceRelay needs a TURN server, and the server gave none (it has no turn configuration)", "connect");
    }
    if (session.e2ee !== (e2eeSecret !== undefined && e2eeSecret !== "")) {
      await session.disconnect();
      throw session.e2ee
        ? new SwitchyardError("e2eeSecretRequired", `session ${session.sessionId} is end-to-end encrypted: connect with its e2eeSecret`, "connect")
        : new SwitchyardError("invalidParams", `e2eeSecret given, but session ${session.sessionId} is not end-to-end encrypted (create it with e2ee: true)`, "connect");
    }
    if (session.e2ee) {
      try {
        session.#encryption = await FrameEncryption.create(e2eeSecret, session.sessionId, (id, kind, count) => session.#decryptionFailed(id, kind, count));
      } catch (error) {
        await session.disconnect();
        throw error;
      }
    }
    return session;
  }

  /** Frames of one of our subscribers that did not open with this session's key. */
  #decryptionFailed(subscriberId, kind, count) {
    const subscriber = this.subscribers.get(subscriberId);
    if (!subscriber) return;
    subscriber.decryptionFailures[kind] = count;
    const detail = { subscriberId, streamId: subscriber.streamId, kind, count };
    subscriber.dispatchEvent(new CustomEvent("decryptionFailed", { detail }));
    this.dispatchEvent(new CustomEvent("decryptionFailed", { detail }));
  }

  /** Opens a WebSocket at the entry URL and connects; in a cluster, a node that does not serve the
   *  session names the one that does (at most a few hops: more means placement moved meanwhile). */
  async #join(sessionId) {
    let url = this.#entryUrl;
    for (let hops = 0; ; hops++) {
      this.url = url;
      await this.#open();
      try {
        const params = { sessionId, token: this.#token };
        if (this.#speakerEvents) params.subscribeToSpeakerEvents = true;
        if (this.#suppressConnectionEvents) params.connectionEventsSuppressed = true;
        return await this.#send("connect", params);
      } catch (error) {
        this.#ws.close();
        if (error.code !== "sessionOnOtherNode" || !error.location || hops >= 3) throw error;
        url = error.location;
      }
    }
  }

  #ws; #nextId = 1; #pending = new Map(); #early = []; #ready = false; #closed = false; #sawDisconnected = false;
  #status = "connecting"; #reconnection = null; #lastSeq = 0; #leaving = false; #waiters = [];
  #entryUrl; #token; #nodeId = null; #disconnectReason = null; #forceRelay = false; #speakerEvents = false;
  #suppressConnectionEvents = false;
  /** @type {FrameEncryption|null} */ #encryption = null;

  /** `connecting`, `connected`, `reconnecting`, `disconnected` (left, or ended by the server) or
   *  `failed` (dropped and could not come back). */
  get connectionStatus() { return this.#status; }

  /** @private use {@link Session.connect} */
  constructor(url) {
    super();
    this.url = url;
    /** @type {{connectionId: string, creationTime: number, data: string}|null} this connection */
    this.connection = null;
    /** @type {string|null} */ this.role = null;
    /** @type {object|null} what the role allows */ this.capabilities = null;
    /** @type {string|null} */ this.sessionId = null;
    /** @type {Map<string, object>} connectionId → ConnectionInfo, kept current by the events */
    this.connections = new Map();
    /** @type {number} the session's connections, ours included (from the replies, then the
     *  connection events or, without them, `connectionCountChanged`) */
    this.connectionCount = 0;
    /** @type {Map<string, object>} streamId → StreamInfo, ours included, kept current by the events */
    this.streams = new Map();
    /** @type {Map<string, Publisher>} streamId → our publishers */
    this.publishers = new Map();
    /** @type {Map<string, Subscriber>} subscriberId → our subscribers */
    this.subscribers = new Map();
    /** @type {RTCIceServer[]} the STUN and TURN servers of the last connect or reconnect reply, TURN
     *  ones with this connection's credentials; empty when the server has none */
    this.iceServers = [];
    /** @type {{active: boolean, excludedStreamIds?: string[]}} whether streams published now start
     *  muted (a moderator's `forceMuteAll`, until `disableForceMute`) */
    this.forceMute = { active: false };
    /** The archive recording the session now ({id, name}), null when none records. */
    this.archive = null;
    /** @type {string|null} the stream the router hears as the session's dominant speaker (kept
     *  current only with `subscribeToSpeakerEvents`; seeded from the connect reply either way) */
    this.activeSpeakerStreamId = null;
    /** @type {boolean} whether the session is end-to-end encrypted (created with `e2ee: true`) */
    this.e2ee = false;
  }

  /** Our frame encryption, for our publishers and subscribers; null outside an e2ee session. */
  get _encryption() { return this.#encryption; }

  /** The configuration every peer connection of this session is created with: the server's
   *  `iceServers`, and relays only with `forceRelay`. */
  get peerConnectionConfiguration() {
    return { ...PC_CONFIG, iceServers: this.iceServers, ...(this.#forceRelay ? { iceTransportPolicy: "relay" } : {}) };
  }

  /** Gives the open peer connections the credentials of the last reply, so an ICE restart after a
   *  long call still authenticates to the TURN server. */
  #refreshPeerConnections() {
    const pcs = [...this.publishers.values(), ...this.subscribers.values()].map((owner) => owner.pc);
    for (const pc of pcs) {
      try { pc.setConfiguration(this.peerConnectionConfiguration); } catch (error) { console.warn("switchyard: new ICE servers refused", error); }
    }
  }

  #open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      this.#ws = ws;
      ws.onopen = () => { this.#closed = false; resolve(); };
      ws.onerror = () => reject(new SwitchyardError("closed", `could not open ${this.url}`));
      ws.onmessage = (event) => { if (this.#ws === ws) this.#receive(event.data); };
      ws.onclose = (event) => { if (this.#ws === ws) this.#socketClosed(event); };
    });
  }

  #connected(result) {
    this.connection = result.connection;
    this.role = result.role;
    this.capabilities = result.capabilities;
    this.sessionId = result.session.sessionId;
    this.#reconnection = result.reconnection ?? null;
    this.#nodeId = result.nodeId ?? null;
    this.iceServers = result.iceServers ?? [];
    this.forceMute = result.session.forceMute ?? { active: false };
    this.archive = result.session.archive ?? null;
    this.activeSpeakerStreamId = result.session.activeSpeakerStreamId ?? null;
    this.connectionCount = result.session.connectionCount ?? 0;
    // Once encrypted, always: a node the session moved to keeps its media sealed.
    this.e2ee = this.e2ee || result.session.e2ee === true;
    this.#status = "connected";
    for (const c of result.session.connections) this.connections.set(c.connectionId, c);
    for (const s of result.session.streams) this.streams.set(s.streamId, s);
    this.#ready = true;
    // Events that came before the reply go out once the caller has had a chance to add listeners.
    // Later events queue behind them, so the order holds.
    if (this.#early.length) {
      setTimeout(() => { while (this.#early.length) { const m = this.#early.shift(); this.#event(m.event, m.data ?? {}); } }, 0);
    }
  }

  /**
   * Sends one request and waits for its answer. The library's other methods use it; it is public for
   * methods it does not wrap (`forceDisconnect`, `forceUnpublish`, `getPublisherStats`, ...).
   * @param {string} method @param {object} [params]
   * @returns {Promise<object>} the `result`; rejects with {@link SwitchyardError}
   */
  request(method, params = {}) {
    if (this.#status === "reconnecting") {
      return Promise.reject(new SwitchyardError("reconnecting", "the session is reconnecting", method));
    }
    return this.#send(method, params);
  }

  #send(method, params) {
    if (this.#closed || this.#ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new SwitchyardError("closed", "the WebSocket is closed", method));
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new SwitchyardError("timeout", `no answer in ${REQUEST_TIMEOUT_MS} ms`, method));
      }, REQUEST_TIMEOUT_MS);
      this.#pending.set(id, { method, resolve, reject, timer });
      this.#ws.send(JSON.stringify({ v: PROTOCOL_VERSION, id, method, params }));
    });
  }

  #receive(text) {
    let message;
    try { message = JSON.parse(text); } catch { return console.warn("switchyard: not JSON", text); }
    if (message.event !== undefined) {
      // Events without a `seq` (`audioLevels`) are never replayed: each is taken as it comes.
      if (typeof message.seq === "number") {
        if (message.seq <= this.#lastSeq) return;  // replayed after a reconnection, already seen
        this.#lastSeq = message.seq;
      }
      if (this.#ready && this.#status !== "reconnecting" && !this.#early.length) this.#event(message.event, message.data ?? {});
      else this.#early.push(message);
      return;
    }
    const pending = message.id != null ? this.#pending.get(message.id) : undefined;
    if (!pending) {
      if (message.error) this.dispatchEvent(new CustomEvent("error", { detail: message.error }));
      return;
    }
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new SwitchyardError(message.error.code, message.error.message, pending.method, message.error.location));
    else pending.resolve(message.result ?? {});
  }

  #event(name, data) {
    switch (name) {
      case "connectionCreated": this.connections.set(data.connection.connectionId, data.connection); this.connectionCount += 1; break;
      case "connectionDestroyed": this.connections.delete(data.connection.connectionId); this.connectionCount -= 1; break;
      case "connectionCountChanged": this.connectionCount = data.connectionCount; break;
      case "streamCreated": case "streamPropertyChanged": this.streams.set(data.stream.streamId, data.stream); break;
      case "streamDestroyed": this.streams.delete(data.stream.streamId); break;
      case "forceMuteChanged": this.forceMute = data; break;
      case "archiveStarted": this.archive = { id: data.id, name: data.name }; break;
      case "archiveStopped": if (this.archive?.id === data.id) this.archive = null; break;
      case "activeSpeakerChanged": this.activeSpeakerStreamId = data.streamId ?? null; break;
      case "sessionDisconnected":
        this.#sawDisconnected = true;
        this.#disconnectReason = data.reason;
        // In a cluster the library moves the session to another node by itself (`sessionMoved`).
        if (data.reason === "nodeDraining" && this.#nodeId && !this.#leaving) return;
        break;
    }
    const targets = [this];
    if (SUBSCRIBER_EVENTS.has(name)) {
      const subscriber = this.subscribers.get(data.subscriberId);
      if (subscriber) { subscriber._videoEvent(name, data); targets.push(subscriber); }
    } else if (name === "subscriberDestroyed") {
      const subscriber = this.subscribers.get(data.subscriberId);
      if (subscriber) targets.push(subscriber);
    } else if (PUBLISHER_EVENTS.has(name)) {
      const publisher = this.publishers.get(data.streamId);
      if (publisher) {
        if (name === "muteForced") publisher._muteForced();
        targets.push(publisher);
      }
    } else if (name === "streamPropertyChanged" || name === "streamDestroyed") {
      const publisher = this.publishers.get(data.stream.streamId);
      if (publisher) { publisher.stream = data.stream; targets.push(publisher); }
      for (const s of this.subscribers.values()) if (s.streamId === data.stream.streamId) { s.stream = data.stream; targets.push(s); }
    }
    for (const target of targets) target.dispatchEvent(new CustomEvent(name, { detail: data }));
    if (name === "streamDestroyed" || name === "subscriberDestroyed") {
      for (const t of targets) if (t !== this) t._ended();
    }
  }

  #socketClosed(event) {
    this.#closed = true;
    const reconnecting = this.#status === "reconnecting";
    const dropped = this.#ready && !reconnecting && !this.#sawDisconnected && !this.#leaving && this.#reconnection;
    // Set before the requests in flight fail, so a signal among them knows to wait and resend.
    if (dropped) this.#status = "reconnecting";
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer);
      p.reject(new SwitchyardError("closed", `WebSocket closed (${event.code})`, p.method));
      this.#pending.delete(id);
    }
    if (!this.#ready || reconnecting) return;
    if (this.#sawDisconnected && this.#disconnectReason === "nodeDraining" && this.#nodeId && !this.#leaving) {
      this.#status = "reconnecting";
      this.dispatchEvent(new CustomEvent("sessionReconnecting", { detail: { message: "the node is draining" } }));
      this.#reconnect({ resume: false });
      return;
    }
    if (dropped) {
      this.dispatchEvent(new CustomEvent("sessionReconnecting", { detail: { message: `WebSocket closed (${event.code})` } }));
      this.#reconnect();
      return;
    }
    this.#end(`WebSocket closed (${event.code})`);
  }

  /** Takes the connection back on new WebSockets until the server answers, refuses, or time runs out.
   *  In a cluster, once the node refuses or cannot be reached (drained, lost), it also connects
   *  afresh through the entry URL, which places the session on a live node, and publishes again. */
  async #reconnect({ resume = true } = {}) {
    const deadline = Date.now() + RECONNECT_TIMEOUT_MS;
    let pause = RECONNECT_FIRST_PAUSE_MS;
    let lastProblem = "";
    let nodeUrl = this.url;
    while (Date.now() < deadline && !this.#leaving) {
      if (!resume) {
        try {
          await this.#move();
          return;
        } catch (error) {
          lastProblem = error.message;
          if (!LOCAL_CODES.has(error.code) && error.code !== "unavailable") break;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(pause * 2, RECONNECT_MAX_PAUSE_MS);
        continue;
      }
      try {
        this.url = nodeUrl;
        await this.#open();
        const result = await this.#send("reconnect", {
          sessionId: this.sessionId, connectionId: this.connection.connectionId,
          reconnectSecret: this.#reconnection.secret, lastEventSeq: this.#lastSeq,
        });
        this.connection = result.connection;
        this.#reconnection = result.reconnection ?? null;
        // Joins and leaves missed while away are replayed after this reply, whose count has them already.
        const hearsConnectionEvents = !this.#suppressConnectionEvents && (result.session.connectionEventsSuppressed !== true || result.role === "moderator");
        if (!hearsConnectionEvents) this.connectionCount = result.session.connectionCount ?? this.connectionCount;
        if (result.iceServers) {
          this.iceServers = result.iceServers;
          this.#refreshPeerConnections();
        }
        this.#status = "connected";
        this.dispatchEvent(new CustomEvent("sessionReconnected", { detail: { connection: result.connection } }));
        while (this.#early.length && this.#status === "connected") { const m = this.#early.shift(); this.#event(m.event, m.data ?? {}); }
        for (const resolve of this.#waiters.splice(0)) resolve(true);
        return;
      } catch (error) {
        lastProblem = error.message;
        try { this.#ws.close(); } catch { /* already closed */ }
        // In a cluster, a node reached through a load balancer that does not serve the session names the one that does.
        if (error.code === "sessionOnOtherNode" && error.location) {
          nodeUrl = error.location;
          continue;
        }
        // The server answered and said no (its grace period ended, the events missed are gone):
        // asking again will not change its mind. In a cluster, a lost node cannot be asked at all.
        if (this.#nodeId && (!LOCAL_CODES.has(error.code) || error.code === "closed")) {
          resume = LOCAL_CODES.has(error.code);
          try {
            await this.#move();
            return;
          } catch (moveError) {
            lastProblem = moveError.message;
          }
        } else if (!LOCAL_CODES.has(error.code)) {
          break;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, RECONNECT_MAX_PAUSE_MS);
    }
    this.#end(`could not reconnect${lastProblem ? ": " + lastProblem : ""}`);
  }

  /** Joins the session afresh through the entry URL as a new connection, publishes every stream
   *  again on the node that serves it now (each Publisher fires `streamMoved`), ends the
   *  subscriptions (the others' streams come again as `streamCreated`) and fires `sessionMoved`. */
  async #move() {
    // A new connection numbers its events from the start; those that come with the reply wait in
    // #early and follow the reply's picture.
    this.#lastSeq = 0;
    this.#early = [];
    const result = await this.#join(this.sessionId);
    const before = { streams: new Map(this.streams), connections: new Map(this.connections), speaker: this.activeSpeakerStreamId };
    this.connections.clear();
    this.streams.clear();
    this.#sawDisconnected = false;
    this.#disconnectReason = null;
    this.#connected(result);
    for (const s of [...this.subscribers.values()]) s._ended();
    for (const [id, stream] of before.streams) {
      // Our own streams are not destroyed: they move with their publishers (`streamMoved`).
      if (!this.streams.has(id) && !this.publishers.has(id)) this.dispatchEvent(new CustomEvent("streamDestroyed", { detail: { stream, reason: "networkDisconnected" } }));
    }
    for (const [id, connection] of before.connections) {
      if (!this.connections.has(id)) this.dispatchEvent(new CustomEvent("connectionDestroyed", { detail: { connection, reason: "networkDisconnected" } }));
    }
    for (const [id, connection] of this.connections) {
      if (!before.connections.has(id) && id !== this.connection.connectionId) this.dispatchEvent(new CustomEvent("connectionCreated", { detail: { connection } }));
    }
    for (const [id, stream] of this.streams) {
      if (!before.streams.has(id)) this.dispatchEvent(new CustomEvent("streamCreated", { detail: { stream } }));
    }
    if (this.#speakerEvents && this.activeSpeakerStreamId !== before.speaker) {
      this.dispatchEvent(new CustomEvent("activeSpeakerChanged", { detail: { streamId: this.activeSpeakerStreamId } }));
    }
    for (const publisher of [...this.publishers.values()]) {
      this.publishers.delete(publisher.streamId);
      try {
        const options = { ...publisher._options, publishAudio: publisher.mediaStream.getAudioTracks().some((t) => t.enabled),
          publishVideo: publisher.mediaStream.getVideoTracks().some((t) => t.enabled) };
        const { pc, result: published } = await this.#publishOver(publisher.mediaStream, options);
        publisher._moved(pc, published.stream);
        this.publishers.set(publisher.streamId, publisher);
      } catch {
        publisher._ended();
      }
    }
    this.dispatchEvent(new CustomEvent("sessionMoved", { detail: { connection: this.connection } }));
    for (const resolve of this.#waiters.splice(0)) resolve(true);
  }

  /** The session is over: everything stops, and a local `sessionDisconnected` if the server sent none. */
  #end(message) {
    this.#status = this.#sawDisconnected || this.#leaving ? "disconnected" : "failed";
    this.#early = [];
    for (const resolve of this.#waiters.splice(0)) resolve(false);
    for (const p of [...this.publishers.values()]) p._ended();
    for (const s of [...this.subscribers.values()]) s._ended();
    if (!this.#sawDisconnected) {
      this.dispatchEvent(new CustomEvent("sessionDisconnected", { detail: { reason: "networkDisconnected", message, local: true } }));
    }
  }

  /** Resolves true once the session is connected again, false if it ends instead. */
  #backOnline() {
    if (this.#status === "connected") return Promise.resolve(true);
    if (this.#status !== "reconnecting") return Promise.resolve(false);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Publishes camera and microphone (or the given MediaStream's tracks) over a new peer connection.
   * @param {{name?: string, audio?: boolean, video?: boolean, mediaStream?: MediaStream,
   *   videoType?: string, publishAudio?: boolean, publishVideo?: boolean, audioFallback?: object,
   *   simulcast?: boolean, redundantAudio?: boolean}} [options]
   *   `audio`/`video` choose the tracks to ask getUserMedia for (ignored with `mediaStream`);
   *   `simulcast` sends the video as three encodings (a quarter, half and all of the picture), from
   *   which the router gives each subscriber the one that fits its preference and its network;
   *   `redundantAudio` (on unless false) sends the audio as Opus RED, each packet repeating the one
   *   before, so a lost packet costs no audio (docs/red.md); it about doubles the audio's bitrate
   * @returns {Promise<Publisher>}
   */
  async publish({
    name, audio = true, video = true, mediaStream, videoType, publishAudio, publishVideo, audioFallback, simulcast = false, redundantAudio = true,
  } = {}) {
    if (this.e2ee && !this.#encryption) throw new SwitchyardError("e2eeSecretRequired", "this session is end-to-end encrypted", "publish");
    const ownsMedia = !mediaStream;
    if (!mediaStream) mediaStream = await navigator.mediaDevices.getUserMedia({ audio, video });
    try {
      const options = { name, videoType, publishAudio, publishVideo, audioFallback, simulcast, redundantAudio };
      const { pc, result } = await this.#publishOver(mediaStream, options);
      const publisher = new Publisher(this, pc, result.stream, mediaStream, ownsMedia);
      publisher._options = { name, videoType, audioFallback, simulcast, redundantAudio };
      this.publishers.set(publisher.streamId, publisher);
      return publisher;
    } catch (error) {
      if (ownsMedia) mediaStream.getTracks().forEach((t) => t.stop());
      throw error;
    }
  }

  /** A new peer connection sending `mediaStream`, published with `publish` and answered. */
  async #publishOver(mediaStream, { name, videoType, publishAudio, publishVideo, audioFallback, simulcast, redundantAudio = true }) {
    const pc = new RTCPeerConnection(this.peerConnectionConfiguration);
    try {
      const audioTrack = mediaStream.getAudioTracks()[0];
      const videoTrack = mediaStream.getVideoTracks()[0];
      // RED first makes Chromium send it; the router answers RED only around the Opus it takes.
      // Encrypted, RED's blocks would be sealed with the frame, so the router could not take them.
      const audioCodecs = redundantAudio && !this.#encryption ? ["audio/red", "audio/opus"] : ["audio/opus"];
      const senders = [];
      if (audioTrack) {
        const transceiver = pc.addTransceiver(audioTrack, { direction: "sendonly", streams: [mediaStream] });
        preferCodecs(transceiver, "audio", audioCodecs);
        senders.push(transceiver.sender);
      }
      if (videoTrack) {
        const init = { direction: "sendonly", streams: [mediaStream] };
        if (simulcast) init.sendEncodings = SIMULCAST_ENCODINGS.map((e) => ({ ...e }));
        const transceiver = pc.addTransceiver(videoTrack, init);
        preferCodecs(transceiver, "video", ["video/vp8", "video/rtx"]);
        senders.push(transceiver.sender);
      }
      if (this.#encryption) for (const sender of senders) this.#encryption.encrypt(sender);
      const offer = await pc.createOffer();
      await pc.setLocalDescription(offer);
      const settings = videoTrack?.getSettings();
      const params = { sdpOffer: pc.localDescription.sdp };
      if (name !== undefined) params.name = name;
      if (videoType !== undefined) params.videoType = videoType;
      if (settings?.width && settings?.height) params.videoDimensions = { width: settings.width, height: settings.height };
      if (publishAudio !== undefined) params.publishAudio = publishAudio;
      if (publishVideo !== undefined) params.publishVideo = publishVideo;
      if (audioFallback !== undefined) params.audioFallback = audioFallback;
      if (publishAudio === false && audioTrack) audioTrack.enabled = false;
      if (publishVideo === false && videoTrack) videoTrack.enabled = false;
      const result = await this.request("publish", params);
      // Published while force mute is active: muted from the start, as the server forwards none of it.
      if (audioTrack && !result.stream.hasAudio) audioTrack.enabled = false;
      this.streams.set(result.stream.streamId, result.stream);
      await pc.setRemoteDescription({ type: "answer", sdp: result.sdpAnswer });
      return { pc, result };
    } catch (error) {
      pc.close();
      throw error;
    }
  }

  /**
   * Receives one stream over a new peer connection. Resolves once the answer is accepted; media then
   * arrives in `subscriber.mediaStream` (each new track also fires `track` on the Subscriber).
   * @param {object|string} stream a StreamInfo, or a streamId
   * @param {{subscribeToAudio?: boolean, subscribeToVideo?: boolean,
   *   preferredResolution?: {width: number, height: number}, preferredFrameRate?: number}} [options]
   *   the preferences choose among a simulcast stream's layers (left out: the best the network allows)
   * @returns {Promise<Subscriber>}
   */
  async subscribe(stream, { subscribeToAudio, subscribeToVideo, preferredResolution, preferredFrameRate } = {}) {
    const streamId = typeof stream === "string" ? stream : stream.streamId;
    if (this.e2ee && !this.#encryption) throw new SwitchyardError("e2eeSecretRequired", "this session is end-to-end encrypted", "subscribe");
    const params = { streamId, webrtc: true };
    if (subscribeToAudio !== undefined) params.subscribeToAudio = subscribeToAudio;
    if (subscribeToVideo !== undefined) params.subscribeToVideo = subscribeToVideo;
    if (preferredResolution !== undefined) params.preferredResolution = preferredResolution;
    if (preferredFrameRate !== undefined) params.preferredFrameRate = preferredFrameRate;
    const result = await this.request("subscribe", params);
    const info = typeof stream === "string" ? this.streams.get(streamId) : stream;
    // Registered before the SDP work so that events about it are not missed.
    const subscriber = new Subscriber(this, result, info, { subscribeToAudio, subscribeToVideo });
    this.subscribers.set(subscriber.id, subscriber);
    try {
      await subscriber._answer(result.sdpOffer);
    } catch (error) {
      subscriber._ended();
      this.request("unsubscribe", { subscriberId: subscriber.id }).catch(() => {});
      throw error;
    }
    return subscriber;
  }

  /**
   * Sends a signal to one connection (`to`), or to every connection, this one included. While the
   * session is reconnecting, a signal with `retryAfterReconnect` waits and goes out once it is back;
   * one without fails at once (code `reconnecting`). A signal whose answer was lost in a drop is sent
   * again after the reconnection under the same `signalId`, and the server delivers it once.
   * @param {{to?: string, type: string, data: string, retryAfterReconnect?: boolean}} signal
   * @returns {Promise<void>}
   */
  async signal({ to, type = "", data = "", retryAfterReconnect }) {
    const params = { type, data, signalId: newSignalId() };
    if (to !== undefined) params.to = to;
    if (retryAfterReconnect !== undefined) params.retryAfterReconnect = retryAfterReconnect;
    let sent = false;
    for (;;) {
      if (this.#status === "reconnecting") {
        if (!retryAfterReconnect && !sent) throw new SwitchyardError("reconnecting", "the session is reconnecting; only signals with retryAfterReconnect wait for it", "signal");
        if (!(await this.#backOnline())) throw new SwitchyardError("closed", "the session ended before it could reconnect", "signal");
        continue;
      }
      try {
        sent = true;
        await this.request("signal", params);
        return;
      } catch (error) {
        if (error.code !== "closed" || this.#status !== "reconnecting") throw error;
      }
    }
  }

  /**
   * Moderators only: mutes a stream's audio. Its subscribers stop receiving it before this resolves;
   * its publisher gets `muteForced` and may turn it on again.
   * @param {object|string} stream a StreamInfo, or a streamId
   * @returns {Promise<void>}
   */
  async forceMuteStream(stream) {
    await this.request("forceMuteStream", { streamId: typeof stream === "string" ? stream : stream.streamId });
  }

  /**
   * Moderators only: mutes every stream but the excluded ones, and every stream published until
   * {@link Session#disableForceMute} that is not excluded. Everyone gets `forceMuteChanged`.
   * @param {Array<object|string>} [excluding] StreamInfos or streamIds to leave alone (at most 1000)
   * @returns {Promise<void>}
   */
  async forceMuteAll(excluding = []) {
    const excludedStreamIds = excluding.map((s) => (typeof s === "string" ? s : s.streamId));
    await this.request("forceMuteAll", excludedStreamIds.length ? { excludedStreamIds } : {});
  }

  /** Moderators only: streams published from now on keep their audio; nobody is unmuted. @returns {Promise<void>} */
  async disableForceMute() {
    await this.request("disableForceMute");
  }

  /**
   * Moderators only: starts recording the session; everyone gets `archiveStarted`.
   * @param {{name?: string, outputMode?: "individual"|"composed", hasAudio?: boolean, hasVideo?: boolean,
   *   streamIds?: string[], layout?: "grid", resolution?: "640x480"|"1280x720", frameRate?: number}} [options]
   * @returns {Promise<object>} the archive (ArchiveInfo, docs/rest.md)
   */
  async startArchive(options = {}) {
    return await this.request("startArchive", options);
  }

  /**
   * Moderators only: stops the session's archive; resolves once its files are closed.
   * @param {string} archiveId
   * @returns {Promise<object>} the archive as it ended
   */
  async stopArchive(archiveId) {
    return await this.request("stopArchive", { archiveId });
  }

  /**
   * Leaves the session: sends `disconnect`, closes every peer connection, and waits for the
   * WebSocket to close (at most 2 s).
   * @returns {Promise<void>}
   */
  async disconnect() {
    this.#leaving = true;
    if (this.#status === "reconnecting") this.#end("left while reconnecting");
    if (!this.#closed) {
      const closed = new Promise((resolve) => this.#ws.addEventListener("close", resolve, { once: true }));
      try { await this.request("disconnect"); } catch { /* closing anyway */ }
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
      if (!this.#closed) this.#ws.close();
    }
    for (const p of [...this.publishers.values()]) p._ended();
    for (const s of [...this.subscribers.values()]) s._ended();
    this.#encryption?.close();
  }
}

/**
 * One published stream. `stream` is its current StreamInfo. Fires `streamPropertyChanged`,
 * `streamDestroyed` (for `forceUnpublished`), `muteForced` (a moderator muted it: the microphone
 * track is disabled; `setPublishAudio(true)` turns it on again) and the `publisherVideo...` events
 * about it.
 */
export class Publisher extends EventTarget {
  constructor(session, pc, stream, mediaStream, ownsMedia) {
    super();
    /** @type {Session} */ this.session = session;
    /** @type {RTCPeerConnection} */ this.pc = pc;
    /** @type {object} the StreamInfo */ this.stream = stream;
    /** @type {MediaStream} what is sent (for a local preview) */ this.mediaStream = mediaStream;
    this.ended = false;
    this._ownsMedia = ownsMedia;
    /** @type {boolean} whether the media path to the router works now */ this.mediaConnected = true;
    this._watch(pc);
  }

  /** @private */
  _watch(pc) {
    this._unwatch = watchIce(pc, () => this.restartIce(), (up) => {
      this.mediaConnected = up;
      this.dispatchEvent(new CustomEvent(up ? "publisherReconnected" : "publisherDisconnected", { detail: { streamId: this.streamId } }));
    });
  }

  /** @private In a cluster, the session moved to another node and the stream was published there
   *  again over `pc`: fires `streamMoved` (detail: the new StreamInfo; subscribers see a new stream). */
  _moved(pc, stream) {
    this._unwatch();
    this.pc.close();
    this.pc = pc;
    this.stream = stream;
    this.mediaConnected = true;
    this._watch(pc);
    this.dispatchEvent(new CustomEvent("streamMoved", { detail: { stream } }));
  }

  /** @returns {string} */
  get streamId() { return this.stream.streamId; }

  /** Turns the video on or off (`updateStream` publishVideo; the track is disabled while off). */
  async setPublishVideo(on) {
    this.mediaStream.getVideoTracks().forEach((t) => { t.enabled = on; });
    await this.session.request("updateStream", { streamId: this.streamId, publishVideo: on });
  }

  /** Turns the audio on or off (`updateStream` publishAudio; the track is disabled while off). */
  async setPublishAudio(on) {
    this.mediaStream.getAudioTracks().forEach((t) => { t.enabled = on; });
    await this.session.request("updateStream", { streamId: this.streamId, publishAudio: on });
  }

  /** @private A moderator muted the stream: the router forwards none of its audio, so none is sent. */
  _muteForced() {
    this.mediaStream.getAudioTracks().forEach((t) => { t.enabled = false; });
  }

  /** Which way the media goes now (UDP or TCP to the router, or a TURN relay): see {@link mediaPath}. */
  getMediaPath() { return mediaPath(this.pc); }

  /** Restarts ICE (done by itself when ICE fails or stays disconnected for 3 s). */
  async restartIce() {
    const offer = await this.pc.createOffer({ iceRestart: true });
    await this.pc.setLocalDescription(offer);
    const result = await this.session.request("restartIce", { streamId: this.streamId, sdpOffer: this.pc.localDescription.sdp });
    await this.pc.setRemoteDescription({ type: "answer", sdp: result.sdpAnswer });
  }

  /** Ends the stream, closes the peer connection, and stops the tracks the library opened. */
  async unpublish() {
    if (this.ended) return;
    try { await this.session.request("unpublish", { streamId: this.streamId }); } finally { this._ended(); }
  }

  /** @private */
  _ended() {
    if (this.ended) return;
    this.ended = true;
    this._unwatch();
    this.pc.close();
    if (this._ownsMedia) this.mediaStream.getTracks().forEach((t) => t.stop());
    this.session.publishers.delete(this.streamId);
  }
}

/**
 * One subscription. Fires `videoDisabled`, `videoEnabled`, `videoDisableWarning`,
 * `videoDisableWarningLifted`, `videoLayerChanged` (a simulcast stream's received layer moved),
 * `streamPropertyChanged` and `streamDestroyed` about it, and `track` (detail: the
 * MediaStreamTrack) when a track arrives.
 */
export class Subscriber extends EventTarget {
  constructor(session, result, stream, options) {
    super();
    /** @type {Session} */ this.session = session;
    /** @type {string} the subscriberId */ this.id = result.subscriberId;
    /** @type {string} */ this.streamId = result.streamId;
    /** @type {object|undefined} the StreamInfo, when known */ this.stream = stream;
    /** @type {object} the `subscribe` result (`audio`, `video` track descriptions, ...) */ this.result = result;
    /** @type {boolean} whether the router forwards video now */ this.videoEnabled = result.videoEnabled;
    /** @type {string|undefined} why video is off (`quality`, `overload`, `publisherPropertyChanged`, ...) */
    this.videoDisableReason = result.videoDisableReason;
    this.subscribeToAudio = options.subscribeToAudio ?? true;
    this.subscribeToVideo = options.subscribeToVideo ?? true;
    /** @type {{width: number, height: number}|undefined} */ this.preferredResolution = options.preferredResolution;
    /** @type {number|undefined} */ this.preferredFrameRate = options.preferredFrameRate;
    /** @type {object|undefined} the last `videoLayerChanged` (`layer`, `targetLayer`, `reason`) */ this.videoLayer = undefined;
    /** @type {MediaStream} the received tracks; set it as a media element's `srcObject` */
    this.mediaStream = new MediaStream();
    /** @type {{audio?: number, video?: number}} frames that did not open with the session's key (an
     *  end-to-end encrypted session; `decryptionFailed` tells of them) */
    this.decryptionFailures = {};
    /** @type {RTCPeerConnection} */ this.pc = new RTCPeerConnection(session.peerConnectionConfiguration);
    this.ended = false;
    this.pc.ontrack = (event) => {
      if (!this.mediaStream.getTrackById(event.track.id)) this.mediaStream.addTrack(event.track);
      this.dispatchEvent(new CustomEvent("track", { detail: event.track }));
    };
    /** @type {boolean} whether the media path from the router works now */ this.mediaConnected = true;
    this._unwatch = watchIce(this.pc, () => this.restartIce(), (up) => {
      this.mediaConnected = up;
      this.dispatchEvent(new CustomEvent(up ? "subscriberReconnected" : "subscriberDisconnected", { detail: { subscriberId: this.id } }));
    });
  }

  /** @private */
  async _answer(sdpOffer) {
    await this.pc.setRemoteDescription({ type: "offer", sdp: sdpOffer });
    const encryption = this.session._encryption;
    if (encryption) {
      for (const transceiver of this.pc.getTransceivers()) {
        // Before any media: the first frames must be opened too. RED would wrap sealed frames.
        encryption.decrypt(transceiver.receiver, this.id);
        if (transceiver.receiver.track.kind === "audio") preferCodecs(transceiver, "audio", ["audio/opus"]);
      }
    }
    const answer = await this.pc.createAnswer();
    await this.pc.setLocalDescription(answer);
    await this.session.request("answerSubscriber", { subscriberId: this.id, sdpAnswer: this.pc.localDescription.sdp });
  }

  /** @private */
  _videoEvent(name, data) {
    if (name === "videoDisabled") { this.videoEnabled = false; this.videoDisableReason = data.reason; }
    if (name === "videoEnabled") { this.videoEnabled = true; this.videoDisableReason = undefined; }
    if (name === "videoLayerChanged") this.videoLayer = data;
  }

  /**
   * The largest picture wanted of a simulcast stream (`updateSubscriber`); `null` drops the
   * preference (the best the network allows). The router answers with `videoLayerChanged`.
   * @param {{width: number, height: number}|null} resolution
   */
  async setPreferredResolution(resolution) {
    await this.session.request("updateSubscriber", { subscriberId: this.id, preferredResolution: resolution });
    this.preferredResolution = resolution ?? undefined;
  }

  /** The highest frame rate wanted of a simulcast stream; `null` drops the preference. @param {number|null} frameRate */
  async setPreferredFrameRate(frameRate) {
    await this.session.request("updateSubscriber", { subscriberId: this.id, preferredFrameRate: frameRate });
    this.preferredFrameRate = frameRate ?? undefined;
  }

  /** Asks for video or not (`updateSubscriber`); the router answers with videoDisabled/videoEnabled. */
  async setSubscribeToVideo(on) {
    await this.session.request("updateSubscriber", { subscriberId: this.id, subscribeToVideo: on });
    this.subscribeToVideo = on;
  }

  /** Asks for audio or not (`updateSubscriber`). */
  async setSubscribeToAudio(on) {
    await this.session.request("updateSubscriber", { subscriberId: this.id, subscribeToAudio: on });
    this.subscribeToAudio = on;
  }

  /**
   * What the router measured for this subscriber: the `getStats` result (`audio`, `video`,
   * `quality` {score, lossFraction, audioFallbackState, ...}, `rtcStatsReport`). The browser's own
   * view is `subscriber.pc.getStats()`.
   * @returns {Promise<object>}
   */
  getStats() {
    return this.session.request("getStats", { subscriberId: this.id });
  }

  /** Which way the media goes now (UDP or TCP from the router, or a TURN relay): see {@link mediaPath}. */
  getMediaPath() { return mediaPath(this.pc); }

  /** Restarts ICE (done by itself when ICE fails or stays disconnected for 3 s). */
  async restartIce() {
    const result = await this.session.request("restartIce", { subscriberId: this.id });
    await this._answer(result.sdpOffer);
  }

  /** Ends the subscription and closes the peer connection. */
  async unsubscribe() {
    if (this.ended) return;
    try { await this.session.request("unsubscribe", { subscriberId: this.id }); } finally { this._ended(); }
  }

  /** @private */
  _ended() {
    if (this.ended) return;
    this.ended = true;
    this._unwatch();
    this.pc.close();
    this.session.subscribers.delete(this.id);
  }
}
