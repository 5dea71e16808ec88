// The demo page: join a session, publish camera and mic, subscribe to everyone else, and show
// per subscriber the video state, the last audio-fallback event and live stats, and who speaks.
// Query parameters: session, name, token, autojoin=1, ws (a WebSocket URL other than this host's /v1/ws),
// simulcast=0 (publish one encoding instead of three), resolution=WxH (the preferred resolution each
// new subscriber starts with; each tile's picker changes it), forceRelay=1 (media through the
// server's TURN relays only), secret (the e2ee secret of an end-to-end encrypted session; also the
// form's field, docs/e2ee.md).
// Tests read window.switchyardDemo (session, publisher, subscribers: Map subscriberId → Subscriber, log,
// timing) and the DOM: each subscriber tile `.tile[data-subscriber-id][data-stream-id]` (with
// data-subscribe-started-at and data-first-frame-at, Date.now() ms) holds `.video-state` ("on",
// "off (quality)", ...), `.fallback[data-event][data-reason]`, `.stats[data-frames-decoded]
// [data-total-samples-received][data-frame-width][data-frame-height]`, `.layer[data-width][data-height]
// [data-reason]` (the last videoLayerChanged), `select.preferred-resolution`, `.server-stats[data-score]` and `.media-state[data-state]`
// ("connected" or "reconnecting": the subscription's media path) and `.e2ee[data-state]` ("" outside
// an e2ee session; "encrypted", or "undecryptable" with data-failures once frames did not open with
// the page's secret); every tile, the publisher's too,
// has `.path[data-path][data-relay-protocol]` (how its peer connection reaches the router, from
// getStats: data-path "udp", "tcp" or "relay", data-relay-protocol "udp", "tcp" or "tls" for a relay;
// empty until a candidate pair is selected); the publisher's tile has data-publisher; the event log is `#log li[data-event][data-reason]` (data-local for the page's own
// entries: connected, published, subscribed, error). `#status[data-state]` is the session's
// connectionStatus (connected, reconnecting, ...). `#mute-notice` shows (not `hidden`) from a
// moderator's mute of our stream (`muteForced`) until the mic is turned on again. `#recording`
// shows (not `hidden`, data-archive-id set) while an archive records the session.
// Speakers (the page connects with subscribeToSpeakerEvents): the active speaker's tile has the class
// `active-speaker`, data-active-speaker="1" and data-active-speaker-since (Date.now() ms, when it was
// highlighted); `#active-speaker[data-stream-id]` names it ("" while there is none). Every tile's
// `.level[data-level][data-speaking]` meter shows the router's last audioLevels for its stream
// (linear 0-1 as sent, drawn on a dB scale; 0 while the stream is not among the loudest).
import { Session, mediaPath } from "./switchyard.js";

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

const PROTOCOL_EVENTS = ["connectionCreated", "connectionDestroyed", "streamCreated", "streamDestroyed",
  "streamPropertyChanged", "videoDisabled", "videoEnabled", "videoDisableWarning", "videoDisableWarningLifted", "videoLayerChanged",
  "publisherVideoDisableWarning", "publisherVideoDisableWarningLifted", "publisherVideoDisabled",
  "publisherVideoEnabled", "signal", "subscriberDestroyed", "sessionReconnecting", "sessionReconnected", "sessionMoved", "sessionDisconnected",
  "muteForced", "forceMuteChanged", "activeSpeakerChanged", "archiveStarted", "archiveStopped", "error"];
const FALLBACK_EVENTS = new Set(["videoDisableWarning", "videoDisableWarningLifted", "videoDisabled", "videoEnabled"]);

/** What tests read. `timing` values are Date.now() milliseconds. */
const demo = {
  session: null, publisher: null, subscribers: new Map(), log: [],
  timing: { joinStart: null, connected: null, published: null },
  join, leave,
};
window.switchyardDemo = demo;

const subscribedStreams = new Set();   // streamIds subscribed to (or being subscribed to)
const lastFallback = new Map();        // subscriberId → {event, reason, time}
let statsTimer = null;

$("session-id").value = params.get("session") || "demo";
$("name").value = params.get("name") || `guest-${Math.random().toString(36).slice(2, 6)}`;
$("token").value = params.get("token") || "";
$("e2ee-secret").value = params.get("secret") || "";
const simulcast = params.get("simulcast") !== "0";
const forceRelay = params.get("forceRelay") === "1";
/** The pictures a tile's picker offers; "" is no preference (the best the network allows). */
const RESOLUTIONS = ["", "320x180", "640x360", "1280x720"];
const parseResolution = (text) => {
  const match = /^(\d+)x(\d+)$/.exec(text ?? "");
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
};

function setStatus(text, isError = false) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
  $("status").dataset.state = demo.session?.connectionStatus ?? "disconnected";
}

const describe = (error) => (error.code ? `${error.method ?? ""} ${error.code}: ${error.message}`.trim() : error.message);
const clock = (t) => new Date(t).toISOString().slice(11, 23);

/** Adds one entry to the event log (list and demo.log). */
function logEvent(name, detail = {}, local = false) {
  const time = Date.now();
  const reason = detail.reason ?? "";
  const entry = { time, event: name, reason, detail, local };
  demo.log.push(entry);
  const li = document.createElement("li");
  li.dataset.event = name;
  li.dataset.reason = reason;
  if (local) li.dataset.local = "1";
  const who = name === "activeSpeakerChanged" ? speakerLabel(detail.streamId)
    : detail.stream?.name || detail.connection?.data || detail.subscriberId || detail.streamId || detail.message || "";
  li.textContent = `${clock(time)} ${name}${reason ? " " + reason : ""}${who ? " — " + who : ""}`;
  const list = $("log");
  list.append(li);
  list.scrollTop = list.scrollHeight;
  return entry;
}

function streamLabel(stream) {
  if (stream?.name) return stream.name;
  const data = stream?.connection?.data ?? "";
  return new URLSearchParams(data).get("name") || data || stream?.streamId || "?";
}

function makeTile(label, stream) {
  const tile = document.createElement("div");
  tile.className = "tile";
  if (stream) tile.dataset.streamId = stream.streamId;
  const video = document.createElement("video");
  video.autoplay = true;
  video.playsInline = true;
  const media = document.createElement("div");
  media.className = "media";
  media.append(video);
  const level = document.createElement("div");
  level.className = "level";
  level.append(document.createElement("span"));
  level.firstChild.className = "bar";
  const name = document.createElement("div");
  name.className = "name";
  name.textContent = label;
  tile.append(media, level, name);
  $("tiles").append(tile);
  renderLevel(tile, undefined);
  renderActiveSpeaker();
  return { tile, video };
}

/** The name the page shows for a stream id: its StreamInfo's, else the id itself. */
function speakerLabel(streamId) {
  if (!streamId) return "none";
  const stream = demo.session?.streams.get(streamId);
  return stream ? streamLabel(stream) : streamId;
}

/** Highlights the active speaker's tile (the session's activeSpeakerStreamId) and names it. */
/** The recording indicator: shown while an archive records the session. */
function renderRecording() {
  const indicator = $("recording");
  const archive = demo.session?.archive ?? null;
  indicator.hidden = archive === null;
  indicator.dataset.archiveId = archive?.id ?? "";
  indicator.textContent = archive ? `● Recording${archive.name ? `: ${archive.name}` : ""}` : "";
}

function renderActiveSpeaker() {
  const active = demo.session?.activeSpeakerStreamId ?? null;
  for (const tile of document.querySelectorAll(".tile[data-stream-id]")) {
    const on = tile.dataset.streamId === active;
    if (on && !tile.dataset.activeSpeaker) tile.dataset.activeSpeakerSince = String(Date.now());
    if (on) tile.dataset.activeSpeaker = "1";
    else { delete tile.dataset.activeSpeaker; delete tile.dataset.activeSpeakerSince; }
    tile.classList.toggle("active-speaker", on);
  }
  const label = $("active-speaker");
  label.dataset.streamId = active ?? "";
  label.textContent = `Active speaker: ${speakerLabel(active)}`;
}

/** Sets a tile's meter from one `audioLevels` entry (undefined: not among the loudest, so silent).
 *  Drawn from -60 to 0 dB, since speech sits far below full scale on a linear one. */
function renderLevel(tile, entry) {
  const meter = tile.querySelector(".level");
  const level = entry?.level ?? 0;
  meter.dataset.level = String(level);
  meter.dataset.speaking = entry?.speaking ? "1" : "";
  const share = level > 0 ? Math.min(1, Math.max(0, (20 * Math.log10(level) + 60) / 60)) : 0;
  meter.firstChild.style.width = `${(share * 100).toFixed(1)}%`;
  meter.title = `level ${level.toFixed(3)}${entry?.speaking ? ", speaking" : ""}`;
}

function renderLevels(levels) {
  const byStream = new Map(levels.map((entry) => [entry.streamId, entry]));
  for (const tile of document.querySelectorAll(".tile[data-stream-id]")) renderLevel(tile, byStream.get(tile.dataset.streamId));
}

function line(tile, className, text = "") {
  const div = document.createElement("div");
  div.className = `line ${className}`;
  div.textContent = text;
  tile.append(div);
  return div;
}

function play(video) {
  video.play().catch(() => { video.muted = true; video.play().catch(() => {}); });
}

function renderVideoState(subscriber) {
  const tile = document.querySelector(`[data-subscriber-id="${subscriber.id}"]`);
  if (!tile) return;
  const text = subscriber.videoEnabled ? "on" : `off${subscriber.videoDisableReason ? ` (${subscriber.videoDisableReason})` : ""}`;
  const el = tile.querySelector(".video-state");
  el.textContent = text;
  el.classList.toggle("off", !subscriber.videoEnabled);
  tile.classList.toggle("video-off", !subscriber.videoEnabled);
  tile.querySelector(".media").dataset.overlay = `video ${text}`;
}

function renderFallback(subscriberId) {
  const el = document.querySelector(`[data-subscriber-id="${subscriberId}"] .fallback`);
  const last = lastFallback.get(subscriberId);
  if (!el || !last) return;
  el.textContent = `last fallback event: ${last.event} (${last.reason}) at ${clock(last.time)}`;
  el.dataset.event = last.event;
  el.dataset.reason = last.reason;
}

function addSubscriberTile(subscriber) {
  const { tile, video } = makeTile(streamLabel(subscriber.stream), subscriber.stream ?? { streamId: subscriber.streamId });
  tile.dataset.subscriberId = subscriber.id;
  const stateLine = line(tile, "state", "video: ");
  const state = document.createElement("span");
  state.className = "video-state";
  stateLine.append(state);
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "toggle-subscribe-video";
  toggle.textContent = "video";
  toggle.style.marginLeft = ".5rem";
  toggle.onclick = () => subscriber.setSubscribeToVideo(!subscriber.subscribeToVideo).catch((e) => logEvent("error", { reason: e.code, message: describe(e) }, true));
  stateLine.append(toggle);
  const picker = document.createElement("select");
  picker.className = "preferred-resolution";
  picker.title = "preferred resolution";
  picker.style.marginLeft = ".5rem";
  for (const value of RESOLUTIONS) picker.append(new Option(value ? value.replace("x", "×") : "best", value));
  const preferred = subscriber.preferredResolution;
  picker.value = preferred ? `${preferred.width}x${preferred.height}` : "";
  picker.onchange = () => subscriber.setPreferredResolution(parseResolution(picker.value) ?? null)
    .catch((e) => logEvent("error", { reason: e.code, message: describe(e) }, true));
  stateLine.append(picker);
  line(tile, "layer", "layer: –");
  subscriber.addEventListener("videoLayerChanged", (e) => renderLayer(tile, e.detail));
  line(tile, "fallback", "last fallback event: none");
  line(tile, "stats", "stats: waiting");
  line(tile, "server-stats", "server: waiting");
  addPathLine(tile);
  if (demo.session.e2ee) {
    const e2ee = line(tile, "e2ee", "end-to-end encrypted");
    e2ee.dataset.state = "encrypted";
    subscriber.addEventListener("decryptionFailed", (e) => {
      e2ee.dataset.state = "undecryptable";
      e2ee.dataset.failures = String(Object.values(subscriber.decryptionFailures).reduce((a, b) => a + b, 0));
      e2ee.textContent = `cannot decrypt: ${e2ee.dataset.failures} frames did not open with this page's secret (the publisher uses another)`;
      e2ee.classList.add("off");
    });
  } else {
    line(tile, "e2ee", "").dataset.state = "";
  }
  const mediaState = line(tile, "media-state", "media: connected");
  mediaState.dataset.state = "connected";
  const renderMediaState = (up) => {
    mediaState.dataset.state = up ? "connected" : "reconnecting";
    mediaState.textContent = `media: ${mediaState.dataset.state}`;
    tile.classList.toggle("reconnecting", !up);
  };
  subscriber.addEventListener("subscriberDisconnected", (e) => { renderMediaState(false); logEvent("subscriberDisconnected", e.detail, true); });
  subscriber.addEventListener("subscriberReconnected", (e) => { renderMediaState(true); logEvent("subscriberReconnected", e.detail, true); });
  video.srcObject = subscriber.mediaStream;
  subscriber.addEventListener("track", () => { video.srcObject = subscriber.mediaStream; play(video); });
  play(video);
  const onFrame = () => { tile.dataset.firstFrameAt = String(Date.now()); };
  if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(onFrame);
  else video.addEventListener("loadeddata", onFrame, { once: true });
  renderVideoState(subscriber);
  renderFallback(subscriber.id);
}

function addPathLine(tile) {
  const el = line(tile, "path", "path: waiting");
  el.dataset.path = "";
  el.dataset.relayProtocol = "";
}

/** Shows which way a tile's peer connection reaches the router: straight over UDP or TCP, or through
 *  a TURN relay (and how this browser reaches the relay). */
async function renderPath(tile, pc) {
  const el = tile.querySelector(".path");
  if (!el) return;
  const path = await mediaPath(pc);
  el.dataset.path = path?.path ?? "";
  el.dataset.relayProtocol = path?.relayProtocol ?? "";
  if (!path) { el.textContent = "path: waiting"; return; }
  const how = path.path === "relay" ? `TURN relay over ${(path.relayProtocol ?? "?").toUpperCase()}` : `direct over ${path.path.toUpperCase()}`;
  el.textContent = `path: ${how}${path.remoteAddress ? ` to ${path.remoteAddress}` : ""}`;
}

/** Shows the layer a simulcast subscription receives, its target and why. */
function renderLayer(tile, change) {
  const el = tile.querySelector(".layer");
  const size = (layer) => layer ? `${layer.width}×${layer.height}@${fmt(layer.frameRate)}` : "none";
  el.textContent = `layer: ${size(change.layer)} → ${size(change.targetLayer)} (${change.reason})`;
  el.dataset.width = change.layer?.width ?? "";
  el.dataset.height = change.layer?.height ?? "";
  el.dataset.reason = change.reason;
}

async function subscribeTo(stream) {
  if (subscribedStreams.has(stream.streamId)) return;
  subscribedStreams.add(stream.streamId);
  const startedAt = Date.now();
  try {
    const subscriber = await demo.session.subscribe(stream, { preferredResolution: parseResolution(params.get("resolution")) });
    if (subscriber.ended) return;
    demo.subscribers.set(subscriber.id, subscriber);
    addSubscriberTile(subscriber);
    document.querySelector(`[data-subscriber-id="${subscriber.id}"]`).dataset.subscribeStartedAt = String(startedAt);
    logEvent("subscribed", { subscriberId: subscriber.id, stream }, true);
  } catch (error) {
    subscribedStreams.delete(stream.streamId);
    logEvent("error", { reason: error.code ?? "", message: `subscribe ${stream.streamId}: ${describe(error)}` }, true);
  }
}

function removeStream(streamId) {
  subscribedStreams.delete(streamId);
  for (const [id, subscriber] of demo.subscribers) {
    if (subscriber.streamId !== streamId) continue;
    demo.subscribers.delete(id);
    document.querySelector(`[data-subscriber-id="${id}"]`)?.remove();
  }
}

function onEvent(name, detail) {
  logEvent(name, detail);
  const session = demo.session;
  if (FALLBACK_EVENTS.has(name)) {
    lastFallback.set(detail.subscriberId, { event: name, reason: detail.reason ?? "", time: Date.now() });
    renderFallback(detail.subscriberId);
    const subscriber = demo.subscribers.get(detail.subscriberId);
    if (subscriber) renderVideoState(subscriber);
  } else if (name === "streamCreated" && detail.stream.connection.connectionId !== session.connection.connectionId) {
    subscribeTo(detail.stream);
  } else if (name === "subscriberDestroyed") {
    // The router lost this subscription's media connection; the stream goes on, so subscribe again.
    removeStream(detail.streamId);
    const stream = session.streams.get(detail.streamId);
    if (stream) subscribeTo(stream);
  } else if (name === "streamDestroyed") {
    removeStream(detail.stream.streamId);
    if (demo.publisher?.streamId === detail.stream.streamId) clearPublisher();
  } else if (name === "archiveStarted" || name === "archiveStopped") {
    renderRecording();
  } else if (name === "activeSpeakerChanged") {
    renderActiveSpeaker();
  } else if (name === "muteForced") {
    // Only the publishing connection hears it, so the stream is ours (perhaps still being published).
    showMicOff(true);
  } else if (name === "sessionReconnecting") {
    setStatus("Reconnecting…");
  } else if (name === "sessionMoved") {
    setStatus(`Connected to ${session.sessionId} as ${session.connection.connectionId} (${session.role}); moved to ${session.url}.`);
  } else if (name === "sessionReconnected") {
    setStatus(`Connected to ${session.sessionId} as ${session.connection.connectionId} (${session.role}); reconnected.`);
  } else if (name === "sessionDisconnected") {
    teardown(`Disconnected: ${detail.reason}${detail.message ? " — " + detail.message : ""}`, detail.reason !== "clientDisconnected");
  }
}

function fmt(n, digits = 0) { return n === undefined || n === null ? "–" : Number(n).toFixed(digits); }

/** Refreshes every subscriber's stats line from pc.getStats() and the server's getStats. */
let refreshing = false;
async function refreshStats() {
  if (refreshing) return;
  refreshing = true;
  try { await refreshEach(); } finally { refreshing = false; }
}

async function refreshEach() {
  const publisherTile = document.querySelector("[data-publisher]");
  if (publisherTile && demo.publisher && !demo.publisher.ended) {
    try { await renderPath(publisherTile, demo.publisher.pc); } catch { /* the pc closed meanwhile */ }
  }
  for (const subscriber of demo.subscribers.values()) {
    const tile = document.querySelector(`[data-subscriber-id="${subscriber.id}"]`);
    if (!tile || subscriber.ended) continue;
    try { await renderPath(tile, subscriber.pc); } catch { /* the pc closed meanwhile */ }
    try {
      let video = {}, audio = {};
      (await subscriber.pc.getStats()).forEach((s) => {
        if (s.type === "inbound-rtp" && s.kind === "video") video = s;
        if (s.type === "inbound-rtp" && s.kind === "audio") audio = s;
      });
      const el = tile.querySelector(".stats");
      el.dataset.framesDecoded = video.framesDecoded ?? 0;
      el.dataset.totalSamplesReceived = audio.totalSamplesReceived ?? 0;
      el.dataset.frameWidth = video.frameWidth ?? 0;
      el.dataset.frameHeight = video.frameHeight ?? 0;
      el.textContent = `video ${fmt(video.framesDecoded)} frames, ${fmt(video.framesPerSecond)} fps` +
        `${video.frameWidth ? ` ${video.frameWidth}×${video.frameHeight}` : ""}, lost ${fmt(video.packetsLost)},` +
        ` jitter ${video.jitter === undefined ? "–" : fmt(video.jitter * 1000, 1) + " ms"}` +
        ` · audio ${fmt(audio.totalSamplesReceived)} samples, lost ${fmt(audio.packetsLost)}`;
    } catch { /* the pc closed meanwhile */ }
    try {
      const stats = await subscriber.getStats();
      const q = stats.quality ?? {};
      const el = tile.querySelector(".server-stats");
      el.dataset.score = q.score ?? "";
      el.textContent = `server: score ${fmt(q.score)}${q.audioFallbackState ? ` (${q.audioFallbackState})` : ""},` +
        ` loss ${fmt((q.lossFraction ?? 0) * 100, 1)} %, rtt ${q.roundTripTimeSeconds === undefined ? "–" : fmt(q.roundTripTimeSeconds * 1000) + " ms"}`;
    } catch { /* unsubscribed meanwhile, or the session is closing */ }
  }
}

async function devToken(sessionId, name) {
  const query = new URLSearchParams({ sessionId, role: "publisher", data: `name=${name}` });
  const response = await fetch(`/v1/dev/token?${query}`);
  if (!response.ok) throw new Error(`no token given, and the server gives no development token (HTTP ${response.status})`);
  return (await response.json()).token;
}

async function join() {
  if (demo.session) return;
  const sessionId = $("session-id").value.trim();
  const name = $("name").value.trim();
  demo.timing = { joinStart: Date.now(), connected: null, published: null };
  $("join").disabled = true;
  setStatus("Connecting…");
  try {
    const token = $("token").value.trim() || await devToken(sessionId, name);
    const url = params.get("ws") || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/ws`;
    const e2eeSecret = $("e2ee-secret").value || undefined;
    const session = await Session.connect({ url, sessionId, token, forceRelay, subscribeToSpeakerEvents: true, e2eeSecret });
    demo.session = session;
    demo.timing.connected = Date.now();
    for (const event of PROTOCOL_EVENTS) session.addEventListener(event, (e) => onEvent(event, e.detail));
    // Up to four a second: shown on the meters, not logged.
    session.addEventListener("audioLevels", (e) => renderLevels(e.detail.levels));
    renderActiveSpeaker();
    renderRecording();
    logEvent("connected", { connection: session.connection }, true);
    setStatus(`Connected to ${sessionId} as ${session.connection.connectionId} (${session.role})${session.e2ee ? ", end-to-end encrypted" : ""}.`);
    $("leave").disabled = false;
    for (const stream of session.streams.values()) {
      if (stream.connection.connectionId !== session.connection.connectionId) subscribeTo(stream);
    }
    if (session.capabilities.publish) await publish(name);
  } catch (error) {
    logEvent("error", { reason: error.code ?? "", message: describe(error) }, true);
    setStatus(`Could not join: ${describe(error)}`, true);
    if (!demo.session) $("join").disabled = false;
  }
}

async function publish(name) {
  try {
    // Simulcast sends a quarter, half and all of the picture: ask the camera for 720p so each is useful.
    const camera = simulcast ? { width: { ideal: 1280 }, height: { ideal: 720 } } : true;
    const publisher = await demo.session.publish({ name, video: camera, simulcast });
    demo.publisher = publisher;
    demo.timing.published = Date.now();
    logEvent("published", { streamId: publisher.streamId }, true);
    const { tile, video } = makeTile(`${name} (you)`, publisher.stream);
    tile.classList.add("publisher");
    tile.dataset.publisher = "1";
    // In a cluster the stream is published again under a new id when the session moves.
    publisher.addEventListener("streamMoved", (e) => { tile.dataset.streamId = e.detail.stream.streamId; renderActiveSpeaker(); });
    addPathLine(tile);
    video.muted = true;
    video.srcObject = publisher.mediaStream;
    play(video);
    $("toggle-video").disabled = $("toggle-audio").disabled = false;
  } catch (error) {
    logEvent("error", { reason: error.code ?? "", message: `publish: ${describe(error)}` }, true);
    setStatus(`Connected, but could not publish: ${describe(error)}`, true);
  }
}

function clearPublisher() {
  document.querySelector("[data-publisher]")?.remove();
  demo.publisher = null;
  $("toggle-video").disabled = $("toggle-audio").disabled = true;
  showMicOff(false);
}

/** The mic button's state; `byModerator` also shows the notice, which goes when the mic comes back on. */
function showMicOff(off, byModerator = off) {
  const button = $("toggle-audio");
  button.dataset.off = off ? "1" : "";
  button.textContent = `Mic ${off ? "on" : "off"}`;
  if (byModerator) $("mute-notice").hidden = false;
  if (!off) $("mute-notice").hidden = true;
}

function teardown(message, isError = false) {
  for (const id of [...demo.subscribers.keys()]) document.querySelector(`[data-subscriber-id="${id}"]`)?.remove();
  demo.subscribers.clear();
  subscribedStreams.clear();
  clearPublisher();
  demo.session = null;
  renderActiveSpeaker();
  renderRecording();
  $("join").disabled = false;
  $("leave").disabled = true;
  setStatus(message, isError);
}

async function leave() {
  if (!demo.session) return;
  await demo.session.disconnect();
  if (demo.session) teardown("Left the session.");
}

async function toggle(kind) {
  const publisher = demo.publisher;
  if (!publisher) return;
  const button = $(kind === "video" ? "toggle-video" : "toggle-audio");
  const on = button.dataset.off === "1";
  try {
    await (kind === "video" ? publisher.setPublishVideo(on) : publisher.setPublishAudio(on));
    if (kind === "audio") {
      showMicOff(!on, false);
    } else {
      button.dataset.off = on ? "" : "1";
      button.textContent = `Camera ${on ? "off" : "on"}`;
    }
  } catch (error) {
    logEvent("error", { reason: error.code ?? "", message: describe(error) }, true);
  }
}

$("join-form").addEventListener("submit", (e) => { e.preventDefault(); join(); });
$("leave").addEventListener("click", () => leave());
$("toggle-video").addEventListener("click", () => toggle("video"));
$("toggle-audio").addEventListener("click", () => toggle("audio"));
statsTimer = setInterval(refreshStats, 1000);
window.addEventListener("pagehide", () => { clearInterval(statsTimer); demo.session?.disconnect(); });
if (params.get("autojoin") === "1") join();
