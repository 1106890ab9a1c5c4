// lossless-json (npm), with a number parser that keeps in-range integers exact. Needs
// PROBE_MODULES=<a directory holding node_modules/lossless-json>.
import { createRequire } from "node:module";
import { probe } from "./render.mjs";

const { parse } = createRequire(`${process.env.PROBE_MODULES}/`)("lossless-json");
const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 64n - 1n;
const number = (text) => {
  if (!/[.eE]/.test(text) && text !== "-0") {
    const n = BigInt(text);
    if (n >= INT_MIN && n <= INT_MAX) return { int: n };
  }
  return { double: Number(text) };
};
probe((bytes) => parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), null, number));
