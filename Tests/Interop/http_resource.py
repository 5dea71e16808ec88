"""The HTTP side of WHIP and WHEP for the interop peers (aiortc_peer.py, gst_webrtc_peer.py): POST an
SDP offer with a bearer token, DELETE the resource it created. Standard library only, so that both
the pip Python and Debian's /usr/bin/python3 can import it."""
import time
import urllib.error
import urllib.request

TIMEOUT = 20.0


def request(method: str, url: str, token: str, body: str | None = None) -> tuple[int, dict, str]:
    """One request; the status, headers and text of the answer, errors included."""
    message = urllib.request.Request(url, method=method, data=body.encode() if body is not None else None)
    message.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        message.add_header("Content-Type", "application/sdp")
    try:
        with urllib.request.urlopen(message, timeout=TIMEOUT) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def post_offer(url: str, token: str, sdp: str, out: dict, id_key: str) -> str | None:
    """POSTs the offer and returns the answer, noting in `out` when it went (`offerSentAt`), the
    status, the resource's `location` and its last path segment under `id_key`; None after a refusal,
    with `out["error"]` set."""
    out["offerSentAt"] = time.time()
    status, headers, body = request("POST", url, token, sdp)
    out["postStatus"] = status
    if status != 201:
        out["error"] = {"status": status, "body": body}
        return None
    location = headers.get("Location") or headers.get("location")
    out["location"] = location
    out[id_key] = location.rsplit("/", 1)[-1]
    return body


def delete(url: str, token: str, location: str) -> int:
    """DELETEs the resource at `location` on the server `url` is on; returns the status."""
    return request("DELETE", url.split("/v1/", 1)[0] + location, token)[0]
