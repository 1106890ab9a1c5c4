// JSON.parse with the reviver's source text (context.source): on by default in newer Node
// releases; Node 20 needs --harmony-json-parse-with-source. Numbers are read from their source
// text, so 1 and 1.0 differ and integers stay exact. Nothing else is added: lone surrogates,
// the finite double range and nesting are left to JSON.parse, to show what it does there.
import { probe } from "./render.mjs";

const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 64n - 1n;
probe((bytes) =>
  JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), (_, v, context) => {
    if (typeof v !== "number") return v;
    const text = context.source;
    if (!/[.eE]/.test(text) && text !== "-0") {
      const n = BigInt(text);
      if (n >= INT_MIN && n <= INT_MAX) return { int: n };
    }
    return { double: Number(text) };
  }),
);
