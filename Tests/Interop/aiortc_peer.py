#!/usr/bin/env python3
"""A WebRTC peer built on aiortc (pip install aiortc==1.16.0 websockets) that speaks Switchyard's
signaling protocol (docs/protocol.md) with the WebRTC additions: `publish` with `sdpOffer`,
`subscribe` with `webrtc: true` answered by `answerSubscriber`. An independent WebRTC stack (aioice,
pyOpenSSL DTLS, libsrtp through pylibsrtp, libvpx and libopus through PyAV) for interop tests.

  aiortc_peer.py publish   --url ws://127.0.0.1:7880/v1/ws --session S --token T --seconds N [--name NAME]
  aiortc_peer.py subscribe --url ws://127.0.0.1:7880/v1/ws --session S --token T --seconds N [--stream-id ID]
  aiortc_peer.py whip      --url http://127.0.0.1:7880/v1/whip/S --token T --seconds N [--name NAME]
  aiortc_peer.py whep      --url http://127.0.0.1:7880/v1/whep/S/STREAM --token T --seconds N
  aiortc_peer.py chaos-subscribe --url ws://... [--url ws://...] --session S --token T --seconds N --stream-name NAME

publish: sends a 440 Hz Opus tone and 320x240 VP8 video at 30 fps (a moving pattern) for N seconds
after ICE and DTLS connect, then sends `disconnect`. Prints one JSON line:
  {"role": "publisher", "streamId", "connected", "connectSeconds", "srtpProfile", "dtlsVersion",
   "dtlsCipher", "audioFramesSent", "videoFramesSent", "audioPacketsSent", "videoPacketsSent",
   "events": [{"event", "reason"}...]}
whip: publishes the same media over WHIP (RFC 9725) instead of the signaling protocol: POSTs the
offer, applies the answer, sends for N seconds after ICE and DTLS connect, then DELETEs the resource.
Prints {"role": "whip-publisher", "streamId", "location", "connected", "connectSeconds", "offerSentAt",
"srtpProfile", ..., "deleteStatus"}; an HTTP refusal prints {"error": {"status", "body"}} and exits 2.
whep: plays a stream over WHEP: POSTs a recvonly offer, applies the answer, counts what aiortc
decodes for N seconds after the POST, then DELETEs. Prints what subscribe prints (role "whep-player",
with "location" and "deleteStatus"); an HTTP refusal prints {"error": {"status", "body"}} and exits 2.
chaos-subscribe: a lasting subscriber for switchyard-bench chaos. Subscribes to the stream named
--stream-name in the session and keeps receiving it for N seconds whatever happens: a stream that
goes (its publisher moved) or a subscription the router ended is subscribed again on the same
WebSocket when the stream is back; a WebSocket that closes (its node killed or drained), a peer
connection that fails, or no decoded frame for --stall seconds while subscribed, makes it connect
afresh through the next --url in turn. Prints one JSON line per change as it goes:
  {"event": "subscribed", "url", "streamId", "port"}   (port: the local UDP port of the ICE pair)
  {"event": "frames", "video", "audio"}                (totals decoded, at most every 0.2 s)
  {"event": "lost", "reason"}                          (what made it subscribe or connect again)
and exits 0 at the end (or on SIGTERM).
subscribe: subscribes to the given stream, or the first stream that exists or appears within N
seconds, and counts what aiortc decodes for N seconds after the subscribe request. Prints:
  {"role": "subscriber", "streamId", "subscriberId", "connected", "videoFrames", "audioFrames",
   "width", "height", "srtpProfile", "dtlsVersion", "dtlsCipher", "firstFrameSeconds", "firstAudioSeconds",
   "videoEnabled", "events": [...]}
`srtpProfile` uses the protocol's profile names (AEAD_AES_128_GCM, AES_CM_128_HMAC_SHA1_80, ...), or
null when DTLS did not finish. `firstFrameSeconds` runs from the subscribe request to the first
decoded video frame (null if none).

Exit status: 0 when media flowed (publisher: ICE+DTLS connected; subscriber: at least one decoded
video or audio frame), 1 when it did not (or no stream appeared, or a timeout), 2 when the server
answered a request with an error (printed as {"error": {"code", "message"}, "method"} in the JSON line).
"""
import argparse
import asyncio
import fractions
import json
import math
import signal
import sys
import time
import urllib.request

import av
import numpy
import websockets
from aiortc import (MediaStreamTrack, RTCConfiguration, RTCPeerConnection, RTCRtpSender,
                    RTCSessionDescription)
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError, VideoStreamTrack
from aiortc.rtcconfiguration import RTCBundlePolicy

import http_resource

AUDIO_RATE = 48000
AUDIO_SAMPLES = 960  # 20 ms
WIDTH, HEIGHT = 320, 240
CONNECT_TIMEOUT = 15.0
PROFILE_NAMES = {
    "SRTP_AES128_CM_SHA1_80": "AES_CM_128_HMAC_SHA1_80",
    "SRTP_AES128_CM_SHA1_32": "AES_CM_128_HMAC_SHA1_32",
    "SRTP_AEAD_AES_128_GCM": "AEAD_AES_128_GCM",
    "SRTP_AEAD_AES_256_GCM": "AEAD_AES_256_GCM",
}


class ProtocolError(Exception):
    def __init__(self, method: str, error: dict):
        super().__init__(f"{method}: {error.get('code')}: {error.get('message')}")
        self.method = method
        self.error = error


class SignalingClient:
    """One WebSocket: requests matched to replies by id; events go to `events` (a queue) and `log`."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 1
        self.pending: dict[int, tuple[str, asyncio.Future]] = {}
        self.events: asyncio.Queue = asyncio.Queue()
        self.log: list[dict] = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self):
        try:
            async for text in self.ws:
                message = json.loads(text)
                if "event" in message:
                    data = message.get("data") or {}
                    self.log.append({"event": message["event"], "reason": data.get("reason"), "time": time.time()})
                    self.events.put_nowait((message["event"], data))
                    continue
                method, future = self.pending.pop(message.get("id"), (None, None))
                if future is None or future.done():
                    continue
                if "error" in message:
                    future.set_exception(ProtocolError(method, message["error"]))
                else:
                    future.set_result(message.get("result") or {})
        except websockets.ConnectionClosed:
            pass
        finally:
            for method, future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError(f"{method}: the WebSocket closed"))
            self.events.put_nowait(("closed", {}))

    async def request(self, method: str, params: dict | None = None, timeout: float = 15.0) -> dict:
        request_id = self.next_id
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[request_id] = (method, future)
        await self.ws.send(json.dumps({"v": 1, "id": request_id, "method": method, "params": params or {}}))
        return await asyncio.wait_for(future, timeout)

    async def close(self):
        try:
            await self.request("disconnect", timeout=5.0)
        except Exception:
            pass
        await self.ws.close()
        self.reader.cancel()


class ToneTrack(AudioStreamTrack):
    """A 440 Hz sine, s16 mono at 48 kHz in 20 ms frames, paced in real time."""

    def __init__(self):
        super().__init__()
        self.frames = 0
        self._start = None
        self._phase = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.time()
        wait = self._start + self.frames * AUDIO_SAMPLES / AUDIO_RATE - time.time()
        if wait > 0:
            await asyncio.sleep(wait)
        t = (numpy.arange(AUDIO_SAMPLES) + self._phase) / AUDIO_RATE
        samples = (numpy.sin(2 * math.pi * 440 * t) * 8000).astype(numpy.int16)
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = AUDIO_RATE
        frame.pts = self._phase
        frame.time_base = fractions.Fraction(1, AUDIO_RATE)
        self._phase += AUDIO_SAMPLES
        self.frames += 1
        return frame


class PatternTrack(VideoStreamTrack):
    """320x240 at 30 fps: diagonal colour bands that move, so every frame differs."""

    def __init__(self):
        super().__init__()
        self.frames = 0
        y, x = numpy.mgrid[0:HEIGHT, 0:WIDTH]
        self._base = (x + y).astype(numpy.int32)

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        shift = self.frames * 4
        image = numpy.empty((HEIGHT, WIDTH, 3), numpy.uint8)
        image[..., 0] = (self._base + shift) % 256
        image[..., 1] = (self._base * 2 - shift) % 256
        image[..., 2] = ((self._base // 32 + self.frames // 15) % 2) * 200
        frame = av.VideoFrame.from_ndarray(image, format="bgr24")
        frame.pts = pts
        frame.time_base = time_base
        self.frames += 1
        return frame


def prefer(transceiver, kind: str, mime_types: list[str]):
    codecs = [c for mime in mime_types for c in RTCRtpSender.getCapabilities(kind).codecs if c.mimeType.lower() == mime]
    transceiver.setCodecPreferences(codecs)


def dtls_facts(pc: RTCPeerConnection) -> dict:
    """The negotiated SRTP profile, DTLS version and cipher, from aiortc's DTLS transport (internals)."""
    facts = {"srtpProfile": None, "dtlsVersion": None, "dtlsCipher": None}
    try:
        transport = pc.getTransceivers()[0].receiver.transport
        if transport.state != "connected":
            return facts
        ssl = transport._ssl
        profile = ssl.get_selected_srtp_profile()
        profile = profile.decode() if isinstance(profile, bytes) else profile
        facts["srtpProfile"] = PROFILE_NAMES.get(profile, profile) or None
        facts["dtlsVersion"] = ssl.get_protocol_version_name()
        facts["dtlsCipher"] = ssl.get_cipher_name()
    except Exception:  # best effort: these are aiortc internals
        pass
    return facts


def new_peer_connection() -> RTCPeerConnection:
    return RTCPeerConnection(RTCConfiguration(bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))


async def wait_connected(pc: RTCPeerConnection, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pc.connectionState == "connected":
            return True
        if pc.connectionState in ("failed", "closed"):
            return False
        await asyncio.sleep(0.05)
    return pc.connectionState == "connected"


async def connect(args) -> tuple[SignalingClient, dict]:
    ws = await websockets.connect(args.url, max_size=None)
    client = SignalingClient(ws)
    result = await client.request("connect", {"sessionId": args.session, "token": args.token})
    return client, result


def video_codecs(args) -> list[str]:
    """The video codec the run offers (`--codec`, VP8 unless told), with its retransmission format."""
    return [f"video/{getattr(args, 'codec', 'vp8')}", "video/rtx"]


async def offer_to_send(pc: RTCPeerConnection, args) -> tuple[ToneTrack, PatternTrack]:
    """Adds the tone and the pattern as send-only tracks and sets the local offer."""
    audio, video = ToneTrack(), PatternTrack()
    prefer(pc.addTransceiver(audio, direction="sendonly"), "audio", ["audio/opus"])
    prefer(pc.addTransceiver(video, direction="sendonly"), "video", video_codecs(args))
    await pc.setLocalDescription(await pc.createOffer())
    return audio, video


async def send_media(pc: RTCPeerConnection, answer: str, audio: ToneTrack, video: PatternTrack, started: float, args, out: dict) -> None:
    """Applies the answer, waits to connect, sends for `args.seconds`, and notes what went."""
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    out["connected"] = await wait_connected(pc, CONNECT_TIMEOUT)
    out["connectSeconds"] = round(time.monotonic() - started, 3) if out["connected"] else None
    out.update(dtls_facts(pc))
    if out["connected"]:
        await asyncio.sleep(args.seconds)
    out["audioFramesSent"], out["videoFramesSent"] = audio.frames, video.frames
    for stats in (await pc.getStats()).values():
        if stats.type == "outbound-rtp":
            out[f"{stats.kind}PacketsSent"] = stats.packetsSent


async def run_publish(args, out: dict) -> int:
    client, _ = await connect(args)
    pc = new_peer_connection()
    try:
        audio, video = await offer_to_send(pc, args)
        params = {"sdpOffer": pc.localDescription.sdp, "videoDimensions": {"width": WIDTH, "height": HEIGHT}}
        if args.name is not None:
            params["name"] = args.name
        started = time.monotonic()
        # Wall-clock, so a test can relate it to the subscriber process's first decoded frame.
        out["offerSentAt"] = time.time()
        result = await client.request("publish", params)
        out["streamId"] = result["stream"]["streamId"]
        await send_media(pc, result["sdpAnswer"], audio, video, started, args, out)
        return 0 if out["connected"] else 1
    finally:
        out["events"] = [{"event": e["event"], "reason": e["reason"]} for e in client.log]
        await client.close()
        await pc.close()


async def run_whip(args, out: dict) -> int:
    pc = new_peer_connection()
    try:
        audio, video = await offer_to_send(pc, args)
        url = args.url + (f"?name={urllib.request.quote(args.name)}" if args.name is not None else "")
        started = time.monotonic()
        answer = await asyncio.to_thread(http_resource.post_offer, url, args.token, pc.localDescription.sdp, out, "streamId")
        if answer is None:
            return 2
        await send_media(pc, answer, audio, video, started, args, out)
        out["deleteStatus"] = await asyncio.to_thread(http_resource.delete, args.url, args.token, out["location"])
        return 0 if out["connected"] else 1
    finally:
        await pc.close()


async def first_stream(client: SignalingClient, connect_result: dict, stream_id: str | None, timeout: float) -> str | None:
    own = connect_result["connection"]["connectionId"]
    for stream in connect_result["session"]["streams"]:
        if (stream_id is None and stream["connection"]["connectionId"] != own) or stream["streamId"] == stream_id:
            return stream["streamId"]
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            name, data = await asyncio.wait_for(client.events.get(), left)
        except asyncio.TimeoutError:
            break
        if name == "closed":
            break
        if name == "streamCreated" and (stream_id is None or data["stream"]["streamId"] == stream_id):
            return data["stream"]["streamId"]
    return None


class FrameCounter:
    """Decodes every track a peer connection receives and counts the frames, noting in `out` when the
    first video and audio frames came (from `start()`) and the picture size."""

    def __init__(self, out: dict):
        self.out = out
        self.counts = {"video": 0, "audio": 0}
        self.tasks = []
        self.started = time.monotonic()

    def start(self):
        self.started = time.monotonic()

    def on_track(self, track: MediaStreamTrack):
        self.tasks.append(asyncio.ensure_future(self.consume(track)))

    async def consume(self, track: MediaStreamTrack):
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            self.counts[track.kind] += 1
            if track.kind == "video":
                if self.counts["video"] == 1:
                    self.out["firstFrameSeconds"] = round(time.monotonic() - self.started, 3)
                    self.out["firstFrameAt"] = time.time()
                self.out["width"], self.out["height"] = frame.width, frame.height
            elif self.counts["audio"] == 1:
                self.out["firstAudioSeconds"] = round(time.monotonic() - self.started, 3)

    def finish(self):
        self.out["videoFrames"], self.out["audioFrames"] = self.counts["video"], self.counts["audio"]
        for task in self.tasks:
            task.cancel()

    @property
    def decoded(self) -> bool:
        return bool(self.counts["video"] or self.counts["audio"])


async def run_subscribe(args, out: dict) -> int:
    client, connect_result = await connect(args)
    pc = new_peer_connection()
    frames = FrameCounter(out)
    pc.on("track", frames.on_track)
    try:
        stream_id = await first_stream(client, connect_result, args.stream_id, args.seconds)
        if stream_id is None:
            out["message"] = "no stream appeared"
            return 1
        out["streamId"] = stream_id
        frames.start()
        result = await client.request("subscribe", {"streamId": stream_id, "webrtc": True})
        out["subscriberId"] = result["subscriberId"]
        out["videoEnabled"] = result.get("videoEnabled")
        await pc.setRemoteDescription(RTCSessionDescription(sdp=result["sdpOffer"], type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        await client.request("answerSubscriber", {"subscriberId": result["subscriberId"], "sdpAnswer": pc.localDescription.sdp})
        out["connected"] = await wait_connected(pc, min(CONNECT_TIMEOUT, args.seconds))
        out.update(dtls_facts(pc))
        await asyncio.sleep(max(0.0, args.seconds - (time.monotonic() - frames.started)))
        return 0 if frames.decoded else 1
    finally:
        frames.finish()
        out["events"] = [{"event": e["event"], "reason": e["reason"]} for e in client.log]
        await client.close()
        await pc.close()


async def run_whep(args, out: dict) -> int:
    pc = new_peer_connection()
    frames = FrameCounter(out)
    pc.on("track", frames.on_track)
    try:
        pc.addTransceiver("audio", direction="recvonly")
        prefer(pc.addTransceiver("video", direction="recvonly"), "video", video_codecs(args))
        await pc.setLocalDescription(await pc.createOffer())
        frames.start()
        body = await asyncio.to_thread(http_resource.post_offer, args.url, args.token, pc.localDescription.sdp, out, "subscriberId")
        if body is None:
            return 2
        await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
        out["connected"] = await wait_connected(pc, min(CONNECT_TIMEOUT, args.seconds))
        out.update(dtls_facts(pc))
        await asyncio.sleep(max(0.0, args.seconds - (time.monotonic() - frames.started)))
        out["deleteStatus"] = await asyncio.to_thread(http_resource.delete, args.url, args.token, out["location"])
        return 0 if frames.decoded else 1
    finally:
        frames.finish()
        await pc.close()


def emit(line: dict) -> None:
    print(json.dumps(line), flush=True)


def selected_port(pc: RTCPeerConnection) -> int | None:
    """The local UDP port of the nominated ICE pair (aioice internals), where the router sends media."""
    try:
        connection = pc.getTransceivers()[0].receiver.transport.transport._connection
        pair = connection._nominated.get(1)
        return pair.protocol.transport.get_extra_info("sockname")[1]
    except Exception:  # best effort: these are aioice internals
        return None


class ChaosSubscription:
    """One peer connection subscribed to the named stream, with its frames counted into `totals`."""

    def __init__(self, totals: dict):
        self.pc = new_peer_connection()
        self.totals = totals
        self.tasks = []
        self.last_frame = time.monotonic()
        self.stream_id = None
        self.subscriber_id = None
        self.pc.on("track", lambda track: self.tasks.append(asyncio.ensure_future(self.consume(track))))

    async def consume(self, track: MediaStreamTrack):
        while True:
            try:
                await track.recv()
            except MediaStreamError:
                return
            self.totals[track.kind] += 1
            self.last_frame = time.monotonic()

    async def close(self):
        for task in self.tasks:
            task.cancel()
        await self.pc.close()


async def named_stream(client: SignalingClient, streams: dict, name: str, timeout: float) -> str | None:
    """The id of the stream called `name`, from `streams` (id -> name, kept up to date here from the
    events) or the next `streamCreated`; None at the timeout or when the WebSocket closed."""
    deadline = time.monotonic() + timeout
    while True:
        for stream_id, stream_name in streams.items():
            if stream_name == name:
                return stream_id
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            event, data = await asyncio.wait_for(client.events.get(), left)
        except asyncio.TimeoutError:
            return None
        if event == "closed":
            return None
        track_stream_events(streams, event, data)


def track_stream_events(streams: dict, event: str, data: dict) -> None:
    if event == "streamCreated":
        streams[data["stream"]["streamId"]] = data["stream"].get("name", "")
    elif event == "streamDestroyed":
        streams.pop(data.get("streamId") or (data.get("stream") or {}).get("streamId"), None)


async def chaos_connection(url: str, args, totals: dict, deadline: float) -> str:
    """One WebSocket to `url`: subscribes to the named stream, again whenever it goes, until the
    WebSocket closes, the peer connection fails or frames stall. Returns why it ended."""
    client, result = await asyncio.wait_for(connect_to(url, args), 10)
    streams = {s["streamId"]: s.get("name", "") for s in result["session"]["streams"]}
    subscription = None
    try:
        while time.monotonic() < deadline:
            stream_id = await named_stream(client, streams, args.stream_name, min(20.0, deadline - time.monotonic()))
            if stream_id is None:
                return "no stream named " + args.stream_name
            subscription = ChaosSubscription(totals)
            subscription.stream_id = stream_id
            reply = await client.request("subscribe", {"streamId": stream_id, "webrtc": True})
            subscription.subscriber_id = reply["subscriberId"]
            await subscription.pc.setRemoteDescription(RTCSessionDescription(sdp=reply["sdpOffer"], type="offer"))
            await subscription.pc.setLocalDescription(await subscription.pc.createAnswer())
            await client.request("answerSubscriber", {"subscriberId": reply["subscriberId"], "sdpAnswer": subscription.pc.localDescription.sdp})
            if not await wait_connected(subscription.pc, 10):
                return "ICE and DTLS did not connect"
            emit({"event": "subscribed", "url": url, "streamId": stream_id, "port": selected_port(subscription.pc)})
            subscription.last_frame = time.monotonic()
            reason = await watch_subscription(client, streams, subscription, args, deadline)
            if reason is None:
                return "the end"
            await subscription.close()
            subscription = None
            if reason.startswith("connect again"):
                return reason
            emit({"event": "lost", "reason": reason})
        return "the end"
    finally:
        if subscription is not None:
            await subscription.close()
        await client.close()


async def connect_to(url: str, args) -> tuple[SignalingClient, dict]:
    """Connects through `url`, following `sessionOnOtherNode` to the node that serves the session
    (docs/cluster.md), up to three times."""
    for _ in range(4):
        ws = await websockets.connect(url, max_size=None, open_timeout=5)
        client = SignalingClient(ws)
        try:
            return client, await client.request("connect", {"sessionId": args.session, "token": args.token}, timeout=8)
        except ProtocolError as error:
            await ws.close()
            client.reader.cancel()
            if error.error.get("code") != "sessionOnOtherNode" or not error.error.get("location"):
                raise
            url = error.error["location"]
        except Exception:
            await ws.close()
            client.reader.cancel()
            raise
    raise ConnectionError("sessionOnOtherNode more than three times")


async def watch_subscription(client: SignalingClient, streams: dict, subscription: ChaosSubscription, args, deadline: float) -> str | None:
    """Reports frames while they come; returns why the subscription is over ("connect again: ..." when
    the WebSocket must be replaced), or None at the deadline."""
    reported = dict(subscription.totals)
    while time.monotonic() < deadline:
        if subscription.totals != reported:
            reported = dict(subscription.totals)
            emit({"event": "frames", **reported})
        if subscription.pc.connectionState in ("failed", "closed"):
            return "connect again: the peer connection " + subscription.pc.connectionState
        if time.monotonic() - subscription.last_frame > args.stall:
            return f"connect again: no frame for {args.stall:g} s"
        while not client.events.empty():
            event, data = client.events.get_nowait()
            if event == "closed":
                return "connect again: the WebSocket closed"
            track_stream_events(streams, event, data)
            if event == "streamDestroyed" and subscription.stream_id not in streams:
                return "the stream went"
            if event == "subscriberDestroyed" and data.get("subscriberId") == subscription.subscriber_id:
                return "the router ended the subscription"
        await asyncio.sleep(0.2)
    return None


async def run_chaos_subscribe(args) -> int:
    totals = {"video": 0, "audio": 0}
    deadline = time.monotonic() + args.seconds
    turn = 0
    while time.monotonic() < deadline:
        url = args.url[turn % len(args.url)]
        try:
            reason = await chaos_connection(url, args, totals, deadline)
        except ProtocolError as error:
            reason = f"{error.method} refused: {error.error.get('code')}"
        except (OSError, ConnectionError, asyncio.TimeoutError, websockets.WebSocketException) as error:
            reason = f"{type(error).__name__}: {error}"
        if time.monotonic() >= deadline:
            break
        emit({"event": "lost", "reason": f"{url}: {reason}"})
        turn += 1
        await asyncio.sleep(0.5)
    return 0


async def main(args) -> int:
    if args.mode == "chaos-subscribe":
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        return await run_chaos_subscribe(args)
    if args.mode in ("publish", "whip"):
        out = {"role": "publisher" if args.mode == "publish" else "whip-publisher", "streamId": None, "connected": False,
               "connectSeconds": None, "srtpProfile": None, "dtlsVersion": None, "dtlsCipher": None}
        runner = run_publish if args.mode == "publish" else run_whip
    else:
        out = {"role": "subscriber" if args.mode == "subscribe" else "whep-player", "streamId": None, "subscriberId": None,
               "connected": False, "videoFrames": 0, "audioFrames": 0, "width": None, "height": None, "srtpProfile": None,
               "dtlsVersion": None, "dtlsCipher": None, "firstFrameSeconds": None, "firstAudioSeconds": None}
        runner = run_subscribe if args.mode == "subscribe" else run_whep
    try:
        status = await runner(args, out)
    except ProtocolError as error:
        out.update(error=error.error, method=error.method)
        status = 2
    except (OSError, ConnectionError, asyncio.TimeoutError, websockets.WebSocketException) as error:
        out["message"] = f"{type(error).__name__}: {error}"
        status = 1
    print(json.dumps(out), flush=True)
    return status


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    for mode in ("publish", "subscribe", "whip", "whep"):
        sub = modes.add_parser(mode)
        sub.add_argument(
            "--url", required=True,
            help="ws://HOST:PORT/v1/ws; for whip http://HOST:PORT/v1/whip/SESSION, for whep http://HOST:PORT/v1/whep/SESSION/STREAM")
        if mode in ("publish", "subscribe"):
            sub.add_argument("--session", required=True)
        sub.add_argument("--token", required=True, help="a client token for this session")
        sub.add_argument("--seconds", type=float, default=5.0)
        if mode in ("publish", "whip"):
            sub.add_argument("--name", help="the stream's name")
        if mode in ("publish", "whip", "whep"):
            sub.add_argument("--codec", choices=["vp8", "h264"], default="vp8", help="the video codec offered")
        elif mode == "subscribe":
            sub.add_argument("--stream-id", help="default: the first stream that exists or appears")
    chaos = modes.add_parser("chaos-subscribe")
    chaos.add_argument("--url", required=True, action="append", help="ws://HOST:PORT/v1/ws of a node; repeat for every node, tried in turn")
    chaos.add_argument("--session", required=True)
    chaos.add_argument("--token", required=True, help="a subscriber token for this session, valid for the whole run")
    chaos.add_argument("--seconds", type=float, required=True)
    chaos.add_argument("--stream-name", required=True)
    chaos.add_argument("--stall", type=float, default=8.0, help="seconds without a decoded frame before connecting afresh")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
