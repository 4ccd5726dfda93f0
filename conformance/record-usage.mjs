#!/usr/bin/env node
// Records Pi 1.6.0's own getUsageCostBreakdown (dist/core/usage-totals.js, what its
// /session view shows) for every *.jsonl of the corpus, into data/usage/breakdowns.json:
//
//   node conformance/record-usage.mjs [--check]
//
// Per file: "all", the breakdown over every entry (what Pi passes: getEntries(), the
// migrated entries without the header), and "branch", over SessionManager's getBranch()
// after loading (the last entry's path; none when its id is falsy). A figure that is not a finite number (NaN, a string that JavaScript's +
// concatenated) is stored as {"js": typeof, "text": String(value)}; a throw as
// {"error": message}. --check compares with the committed file and exits 1 on a difference.
process.env.TZ = "UTC";
process.env.PI_ORACLE_VERSION ??= "1.6.0";

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";

const { PI_PATHS, PI_VERSION, REPO, sessionManager } = await import("./pi.mjs");
const { getUsageCostBreakdown } = await import(
  pathToFileURL(join(PI_PATHS.agent, "dist", "core", "usage-totals.js")).href
);
const { loadEntriesFromFile, migrateSessionEntries } = sessionManager;

const OUT = join(REPO, "data", "usage", "breakdowns.json");
const CORPUS = ["data/conformance", "data/samples", "data/damaged", "data/audit", "data/jsdate", "data/usage"];

function listJsonl(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".jsonl")) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

const figure = (v) => (typeof v === "number" && Number.isFinite(v) ? v : { js: typeof v, text: String(v) });
const rows = (entries) => getUsageCostBreakdown(entries).map((r) => ({ key: r.key, cost: figure(r.cost), tokens: figure(r.tokens) }));
const message = (err) => String(err && err.message !== undefined ? err.message : err);

function guarded(f) {
  try {
    return f();
  } catch (err) {
    return { error: message(err) };
  }
}

/** The path SessionManager's getBranch() walks after loading (the branch Pi's /session
 * counts): from the last entry, none when its id is falsy (getBranch starts from
 * byId.get(leafId) only for a truthy leaf id), or null on a cycle, which Pi's walk would
 * follow for ever. */
function defaultPath(entries) {
  const index = new Map();
  for (const e of entries) index.set(e.id, e);
  if (!entries[entries.length - 1]?.id) return [];
  const path = [];
  const seen = new Set();
  for (let e = entries[entries.length - 1]; e; e = e.parentId ? index.get(e.parentId) : undefined) {
    if (seen.has(e)) return null;
    seen.add(e);
    path.push(e);
  }
  return path.reverse();
}

/** Pi's reading of a copy of the file (loadEntriesFromFile appends a missing final
 * newline to the file it reads: the corpus must stay as it is). */
function recordFile(path) {
  const tmp = mkdtempSync(join(tmpdir(), "pi-usage-"));
  try {
    const copy = join(tmp, "session.jsonl");
    copyFileSync(path, copy);
    return recordCopy(copy);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function recordCopy(path) {
  const entries = loadEntriesFromFile(path);
  if (entries.length === 0) return { all: [], branch: [], note: "no session header" };
  try {
    migrateSessionEntries(entries);
  } catch (err) {
    return { error: message(err) };
  }
  const body = entries.filter((e) => e.type !== "session");
  const all = guarded(() => rows(body));
  const walked = defaultPath(body);
  const branch = walked === null ? { error: "parent cycle" } : guarded(() => rows(walked));
  return { all, branch };
}

const files = {};
for (const dir of CORPUS)
  for (const path of listJsonl(join(REPO, dir))) files[relative(REPO, path).split(sep).join("/")] = recordFile(path);
const text = JSON.stringify({ pi: PI_VERSION, function: "getUsageCostBreakdown", files }, null, 1) + "\n";

if (process.argv.includes("--check")) {
  const committed = existsSync(OUT) ? readFileSync(OUT, "utf8") : "";
  const strip = (t) => t.replace(/^\{\n "pi": "[^"]*",/, "");
  if (strip(committed) !== strip(text)) {
    console.error(`${relative(process.cwd(), OUT)}: differs from Pi ${PI_VERSION}'s breakdowns (re-run without --check)`);
    process.exit(1);
  }
  console.error(`${Object.keys(files).length} breakdowns equal Pi ${PI_VERSION}'s`);
} else {
  mkdirSync(join(REPO, "data", "usage"), { recursive: true });
  writeFileSync(OUT, text);
  console.error(`recorded ${Object.keys(files).length} breakdowns with Pi ${PI_VERSION} in ${relative(process.cwd(), OUT)}`);
}
