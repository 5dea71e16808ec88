// The frame cipher of switchyard.js's end-to-end encryption (docs/e2ee.md), run off the main thread
// by encoded transforms (RTCRtpScriptTransform). The page derives the key from the session's secret
// and posts it here; the router never has it.
//
// An encrypted frame is the frame's first bytes in the clear (what the router and the receiver's
// depacketizer read: 10 of a VP8 key frame, 3 of a delta frame, 1 of an Opus frame), then the rest
// sealed with AES-GCM (the clear bytes as additional data, so they cannot be altered either), its
// 16-byte tag, the 12-byte random IV, and one byte naming this format.

const FORMAT = 0x53;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const CLEAR_BYTES = { key: 10, delta: 3, audio: 1 };
/** A failure is reported at once, then at most this often per receiver. */
const REPORT_INTERVAL_MS = 1000;

let key = null;
/** receiver id and kind → { count, reportedAt } */
const failures = new Map();

onmessage = (event) => {
  if (event.data?.key) key = event.data.key;
};

function clearBytes(frame, kind) {
  if (kind === "audio") return CLEAR_BYTES.audio;
  return frame.type === "key" ? CLEAR_BYTES.key : CLEAR_BYTES.delta;
}

async function encrypt(frame, kind, controller) {
  const data = new Uint8Array(frame.data);
  // An empty frame (DTX) has nothing to hide; without the key nothing goes out in the clear.
  if (data.length === 0) return controller.enqueue(frame);
  if (!key) return;
  const clear = Math.min(clearBytes(frame, kind), data.length);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: data.subarray(0, clear) }, key, data.subarray(clear)));
  const out = new Uint8Array(clear + sealed.length + IV_BYTES + 1);
  out.set(data.subarray(0, clear));
  out.set(sealed, clear);
  out.set(iv, clear + sealed.length);
  out[out.length - 1] = FORMAT;
  frame.data = out.buffer;
  controller.enqueue(frame);
}

async function decrypt(frame, kind, id, controller) {
  const data = new Uint8Array(frame.data);
  if (data.length === 0) return controller.enqueue(frame);
  const clear = Math.min(clearBytes(frame, kind), data.length);
  const end = data.length - IV_BYTES - 1;
  if (key && end >= clear + TAG_BYTES && data[data.length - 1] === FORMAT) {
    try {
      const opened = new Uint8Array(await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: data.subarray(end, end + IV_BYTES), additionalData: data.subarray(0, clear) }, key, data.subarray(clear, end)));
      const out = new Uint8Array(clear + opened.length);
      out.set(data.subarray(0, clear));
      out.set(opened, clear);
      frame.data = out.buffer;
      return controller.enqueue(frame);
    } catch {
      // Another key sealed it: reported below.
    }
  }
  // Dropped, never passed on: a decoder fed ciphertext would show garbage.
  const failure = failures.get(`${id}/${kind}`) ?? { count: 0, reportedAt: 0 };
  failure.count += 1;
  failures.set(`${id}/${kind}`, failure);
  const now = Date.now();
  if (failure.count === 1 || now - failure.reportedAt >= REPORT_INTERVAL_MS) {
    failure.reportedAt = now;
    postMessage({ type: "decryptionFailed", id, kind, count: failure.count });
  }
}

onrtctransform = (event) => {
  const { readable, writable, options } = event.transformer;
  const { operation, kind, id } = options;
  const transform = operation === "encrypt"
    ? (frame, controller) => encrypt(frame, kind, controller)
    : (frame, controller) => decrypt(frame, kind, id, controller);
  readable.pipeThrough(new TransformStream({ transform })).pipeTo(writable).catch(() => {});
};
