#!/usr/bin/env node
// A PROTOCOL.md v1 adapter skeleton for Node.js, standard library only (written for Node 18+,
// tested on Node 20).
//
// It implements the transport, a strict JSON reader with exact numbers (SPEC.md 1.4), Protocol
// errors, hello/reset, tool_id_parse, session_id_parse and digest. Every other op answers
// Protocol ("not implemented in the skeleton") until you wire it to your implementation: the
// place is `handle` below. Run it through the conformance runner:
//
//   session-toolset conform --adapter "node adapter-skeleton.mjs" -k digest \
//       --skip skeleton
//
// `--skip skeleton` names the skip file the package ships: the vectors that need ops beyond
// these five. It fits a skeleton in any language that implements the same five ops.
//
// Why a JSON reader of its own: JSON.parse cannot be repaired afterwards. It merges 1 and 1.0
// (the digest tells them apart), accepts a lone "\ud800", turns 1e400 into Infinity and rounds
// integers above 2^53. Here integers in [-2^63, 2^64-1] are BigInt, every other number (and -0)
// is a JS number (a double), so `typeof v === "bigint"` vs `"number"` is the 1 vs 1.0 distinction.
// Objects are Maps: a repeated key keeps its last value, and "__proto__" is just a key.

import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";

const MAX_DEPTH = 127; // SPEC.md 1.4: counted on the whole line, the request object is level 1
const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 64n - 1n;
// The exact decimal value of the largest finite double (Number.MAX_VALUE).
const DOUBLE_MAX_EXACT = BigInt(Number.MAX_VALUE); // exact: BigInt() of an integral double
const SEGMENT = /^[a-z0-9][a-z0-9_.-]*$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/; // C0, DEL, C1 (SPEC.md 1.2)
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // a BOM is not whitespace

// The PROTOCOL.md ops this skeleton leaves to you: each answers Protocol until it is wired up.
const NOT_IMPLEMENTED = new Set([
  "tool_id", "catalog_insert", "catalog_upsert", "catalog_remove", "catalog_rebase_past",
  "catalog_set_generation", "catalog_state", "factory_calls", "issue_grant", "forge_grant",
  "set_new", "set_default_core", "set_progressive_core", "activate", "activate_many",
  "activate_user", "activate_model", "revoke", "rebuild", "route", "is_stale", "snapshot",
  "resolve", "authorize", "authorize_wire", "carry_forward_enabled",
]);
const ESCAPES = new Map([['"', '"'], ["\\", "\\"], ["/", "/"], ["b", "\b"], ["f", "\f"], ["n", "\n"], ["r", "\r"], ["t", "\t"]]);

/** A malformed request: answered with error "Protocol". */
class ProtocolError extends Error {}

/** A SPEC.md rejection: dotted code plus the innermost variant's payload. */
class Typed extends Error {
  constructor(code, payload = {}) {
    super(code);
    this.code = code;
    this.payload = payload;
  }
}

// ---------------------------------------------------------------- strict JSON (SPEC.md 1.4)

class Reader {
  constructor(text) {
    this.text = text;
    this.pos = 0;
  }

  fail(what) {
    throw new ProtocolError(`invalid JSON at character ${this.pos}: ${what}`);
  }

  skipWhitespace() {
    // JSON whitespace only: String.prototype.trim would also eat U+00A0, U+FEFF, U+2028, ...
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos++;
    }
  }

  document() {
    this.skipWhitespace();
    const value = this.value(1);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail("text after the value");
    return value;
  }

  value(depth) {
    const c = this.text[this.pos];
    if (c === "{" || c === "[") {
      if (depth > MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH}`);
      return c === "{" ? this.object(depth) : this.array(depth);
    }
    if (c === '"') return this.string();
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    for (const [word, result] of [["true", true], ["false", false], ["null", null]]) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return result;
      }
    }
    return this.fail("expected a value"); // NaN, Infinity, +1, .5, '...' all end here
  }

  object(depth) {
    const result = new Map();
    this.pos++; // {
    this.skipWhitespace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return result;
    }
    for (;;) {
      if (this.text[this.pos] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.pos] !== ":") this.fail("expected ':'");
      this.pos++;
      this.skipWhitespace();
      // The discarded value of a repeated key is still parsed in full: invalid text there
      // makes the whole input invalid.
      result.set(key, this.value(depth + 1));
      this.skipWhitespace();
      const c = this.text[this.pos++];
      if (c === "}") return result;
      if (c !== ",") this.fail("expected ',' or '}'");
      this.skipWhitespace();
    }
  }

  array(depth) {
    const result = [];
    this.pos++; // [
    this.skipWhitespace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      result.push(this.value(depth + 1));
      this.skipWhitespace();
      const c = this.text[this.pos++];
      if (c === "]") return result;
      if (c !== ",") this.fail("expected ',' or ']'");
    }
  }

  hex4() {
    const digits = this.text.slice(this.pos, this.pos + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail("bad \\u escape");
    this.pos += 4;
    return parseInt(digits, 16);
  }

  string() {
    this.pos++; // opening quote
    let out = "";
    let start = this.pos;
    for (;;) {
      if (this.pos >= this.text.length) this.fail("unterminated string");
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) break;
      if (c < 0x20) this.fail("raw control character in a string");
      if (c !== 0x5c) {
        // The text came through a fatal UTF-8 decoder, so it holds no lone surrogate itself.
        this.pos++;
        continue;
      }
      out += this.text.slice(start, this.pos);
      this.pos++; // backslash
      const e = this.text[this.pos++];
      if (ESCAPES.has(e)) {
        out += ESCAPES.get(e);
      } else if (e === "u") {
        const unit = this.hex4();
        if (unit >= 0xdc00 && unit <= 0xdfff) this.fail("lone low surrogate escape");
        if (unit >= 0xd800 && unit <= 0xdbff) {
          if (this.text.slice(this.pos, this.pos + 2) !== "\\u") this.fail("lone high surrogate escape");
          this.pos += 2;
          const low = this.hex4();
          if (low < 0xdc00 || low > 0xdfff) this.fail("lone high surrogate escape");
          out += String.fromCharCode(unit, low);
        } else {
          out += String.fromCharCode(unit);
        }
      } else {
        this.fail("bad escape");
      }
      start = this.pos;
    }
    out += this.text.slice(start, this.pos);
    this.pos++; // closing quote
    return out;
  }

  number() {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail("bad number");
    const literal = match[0];
    this.pos += literal.length;
    if (/^[0-9]/.test(this.text[this.pos] ?? "")) this.fail("bad number"); // "01"
    if (!/[.eE]/.test(literal)) {
      if (literal === "-0") return -0; // the double -0.0, as the original stores it
      // At most 20 digits can be in range; the length check keeps BigInt() cheap on hostile input.
      if (literal.replace("-", "").length <= 20) {
        const n = BigInt(literal);
        if (n >= INT_MIN && n <= INT_MAX) return n;
      }
    }
    return checkedDouble(literal, () => this.fail("number beyond the finite double range"));
  }
}

/** Number() rounds correctly; only a result of exactly +-MAX_VALUE needs the exact comparison. */
function checkedDouble(literal, refuse) {
  const value = Number(literal);
  if (!Number.isFinite(value)) return refuse();
  if (Math.abs(value) === Number.MAX_VALUE && exceedsDoubleMax(literal)) return refuse();
  return value;
}

/** Whether |literal| > the exact largest double, e.g. 1.7976931348623158e308 (rounds down to it). */
function exceedsDoubleMax(literal) {
  const [, intPart, frac = "", exp = "0"] = /^-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?[0-9]+))?$/.exec(literal);
  const digits = BigInt(intPart + frac);
  const scale = BigInt(exp) - BigInt(frac.length); // |value| = digits * 10^scale
  return scale >= 0n
    ? digits * 10n ** scale > DOUBLE_MAX_EXACT
    : digits > DOUBLE_MAX_EXACT * 10n ** -scale;
}

/** Decode one request line (bytes, newline removed) into a JSON value, or throw ProtocolError. */
export function parseLine(bytes) {
  let text;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ProtocolError("request line is not valid UTF-8");
  }
  return new Reader(text).document();
}

// ---------------------------------------------------------------- identities (SPEC.md 1.1, 1.2)

const byteLength = (s) => Buffer.byteLength(s, "utf8");

function parseToolId(raw) {
  const size = byteLength(raw);
  if (raw === "") throw new Typed("ToolIdError.Empty");
  if (size > 200) throw new Typed("ToolIdError.Oversized", { actual: size, limit: 200 });
  const colon = raw.indexOf(":");
  if (colon < 0) throw new Typed("ToolIdError.MissingNamespace");
  const ns = raw.slice(0, colon);
  const name = raw.slice(colon + 1);
  if (!(byteLength(ns) <= 64 && SEGMENT.test(ns))) throw new Typed("ToolIdError.InvalidNamespace");
  if (!(byteLength(name) <= 128 && SEGMENT.test(name))) throw new Typed("ToolIdError.InvalidName");
  return raw; // verbatim: never lowercased, trimmed or sanitized
}

function parseSessionId(raw) {
  const size = byteLength(raw);
  if (raw === "") throw new Typed("SessionIdError.Empty");
  if (size > 256) throw new Typed("SessionIdError.Oversized", { actual: size, limit: 256 });
  if (CONTROL.test(raw)) throw new Typed("SessionIdError.ControlCharacters");
  return raw;
}

// ---------------------------------------------------------------- digest (SPEC.md 1.4)

/** Canonical number text: an integer in decimal, a double laid out as ryu does. */
export function numberText(v) {
  if (typeof v === "bigint") return v.toString();
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  // toExponential() with no argument gives the shortest round-trip digits, "d.ddde+X";
  // toString() would pad large values with zeros and hide which digits are significant.
  const [mantissa, exponent] = Math.abs(v).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const k = Number(exponent) + 1; // value = 0.d1...dn x 10^k
  const sign = v < 0 ? "-" : "";
  if (k > 0 && k <= 16) {
    const whole = digits.slice(0, k).padEnd(k, "0");
    return `${sign}${whole}.${digits.slice(k) || "0"}`;
  }
  if (k > -5 && k <= 0) return `${sign}0.${"0".repeat(-k)}${digits}`;
  const rest = digits.length > 1 ? `.${digits.slice(1)}` : "";
  return `${sign}${digits[0]}${rest}e${k - 1}`;
}

function frame(tag, n) {
  const out = Buffer.alloc(9);
  out[0] = tag;
  out.writeBigUInt64LE(BigInt(n), 1);
  return out;
}

/** Feed the canonical length-framed encoding of a parsed value into `hash`, depth-first. */
function encode(v, hash) {
  if (v === null) {
    hash.update(Buffer.of(0));
  } else if (typeof v === "boolean") {
    hash.update(Buffer.of(1, v ? 1 : 0));
  } else if (typeof v === "bigint" || typeof v === "number") {
    const text = Buffer.from(numberText(v), "utf8");
    hash.update(frame(2, text.length)).update(text);
  } else if (typeof v === "string") {
    const bytes = Buffer.from(v, "utf8");
    hash.update(frame(3, bytes.length)).update(bytes);
  } else if (Array.isArray(v)) {
    hash.update(frame(4, v.length));
    for (const item of v) encode(item, hash);
  } else {
    // Keys in ascending UTF-8 byte order (not UTF-16 order: U+FF61 sorts before U+1F600).
    const entries = [...v].map(([k, x]) => [Buffer.from(k, "utf8"), x]);
    entries.sort((a, b) => Buffer.compare(a[0], b[0]));
    hash.update(frame(5, entries.length));
    for (const [key, x] of entries) {
      hash.update(frame(6, key.length)).update(key);
      encode(x, hash);
    }
  }
}

export function digest(value) {
  const hash = createHash("sha256");
  encode(value, hash);
  return hash.digest("hex");
}

// ---------------------------------------------------------------- requests (PROTOCOL.md)

function field(req, name, kind) {
  if (!req.has(name)) throw new ProtocolError(`missing field ${name}`);
  const value = req.get(name);
  if (kind === "string" && typeof value !== "string") throw new ProtocolError(`${name} must be a string`);
  return value; // kind "any": every JSON value, null included
}

function handle(req, world) {
  const op = req.get("op");
  switch (op) {
    case "hello":
      return { protocol: 1, implementation: "node-adapter-skeleton 0.1" };
    case "reset":
      world.clear();
      return {};
    case "tool_id_parse":
      return { id: parseToolId(field(req, "raw", "string")) };
    case "session_id_parse":
      parseSessionId(field(req, "raw", "string"));
      return {};
    case "digest":
      return { digest: digest(field(req, "schema", "any")) };
    default:
      if (NOT_IMPLEMENTED.has(op)) throw new ProtocolError(`op ${op} is not implemented in the skeleton`);
      throw new ProtocolError("unknown op"); // also a missing op or one that is not a string
  }
}

/** One request line in, one reply object out; never throws. */
export function answer(bytes, world) {
  try {
    const req = parseLine(bytes);
    if (!(req instanceof Map)) throw new ProtocolError("a request must be a JSON object");
    return { ok: true, ...handle(req, world) };
  } catch (err) {
    if (err instanceof Typed) return { ok: false, error: err.code, message: err.code, ...err.payload };
    const message = err instanceof ProtocolError ? err.message : `internal error: ${err}`;
    return { ok: false, error: "Protocol", message: message.slice(0, 200) };
  }
}

// ---------------------------------------------------------------- transport

function main() {
  const world = new Map(); // your catalog, sets, grants and counters go here
  let pending = []; // chunks of the current, unfinished line
  const reply = (bytes) => {
    // process.stdout.write is synchronous for pipes and files on Linux, so each reply is
    // out before the next line is handled.
    process.stdout.write(JSON.stringify(answer(bytes, world)) + "\n");
  };
  process.stdout.on("error", () => process.exit(0)); // the runner went away
  process.stdin.on("data", (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      pending.push(chunk.subarray(start, nl));
      reply(Buffer.concat(pending));
      pending = [];
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  process.stdin.on("end", () => {
    if (pending.length > 0) reply(Buffer.concat(pending)); // a last line without "\n"
    process.exitCode = 0;
  });
}

// Run only as a program, so that tests of your own can import the functions above.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main();
}
