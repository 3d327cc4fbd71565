#!/usr/bin/env node
// Property-based cases for the C# SDK's JSON reader/writer (GameBackend.Json).
//
//   node sdk-csharp/Tools~/json-cases.mjs <out.json> [seed]
//
// Writes, deterministically per seed (default 33):
//   { "seed": n,
//     "valid":   [{ "text": <JSON text with random whitespace and escapes>, "canonical": <compact form> }],
//     "invalid": [<texts Node's JSON.parse refuses, made by mutating valid texts>],
//     "doubles": [{ "text": JSON.stringify(x), "bits": <x's IEEE 754 bits, 16 hex digits> }] for random
//                finite doubles x (-0 excluded) }
//
// "canonical" is JSON.stringify(value) with U+2028/U+2029 escaped (the C# writer escapes them, JavaScript
// does not). Number lexemes in "text" are JSON.stringify's, and members are written in the order
// JSON.stringify uses, so JsonNode.Parse(text).ToJson() must equal canonical exactly.
// "doubles": JsonNode.Parse(text).AsDouble() must have exactly those bits, and JsonNode.From(x).ToJson()
// must give text back (the C# side writes numbers the way JavaScript does).
import { writeFileSync } from "node:fs";

const out = process.argv[2];
const seed = process.argv[3] === undefined ? 33 : Number(process.argv[3]);
if (!out || !Number.isInteger(seed)) {
  console.error("usage: node json-cases.mjs <out.json> [seed]");
  process.exit(2);
}

// mulberry32: small, seeded, deterministic
let state = seed >>> 0;
function rand() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rand() * n); // 0 .. n-1
const pick = (xs) => xs[int(xs.length)];
const chance = (p) => rand() < p;

// ---------------------------------------------------------------- values

const SPECIAL_CHARS = [
  '"',
  "\\",
  "/",
  "\b",
  "\f",
  "\n",
  "\r",
  "\t",
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\u2028",
  "\u2029",
  "\u00e9",
  "\u00a0",
  "\ufeff",
  "\uffff",
  "\ud7ff",
  "\ue000",
  "\u4e2d",
  " ",
  "'",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
];
const ASTRAL = [0x1f600, 0x1f680, 0x10000, 0x10ffff, 0x1d11e, 0x20bb7, 0x1f9d1];

function randomChar() {
  const r = rand();
  if (r < 0.45) return String.fromCharCode(0x20 + int(0x5f)); // printable ASCII
  if (r < 0.6) return pick(SPECIAL_CHARS);
  if (r < 0.7) return String.fromCharCode(int(0x20)); // any control character
  if (r < 0.85) {
    // BMP, not a surrogate
    let c;
    do {
      c = 0x80 + int(0xff80);
    } while (c >= 0xd800 && c <= 0xdfff);
    return String.fromCharCode(c);
  }
  return String.fromCodePoint(chance(0.5) ? pick(ASTRAL) : 0x10000 + int(0x100000)); // a surrogate pair
}

function randomString() {
  const n = chance(0.1) ? 0 : chance(0.8) ? 1 + int(12) : 1 + int(80);
  let s = "";
  for (let i = 0; i < n; i++) s += randomChar();
  return s;
}

function randomNumber() {
  const r = rand();
  if (r < 0.1) return pick([0, -0, 1, -1, 2 ** 53, -(2 ** 53), 2 ** 53 - 1, 1e308, 5e-324, 1.5e-7, 1e21, 1e-7, 1e-6, 0.1, 123.456]);
  if (r < 0.45) {
    // an integer up to ±2^53, magnitudes spread out
    const digits = 1 + int(16);
    let n = Math.floor(rand() * 10 ** digits);
    if (n > 2 ** 53) n = 2 ** 53;
    return chance(0.5) ? -n : n;
  }
  if (r < 0.7) {
    // a short fraction
    const n = Math.round((rand() * 2 - 1) * 10 ** int(7)) / 10 ** (1 + int(6));
    return n;
  }
  if (r < 0.9) {
    // exponents across the range
    const n = (rand() * 2 - 1) * 10 ** (int(616) - 308);
    return Number.isFinite(n) ? n : 1.7976931348623157e308;
  }
  return randomDouble();
}

function randomDouble() {
  // random bits, finite
  const view = new DataView(new ArrayBuffer(8));
  for (;;) {
    view.setUint32(0, int(2 ** 32));
    view.setUint32(4, int(2 ** 32));
    const x = view.getFloat64(0);
    if (Number.isFinite(x)) return x;
  }
}

function randomValue(depth) {
  const r = rand();
  const leaf = depth >= 5 || r < 0.5 + 0.1 * depth;
  if (leaf) {
    const k = rand();
    if (k < 0.08) return null;
    if (k < 0.16) return chance(0.5);
    if (k < 0.55) return randomNumber();
    return randomString();
  }
  if (r < 0.78) {
    const n = int(chance(0.9) ? 5 : 16);
    const a = [];
    for (let i = 0; i < n; i++) a.push(randomValue(depth + 1));
    return a;
  }
  const n = int(chance(0.9) ? 5 : 16);
  const o = {};
  for (let i = 0; i < n; i++) {
    const key = chance(0.3) ? String(int(100)) : chance(0.5) ? randomString() : `k${int(50)}`;
    o[key] = randomValue(depth + 1);
  }
  return o;
}

// ---------------------------------------------------------------- text, written with random whitespace and escapes

function ws() {
  if (chance(0.6)) return "";
  let s = "";
  const n = 1 + int(3);
  for (let i = 0; i < n; i++) s += pick([" ", "\t", "\n", "\r", " "]);
  return s;
}

function hex4(c) {
  const h = c.toString(16).padStart(4, "0");
  return `\\u${chance(0.5) ? h : h.toUpperCase()}`;
}

const SHORT = { '"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function writeString(s) {
  let t = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    const mustEscape = c < 0x20 || ch === '"' || ch === "\\";
    if (c >= 0xd800 && c <= 0xdbff) {
      // a pair: raw, or two \u escapes
      const lo = s.charCodeAt(++i);
      t += chance(0.7) ? String.fromCharCode(c, lo) : hex4(c) + hex4(lo);
      continue;
    }
    if (mustEscape || chance(0.15)) {
      t += SHORT[ch] !== undefined && chance(0.7) ? SHORT[ch] : hex4(c);
    } else {
      t += ch;
    }
  }
  return `${t}"`;
}

function writeText(v) {
  if (v === null || typeof v === "boolean") return String(v);
  if (typeof v === "number") return JSON.stringify(v);
  if (typeof v === "string") return writeString(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return `[${ws()}]`;
    return `[${v.map((x) => ws() + writeText(x) + ws()).join(",")}]`;
  }
  const keys = Object.keys(v); // JSON.stringify's order (integer-like keys first)
  if (keys.length === 0) return `{${ws()}}`;
  return `{${keys.map((k) => `${ws() + writeString(k) + ws()}:${ws()}${writeText(v[k])}${ws()}`).join(",")}}`;
}

function canonical(v) {
  return JSON.stringify(v)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

// ---------------------------------------------------------------- invalid texts

const INSERTS = [
  ",",
  "]",
  "}",
  "[",
  "{",
  ":",
  '"',
  "\\",
  "0",
  "00",
  "-",
  ".",
  "e",
  "+",
  "x",
  "'",
  "\u0001",
  '\n"',
  "\u00a0",
  "\ufeff",
  "\\x",
  "\\u12",
  "NaN",
  "Infinity",
  "tru",
  "nul",
  "/*c*/",
  "//",
  "1 2",
  "\\U0041",
  "\u000b",
  "\u000c",
];

function mutate(text) {
  const r = rand();
  const at = int(text.length + 1);
  if (r < 0.2) return text.slice(0, at) + pick(INSERTS) + text.slice(at); // insert
  if (r < 0.35) return text.slice(0, at) + text.slice(at + 1 + int(3)); // delete
  if (r < 0.5) return text.slice(0, at) + pick(INSERTS) + text.slice(at + 1); // replace
  if (r < 0.6) return text.slice(0, int(text.length)); // truncate
  if (r < 0.7) {
    // trailing comma
    const close = [...text.matchAll(/[\]}]/g)].map((m) => m.index);
    if (close.length === 0) return `${text},`;
    const i = pick(close);
    return `${text.slice(0, i)},${text.slice(i)}`;
  }
  if (r < 0.78) return text + pick([" 1", ",", " {}", ' "x"', "x", " null"]); // something after the value
  if (r < 0.86) {
    // leading zero / bad number
    const nums = [...text.matchAll(/-?\d+(\.\d+)?([eE][+-]?\d+)?/g)].map((m) => m.index);
    if (nums.length === 0) return `0${text}`;
    const i = pick(nums);
    return text.slice(0, i) + pick(["0", "00", "+", ".", "-"]) + text.slice(i); // 05, 0-5, +5, .5, --5
  }
  if (r < 0.93) return text.replace(/"/, "'"); // single quotes
  return text.slice(0, at) + String.fromCharCode(int(0x20)) + text.slice(at); // raw control character
}

// ---------------------------------------------------------------- the file

const valid = [];
const seen = new Set();
while (valid.length < 2000) {
  const v = randomValue(0);
  const text = ws() + writeText(v) + ws();
  const c = canonical(v);
  if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(v)) throw new Error(`generator bug: ${text}`);
  valid.push({ text, canonical: c });
}

function wellFormed(s) {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

const invalid = [];
while (invalid.length < 1000) {
  const base = pick(valid).text;
  const text = mutate(chance(0.3) ? mutate(base) : base);
  // A mutation may split a surrogate pair; keep the file valid UTF-16 (lone surrogates are covered by the unit tests).
  if (seen.has(text) || !wellFormed(text)) continue;
  seen.add(text);
  try {
    JSON.parse(text);
  } catch {
    invalid.push(text);
  }
}

const doubles = [];
while (doubles.length < 1000) {
  const x = chance(0.7) ? randomDouble() : randomNumber();
  if (Object.is(x, -0)) continue;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0).toString(16).padStart(16, "0");
  doubles.push({ text: JSON.stringify(x), bits });
}

writeFileSync(out, `${JSON.stringify({ seed, valid, invalid, doubles })}\n`);
