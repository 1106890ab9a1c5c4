// JSON.parse as it is (Node's standard library), numbers as JSON.parse gives them.
import { probe } from "./render.mjs";

probe((bytes) =>
  JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), (_, v) =>
    typeof v === "number" && Number.isInteger(v) && !Object.is(v, -0) ? { int: BigInt(v) } : v,
  ),
);
