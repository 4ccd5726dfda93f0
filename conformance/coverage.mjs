#!/usr/bin/env node
// Counts entry types and stored message roles over corpus folders (default: edge + generated).
//   node conformance/coverage.mjs [DIR...]
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DATA_CONFORMANCE } from "./paths.mjs";

const dirs = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : ["edge", "generated"].map((d) => join(DATA_CONFORMANCE, d));
for (const dir of dirs) {
  const types = {};
  const roles = {};
  const versions = {};
  let files = 0;
  let bytes = 0;
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".jsonl")) continue;
    files++;
    const text = readFileSync(join(dir, name), "utf8");
    bytes += Buffer.byteLength(text);
    let first = true;
    for (const line of text.split("\n")) {
      let v;
      try {
        v = JSON.parse(line);
      } catch {
        continue;
      }
      if (!v || typeof v !== "object") continue;
      if (first && v.type === "session") {
        versions[String(v.version)] = (versions[String(v.version)] ?? 0) + 1;
        first = false;
        continue;
      }
      first = false;
      types[v.type] = (types[v.type] ?? 0) + 1;
      if (v.type === "message" && v.message) roles[v.message.role] = (roles[v.message.role] ?? 0) + 1;
    }
  }
  console.log(JSON.stringify({ dir, files, bytes, headerVersions: versions, entryTypes: types, roles }, null, 1));
}
