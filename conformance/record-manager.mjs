#!/usr/bin/env node
// Records Pi's answers at the level users meet Pi: its `SessionManager`, not the free
// functions. Two goldens, both made by Pi's own session-manager.js (loaded by file path,
// see pi.mjs), for the version $PI_ORACLE_VERSION (default: the primary one):
//
// data/manager/open.golden.json   for every data/**/*.jsonl: SessionManager.open on a copy
//   of it, then getLeafId() (the default leaf) and buildSessionContext() at that leaf:
//   {leaf, messages, sha256 of JSON.stringify(context)} (or {error} where Pi throws, or
//   {cycle: true} where its walk would never end). The files of data/manager/leaf/ also keep
//   their whole context.
// data/manager/list.golden.json   SessionManager.listAll() over sessions folders:
//   "repro": data/manager/list/ as it is (a sessions root, one folder per project, and a
//   file directly in the root), "corpus": every data/**/*.jsonl, each folder of data/ made
//   one project folder (--data-conformance-edge--). Every file gets a fixed modification
//   time: repro files all REPRO_MTIME (equal times), corpus files CORPUS_MTIME + k seconds
//   (k: the file's rank in path order). Beside listAll(): listAll(dir) and list(cwd, dir)
//   for each repro project folder, and list(cwd) for the repro cwds, one as a file:// URL.
//
//   node conformance/record-manager.mjs            rewrite both goldens
//   node conformance/record-manager.mjs --check    compare with the committed ones (exit 1 on a difference)
//   node conformance/record-manager.mjs --arrange DIR   only arrange the corpus as a sessions root in DIR
process.env.TZ = "UTC";

import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { REPO } from "./paths.mjs";

export const REPRO_MTIME = 1767225600; // 2026-01-01T00:00:00Z
export const CORPUS_MTIME = 1735689600; // 2025-01-01T00:00:00Z
const DATA = join(REPO, "data");
const MANAGER = join(DATA, "manager");
const LIST_REPRO = join(MANAGER, "list");
const OPEN_GOLDEN = join(MANAGER, "open.golden.json");
const LIST_GOLDEN = join(MANAGER, "list.golden.json");
/** The working directories list(cwd) is asked about (as given: a path and a file:// URL). */
const REPRO_CWDS = ["/home/reader/demo", "file:///home/reader/demo", "file:///home/reader/caf%C3%A9"];

/** Every *.jsonl under dir, as paths relative to the repository, sorted. */
export function corpusFiles(dir = DATA) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else if (name.endsWith(".jsonl") && s.isFile()) out.push(relative(REPO, p).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

/** The project folder a corpus file goes to: its folder's path, `/` made `-`, in `--`. */
export function corpusFolder(rel) {
  return `--${dirname(rel).replaceAll("/", "-")}--`;
}

/** data/**.jsonl copied into root/<corpusFolder>/, each with its fixed modification time. */
export function arrangeCorpus(root) {
  corpusFiles().forEach((rel, k) => {
    const target = join(root, corpusFolder(rel), rel.split("/").pop());
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(REPO, rel), target);
    utimesSync(target, CORPUS_MTIME + k, CORPUS_MTIME + k);
  });
}

/** A copy of a folder tree, every file (and folder) with the time `mtime`. */
function copyTree(from, to, mtime) {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from).sort()) {
    const p = join(from, name);
    if (statSync(p).isDirectory()) copyTree(p, join(to, name), mtime);
    else {
      copyFileSync(p, join(to, name));
      utimesSync(join(to, name), mtime, mtime);
    }
  }
}

const message = (err) => String(err && err.message !== undefined ? err.message : err);
const iso = (date) => (date instanceof Date && !Number.isNaN(date.getTime()) ? date.toISOString() : null);
const orNull = (value) => (value === undefined ? null : value);

/** One SessionInfo as plain JSON: the path relative to root, Invalid Dates as null. */
function infoJson(info, root) {
  return {
    path: relative(root, info.path).split(sep).join("/"),
    id: orNull(info.id),
    cwd: info.cwd,
    name: orNull(info.name),
    parentSessionPath: orNull(info.parentSessionPath),
    created: iso(info.created),
    modified: iso(info.modified),
    messageCount: info.messageCount,
    firstMessage: info.firstMessage,
  };
}

async function withAgentDir(sessions, run) {
  const agent = mkdtempSync(join(tmpdir(), "pi-agent-"));
  const before = process.env.PI_CODING_AGENT_DIR;
  try {
    copyTree(sessions, join(agent, "sessions"), REPRO_MTIME);
    process.env.PI_CODING_AGENT_DIR = agent;
    return await run(join(agent, "sessions"));
  } finally {
    if (before === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = before;
    rmSync(agent, { recursive: true, force: true });
  }
}

export async function recordList(SessionManager, version) {
  const golden = { pi: version, reproMtime: REPRO_MTIME, corpusMtime: CORPUS_MTIME };
  golden.repro = await withAgentDir(LIST_REPRO, async (root) => {
    const out = { listAll: (await SessionManager.listAll()).map((i) => infoJson(i, root)) };
    out.listAllDir = {};
    out.listDir = {};
    for (const folder of readdirSync(root).sort()) {
      const dir = join(root, folder);
      if (!statSync(dir).isDirectory()) continue;
      out.listAllDir[folder] = (await SessionManager.listAll(dir)).map((i) => infoJson(i, root));
      // a custom session folder: list(cwd, dir) keeps the sessions whose header cwd is cwd
      out.listDir[folder] = (await SessionManager.list("/home/reader/demo", dir)).map((i) => infoJson(i, root));
    }
    out.list = {};
    for (const cwd of REPRO_CWDS) out.list[cwd] = (await SessionManager.list(cwd)).map((i) => infoJson(i, root));
    return out;
  });
  const agent = mkdtempSync(join(tmpdir(), "pi-agent-"));
  const before = process.env.PI_CODING_AGENT_DIR;
  try {
    arrangeCorpus(join(agent, "sessions"));
    process.env.PI_CODING_AGENT_DIR = agent;
    golden.corpus = { files: corpusFiles().length, listAll: (await SessionManager.listAll()).map((i) => infoJson(i, join(agent, "sessions"))) };
  } finally {
    if (before === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = before;
    rmSync(agent, { recursive: true, force: true });
  }
  return golden;
}

/** Whether Pi's walk from the manager's leaf would come back to an entry (it loops forever). */
function walkLoops(manager) {
  const leafId = manager.getLeafId();
  if (leafId === null) return false;
  const entries = manager.getEntries();
  const byId = new Map();
  for (const e of entries) byId.set(e?.id, e);
  let current = (leafId ? byId.get(leafId) : undefined) ?? entries[entries.length - 1];
  const seen = new Set();
  while (current) {
    if (seen.has(current)) return true;
    seen.add(current);
    const parent = current.parentId;
    current = parent ? byId.get(parent) : undefined;
  }
  return false;
}

/** SessionManager.open on a copy of absPath (in tmp): its leaf, and the context there. */
export function openAnswer(SessionManager, parseSessionEntries, absPath, tmp, keepContext = false) {
  const copy = join(tmp, "session.jsonl");
  copyFileSync(absPath, copy);
  let out;
  try {
    const manager = SessionManager.open(copy, join(tmp, "sessions"));
    const leaf = manager.getLeafId();
    // a v1 file gets fresh random ids from Pi's migration: the leaf is one of them
    const header = parseSessionEntries(readFileSync(absPath, "utf8")).find((e) => e?.type === "session");
    const migrated = !((header?.version ?? 1) >= 2) && typeof leaf === "string";
    out = { leaf: leaf === undefined ? "(undefined)" : migrated ? "(a new id)" : leaf };
    if (walkLoops(manager)) out.cycle = true;
    else {
      const context = manager.buildSessionContext();
      const text = JSON.stringify(context);
      out.messages = context.messages.length;
      out.sha256 = createHash("sha256").update(text).digest("hex");
      if (keepContext) out.context = context;
    }
  } catch (err) {
    out = { ...out, error: message(err).replaceAll(copy, "<file>") };
  } finally {
    rmSync(copy, { force: true });
  }
  return out;
}

/** SessionManager.listAll(dir) of a folder holding a copy of absPath alone, at
 * REPRO_MTIME: the file's row (as infoJson, path left out), or null (not listed). */
export async function listAnswer(SessionManager, absPath, tmp) {
  const dir = join(tmp, "listed");
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, "session.jsonl");
  copyFileSync(absPath, copy);
  utimesSync(copy, REPRO_MTIME, REPRO_MTIME);
  try {
    const [info] = await SessionManager.listAll(dir);
    if (!info) return null;
    const { path, ...row } = infoJson(info, dir);
    return row;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function recordOpen(SessionManager, parseSessionEntries, version) {
  const golden = { pi: version, files: {} };
  const tmp = mkdtempSync(join(tmpdir(), "pi-open-"));
  try {
    for (const rel of corpusFiles()) {
      const keep = rel.startsWith("data/manager/leaf/");
      golden.files[rel] = openAnswer(SessionManager, parseSessionEntries, join(REPO, rel), tmp, keep);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return golden;
}

const withoutVersion = (text) => text.replace(/"pi": ?"[^"]*",/, "");

async function main(argv) {
  if (argv[0] === "--arrange") {
    arrangeCorpus(argv[1]);
    return 0;
  }
  const { sessionManager, PI_VERSION } = await import("./pi.mjs");
  const { SessionManager } = sessionManager;
  const checking = argv.includes("--check");
  const made = [
    [OPEN_GOLDEN, recordOpen(SessionManager, sessionManager.parseSessionEntries, PI_VERSION)],
    [LIST_GOLDEN, await recordList(SessionManager, PI_VERSION)],
  ];
  let failed = 0;
  for (const [path, golden] of made) {
    const text = JSON.stringify(golden, null, 1) + "\n";
    const shown = relative(process.cwd(), path);
    if (!checking) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      console.error(`wrote ${shown} with Pi ${PI_VERSION}`);
    } else if (!existsSync(path) || withoutVersion(readFileSync(path, "utf8")) !== withoutVersion(text)) {
      console.log(`SessionManager re-check with Pi ${PI_VERSION}: ${shown} differs`);
      failed = 1;
    }
  }
  if (checking && !failed) console.log(`SessionManager re-check with Pi ${PI_VERSION}: open and listAll goldens identical`);
  return failed;
}

if (process.argv[1]?.endsWith("record-manager.mjs")) process.exitCode = await main(process.argv.slice(2));
