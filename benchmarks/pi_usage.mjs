#!/usr/bin/env node
// Pi 1.6.0's own getUsageCostBreakdown summed over every session file of a folder: what
// the folder benchmark compares `pisession usage` and ccusage-pi with.
//
//   node benchmarks/pi_usage.mjs SESSIONS_DIR     prints {keys: {key: {tokens, cost}}, files}
//
// Each file is read from a temporary copy (loadEntriesFromFile appends a missing final
// newline to the file it reads). Per-session figures are added in file-name order.
process.env.TZ = "UTC";
process.env.PI_ORACLE_VERSION ??= "1.6.0";

import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const { PI_PATHS, PI_VERSION, sessionManager } = await import("../conformance/pi.mjs");
const { getUsageCostBreakdown } = await import(pathToFileURL(join(PI_PATHS.agent, "dist", "core", "usage-totals.js")).href);
const { loadEntriesFromFile, migrateSessionEntries } = sessionManager;

function files(root) {
  const out = [];
  for (const name of readdirSync(root).sort()) {
    const p = join(root, name);
    if (statSync(p).isDirectory()) {
      for (const inner of readdirSync(p).sort()) if (inner.endsWith(".jsonl")) out.push(join(p, inner));
    } else if (name.endsWith(".jsonl")) out.push(p);
  }
  return out;
}

const tmp = mkdtempSync(join(tmpdir(), "pi-usage-bench-"));
const keys = {};
let read = 0;
let empty = 0;
try {
  for (const path of files(process.argv[2])) {
    const copy = join(tmp, "session.jsonl");
    copyFileSync(path, copy);
    const entries = loadEntriesFromFile(copy);
    if (entries.length === 0) {
      empty++;
      continue;
    }
    migrateSessionEntries(entries);
    read++;
    for (const row of getUsageCostBreakdown(entries.filter((e) => e.type !== "session"))) {
      const sum = (keys[row.key] ??= { tokens: 0, cost: 0 });
      sum.tokens += row.tokens;
      sum.cost += row.cost;
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify({ pi: PI_VERSION, files: read, noEntries: empty, keys }) + "\n");
