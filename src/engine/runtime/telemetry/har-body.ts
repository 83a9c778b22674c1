/**
 * Bodies in a HAR, cut at the caller's `max_body_bytes`: text on a character boundary (never
 * half a UTF-8 sequence), binary as base64 of its first bytes, with `size` the body's true
 * length and a `comment` whenever what is shown is less than the whole.
 */
import { RESPONSE_CAPTURE_LIMITS, type CapturedBody } from './response-capture.js';

/** The first at most `maxBytes` UTF-8 bytes of `bytes` as text, without a split character. */
function utf8Prefix(bytes: Buffer, maxBytes: number): string {
  // A streaming decode holds back an incomplete trailing sequence instead of emitting U+FFFD.
  return new TextDecoder('utf-8').decode(bytes.subarray(0, maxBytes), { stream: true });
}

/** Text cut at `maxBytes` UTF-8 bytes on a character boundary (a request's `postData.text`; `api_call.data.code`). */
export function cutText(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  // Each UTF-16 unit takes at least one byte, so the first `maxBytes` units hold the cut: no copy of the whole.
  return utf8Prefix(Buffer.from(text.slice(0, maxBytes)), maxBytes);
}

export interface HarContentBody {
  text: string;
  encoding?: 'base64';
  comment?: string;
}

/** `content.text` (and `encoding`, `comment`) of a captured response body. */
export function responseContent(b: CapturedBody, maxBytes: number): HarContentBody {
  const shown = Math.min(b.bytes.length, maxBytes);
  const comment = shown < b.size ? `body cut at ${shown} of ${b.size} bytes` : undefined;
  if (b.binary) return { text: b.bytes.subarray(0, shown).toString('base64'), encoding: 'base64', ...(comment ? { comment } : {}) };
  return { text: utf8Prefix(b.bytes, shown), ...(comment ? { comment } : {}) };
}

/** Why a response has no body in a HAR that asked for bodies. */
export const SKIP_COMMENTS = {
  too_large: `body not kept: larger than the ${RESPONSE_CAPTURE_LIMITS.fetchMax / 1024 / 1024} MiB the engine fetches`,
  unavailable: 'body not kept: the browser no longer had it (or it had none)',
  busy: 'body not kept: too many responses finished at once',
  evicted: `body dropped for newer ones: a session keeps at most ${RESPONSE_CAPTURE_LIMITS.bodyBytes / 1024 / 1024} MiB and ${RESPONSE_CAPTURE_LIMITS.bodies} bodies`,
} as const;
