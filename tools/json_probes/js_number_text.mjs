// numberText of docs/examples/adapter-skeleton.mjs on one hex bit pattern per line.
import { createInterface } from "node:readline";
import { numberText } from "../../docs/examples/adapter-skeleton.mjs";

const view = new DataView(new ArrayBuffer(8));
for await (const line of createInterface({ input: process.stdin })) {
  view.setBigUint64(0, BigInt(`0x${line.trim()}`));
  process.stdout.write(numberText(view.getFloat64(0)) + "\n");
}
