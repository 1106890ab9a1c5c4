// Shared by the JavaScript probe programs: the tagged rendering probes.py reads back.
import { createInterface } from "node:readline";

const bits = (x) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
};
const units = (s) => [...Array(s.length).keys()].map((i) => s.charCodeAt(i).toString(16).padStart(4, "0")).join("");

/** `number` is how the parser under test hands over a number: a tagged {int}|{double}. */
export function render(v) {
  if (v === null) return "n";
  if (v === true) return "t";
  if (v === false) return "f";
  if (typeof v === "bigint") return `i${v}`;
  if (typeof v === "number") return `d${bits(v)}`;
  if (typeof v === "string") return `u${units(v)}`;
  if (Array.isArray(v)) return `[${v.map(render).join(",")}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `u${units(k)}:${render(x)}`).join(",")}}`;
  if (v.int !== undefined) return `i${v.int}`;
  if (v.double !== undefined) return `d${bits(v.double)}`;
  return `{${Object.keys(v).map((k) => `u${units(k)}:${render(v[k])}`).join(",")}}`;
}

/** Run `parse(bytes)` on every hex line of stdin; print OK <rendering> or REJECT <reason>. */
export async function probe(parse) {
  for await (const line of createInterface({ input: process.stdin })) {
    let out;
    try {
      out = `OK ${render(parse(Buffer.from(line, "hex")))}`;
    } catch (err) {
      out = `REJECT ${String(err.message ?? err).slice(0, 80).replace(/\n/g, " ")}`;
    }
    process.stdout.write(out + "\n");
  }
}
