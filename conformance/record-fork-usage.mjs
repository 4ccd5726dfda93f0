#!/usr/bin/env node
// Records Pi 1.6.0's own getUsageCostBreakdown (dist/core/usage-totals.js) over the
// DISTINCT entries of the fork folders that record-forks.mjs wrote with Pi's SessionManager
// (data/forks/folder, made by Pi 0.87.1, and data/forks/pi-1.6.0/folder, by Pi 1.6.0),
// into data/forks/usage.json:
//
//   node conformance/record-fork-usage.mjs [--check]
//
// The rule, written here on its own (pisession/folders/forks.py is the Python one): an
// entry that counts usage is the same entry in two files when its id, its timestamp, the
// key it counts under and its five figures (numbers as doubles) are the same; it counts in
// the file that holds it first, files ordered by their header's timestamp, then by name.
// Per file: "all", Pi's breakdown over every entry (what /session shows), "kept", Pi's
// breakdown over the entries that count there, and "leftOut", how many were left out. Per
// folder: "perSession", the kept rows summed key by key in file order with JavaScript's +
// (what `pisession usage` sums), and "distinct", one call of Pi's function over every
// distinct entry (the tokens are the same; a cost may differ in its last digits only by
// the order of the additions). --check compares with the committed file.
process.env.TZ = "UTC";
process.env.PI_ORACLE_VERSION ??= "1.6.0";

import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const { PI_PATHS, PI_VERSION, REPO, sessionManager } = await import("./pi.mjs");
const { getUsageCostBreakdown } = await import(
  pathToFileURL(join(PI_PATHS.agent, "dist", "core", "usage-totals.js")).href
);
const { loadEntriesFromFile, migrateSessionEntries } = sessionManager;

const OUT = join(REPO, "data", "forks", "usage.json");
const FOLDERS = ["data/forks/folder", "data/forks/pi-1.6.0/folder"];

/** The key and usage an entry counts, as getUsageCostBreakdown reads them (null: none). */
function counted(entry) {
  let key;
  let usage;
  if (entry.type === "message" && entry.message.role === "assistant") {
    key = `${entry.message.provider}/${entry.message.responseModel ?? entry.message.model}`;
    usage = entry.message.usage;
  } else if (entry.type === "usage") {
    key = `${entry.provider}/${entry.model}`;
    usage = entry.usage;
  } else if (entry.type === "message" && entry.message.role === "toolResult" && entry.message.usage) {
    key = "Tools/summaries";
    usage = entry.message.usage;
  } else if ((entry.type === "branch_summary" || entry.type === "compaction") && entry.usage) {
    key = "Tools/summaries";
    usage = entry.usage;
  }
  if (!key || !usage) return null;
  return { key, usage };
}

function identity(entry) {
  const found = counted(entry);
  if (found === null) return null;
  const { key, usage } = found;
  const figures = [usage.input, usage.output, usage.cacheRead, usage.cacheWrite, usage.cost.total];
  // a number as the double it is (String(-0) is "0" too), a string as itself, else String()
  const text = (v) => (typeof v === "number" ? `n${String(v)}` : typeof v === "string" ? `s${v}` : String(v));
  return [String(entry.id), String(entry.timestamp), key, ...figures.map(text)].join("\u0000");
}

/** Pi's reading of a copy of the file (loadEntriesFromFile may append a final newline). */
function readFile(path) {
  const tmp = mkdtempSync(join(tmpdir(), "pi-fork-usage-"));
  try {
    const copy = join(tmp, "session.jsonl");
    copyFileSync(path, copy);
    const entries = loadEntriesFromFile(copy);
    migrateSessionEntries(entries);
    return { header: entries.find((e) => e.type === "session"), body: entries.filter((e) => e.type !== "session") };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const rows = (entries) => getUsageCostBreakdown(entries).map((r) => ({ key: r.key, cost: r.cost, tokens: r.tokens }));

function recordFolder(folder) {
  const names = readdirSync(join(REPO, folder)).filter((n) => n.endsWith(".jsonl")).sort();
  const files = names.map((name) => ({ name, ...readFile(join(REPO, folder, name)) }));
  const time = (f) => new Date(f.header.timestamp).getTime();
  const order = files.map((f, i) => i).sort((a, b) => time(files[a]) - time(files[b]) || a - b);
  const homed = new Set();
  const kept = new Map();
  for (const i of order) {
    const keep = [];
    let leftOut = 0;
    for (const entry of files[i].body) {
      const id = identity(entry);
      if (id !== null && homed.has(id)) {
        leftOut += 1;
        continue;
      }
      if (id !== null) homed.add(id);
      keep.push(entry);
    }
    kept.set(i, { keep, leftOut });
  }
  const out = { files: {}, perSession: [], distinct: [], leftOut: 0 };
  const sums = new Map();
  files.forEach((f, i) => {
    const { keep, leftOut } = kept.get(i);
    const mine = rows(keep);
    out.files[f.name] = { all: rows(f.body), kept: mine, leftOut };
    out.leftOut += leftOut;
    for (const r of mine) {
      const s = sums.get(r.key) ?? { key: r.key, cost: 0, tokens: 0 };
      s.cost += r.cost;
      s.tokens += r.tokens;
      sums.set(r.key, s);
    }
  });
  out.perSession = [...sums.values()].sort((a, b) => b.cost - a.cost);
  out.distinct = rows(files.flatMap((f, i) => kept.get(i).keep));
  return out;
}

const folders = {};
for (const folder of FOLDERS) if (existsSync(join(REPO, folder))) folders[folder] = recordFolder(folder);
const text = `${JSON.stringify({ pi: PI_VERSION, function: "getUsageCostBreakdown", folders }, null, 1)}\n`;

if (process.argv.includes("--check")) {
  const committed = existsSync(OUT) ? readFileSync(OUT, "utf8") : "";
  if (committed !== text) {
    console.error(`${relative(process.cwd(), OUT)}: differs from Pi ${PI_VERSION}'s breakdowns (re-run without --check)`);
    process.exit(1);
  }
  console.error(`${Object.keys(folders).length} fork folders: breakdowns equal Pi ${PI_VERSION}'s`);
} else {
  writeFileSync(OUT, text);
  console.error(`recorded ${Object.keys(folders).length} fork folders with Pi ${PI_VERSION} in ${relative(process.cwd(), OUT)}`);
}
