// The reader of docs/examples/adapter-skeleton.mjs, probed like the libraries.
import { parseLine } from "../../docs/examples/adapter-skeleton.mjs";
import { probe } from "./render.mjs";

probe(parseLine);
