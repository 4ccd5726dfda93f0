#!/usr/bin/env node
// Records one Pi version's reading of every *.jsonl under the given corpus folders as
// <name>.golden.json (see conformance/README.md for the format). The version is
// $PI_ORACLE_VERSION, else the primary one of pisession/pi_versions.json.
//
//   node conformance/record.mjs [--out DIR] CORPUS_DIR...
//   node conformance/record.mjs --check [--out DIR] CORPUS_DIR...
//
// Without --out each golden is written next to its .jsonl. With --out DIR it goes
// to DIR/<basename of CORPUS_DIR>/<path relative to CORPUS_DIR>.golden.json.
// --check writes nothing next to the corpus: it compares each recording with the committed
// golden byte for byte, apart from the leading "pi" field (the version that recorded it),
// lists missing and orphan goldens, and exits 1 on any difference (with --out, the
// recordings that differ are written there for inspection).
process.env.TZ = "UTC";

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { DATA_CONFORMANCE, PI_VERSION, messages, sessionManager, transcript } from "./pi.mjs";

const { loadEntriesFromFile, migrateSessionEntries, buildSessionContext, buildSessionProjection, SessionManager } =
  sessionManager;
const { convertToLlm } = messages;
const { getCurrentSystemMessage, getCurrentSystemPrompt } = transcript;

const MAX_LEAVES = 8;
const MAX_INTERIOR = 3;
const FAKE_CWD = "/conformance/cwd";

function listJsonl(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".jsonl")) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** FNV-1a 32-bit over UTF-16 code units: a stable, simple hash for picking interior leaves. */
export function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const isObj = (e) => e !== null && typeof e === "object";
const idOf = (e) => (isObj(e) ? e.id : undefined);
const parentOf = (e) => (isObj(e) ? e.parentId : undefined);

/** Mirror of Pi's buildSessionPath walk, with a visited set. Returns null or the cycle ids. */
function findCycle(entries, leafId) {
  const index = new Map();
  for (const e of entries) index.set(idOf(e), e);
  let leaf;
  if (leafId) leaf = index.get(leafId);
  leaf ??= entries[entries.length - 1];
  const seen = new Map(); // entry object -> position in walk
  const walk = [];
  let current = leaf;
  while (current) {
    if (seen.has(current)) return walk.slice(seen.get(current)).map(idOf);
    seen.set(current, walk.length);
    walk.push(current);
    const p = parentOf(current);
    current = p ? index.get(p) : undefined;
  }
  return null;
}

/** Choose leaves: null (Pi's default) + for version >= 2 files tree leaves and a few interior ids. */
function chooseLeaves(entries, idsStable) {
  const leaves = [null];
  if (!idsStable) return leaves;
  const ids = [];
  const seenIds = new Set();
  for (const e of entries) {
    const id = idOf(e);
    if (typeof id === "string" && id !== "" && !seenIds.has(id)) {
      seenIds.add(id);
      ids.push(id);
    }
  }
  const parents = new Set(entries.map(parentOf));
  const treeLeaves = ids.filter((id) => !parents.has(id));
  const interior = ids
    .filter((id) => parents.has(id))
    .sort((a, b) => fnv1a(a) - fnv1a(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_INTERIOR);
  const firstTree = treeLeaves.slice(0, MAX_LEAVES - 1 - interior.length);
  const restTree = treeLeaves.slice(firstTree.length);
  for (const id of [...firstTree, ...interior, ...restTree]) {
    if (leaves.length >= MAX_LEAVES) break;
    if (!leaves.includes(id)) leaves.push(id);
  }
  return leaves;
}

function errorCase(partial, stage, err) {
  return { ...partial, error: "exception", stage, message: String(err && err.message !== undefined ? err.message : err) };
}

function recordCase(entries, leaf) {
  const cycle = findCycle(entries, leaf ?? undefined);
  if (cycle) return { leaf, error: "cycle", cycle };
  const leafArg = leaf ?? undefined;
  const out = { leaf };
  // Each stage is recorded when it succeeds; the first failing stage ends the case with
  // {error: "exception", stage, message} (later fields absent).
  const stages = [
    ["context", () => buildSessionContext(entries, leafArg)],
    [
      "projection",
      () =>
        buildSessionProjection(entries, leafArg).entries.map((item) => [
          entries.indexOf(item.sourceEntry),
          item.messages.length,
        ]),
    ],
    ["llm", () => convertToLlm(out.context.messages)],
    ["systemMessage", () => getCurrentSystemMessage(out.context.messages) ?? null],
    ["systemPrompt", () => getCurrentSystemPrompt(out.context.messages)],
  ];
  for (const [stage, fn] of stages) {
    try {
      out[stage] = fn();
    } catch (err) {
      return errorCase(out, stage, err);
    }
  }
  return out;
}

/** Detect whether Pi's getTree() traversal would loop (a node reachable from itself). */
function treeWouldLoop(entries) {
  const nodes = new Map();
  for (const e of entries) nodes.set(idOf(e), { children: [] });
  const roots = [];
  for (const e of entries) {
    const node = nodes.get(idOf(e));
    const p = parentOf(e);
    if (p === null || p === idOf(e)) roots.push(node);
    else {
      const parent = nodes.get(p);
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
  }
  const state = new Map(); // 1 = on stack, 2 = done
  const visit = (n) => {
    const stack = [[n, 0]];
    state.set(n, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top[1] < top[0].children.length) {
        const c = top[0].children[top[1]++];
        const s = state.get(c);
        if (s === 1) return true;
        if (s === undefined) {
          state.set(c, 1);
          stack.push([c, 0]);
        }
      } else {
        state.set(top[0], 2);
        stack.pop();
      }
    }
    return false;
  };
  for (const r of roots) {
    const s = state.get(r);
    if (s === 1) return true;
    if (s === undefined && visit(r)) return true;
  }
  return false;
}

function treeSummary(manager, entries) {
  if (treeWouldLoop(entries)) return { treeRoots: "loop", tree: "loop" };
  const roots = manager.getTree();
  const treeRoots = roots.map((n) => [idOf(n.entry) ?? null, n.children.map((c) => idOf(c.entry) ?? null)]);
  // Full pre-order listing (same traversal order as Pi's tree view): [id, [child ids]].
  const tree = [];
  const stack = [...roots].reverse();
  let guard = 0;
  while (stack.length && guard++ < 1_000_000) {
    const n = stack.pop();
    tree.push([idOf(n.entry) ?? null, n.children.map((c) => idOf(c.entry) ?? null)]);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return { treeRoots, tree };
}

export function recordFile(absPath) {
  const file = relative(DATA_CONFORMANCE, absPath).split(sep).join("/");
  const tmp = mkdtempSync(join(tmpdir(), "pi-record-"));
  try {
    const tmpFile = join(tmp, "session.jsonl");
    copyFileSync(absPath, tmpFile);
    const fileEntries = loadEntriesFromFile(tmpFile);
    if (fileEntries.length === 0) {
      return {
        pi: PI_VERSION,
        file,
        headerVersion: null,
        entryCount: 0,
        sessionName: null,
        error: "no-valid-header",
        cases: [],
      };
    }
    const originalVersion = fileEntries[0].version;
    const headerVersion = originalVersion === undefined ? null : originalVersion;
    // Pi: version = header.version ?? 1; v1->v2 (fresh random ids) runs when version < 2 (JS comparison).
    const effectiveVersion = fileEntries[0].version ?? 1;
    const idsStable = !(effectiveVersion < 2);
    let migrationError = null;
    try {
      migrateSessionEntries(fileEntries);
    } catch (err) {
      migrationError = String(err && err.message !== undefined ? err.message : err);
    }
    const entries = fileEntries.filter((e) => e.type !== "session");

    const golden = {
      pi: PI_VERSION,
      file,
      headerVersion,
      entryCount: entries.length,
      sessionName: null,
    };
    if (migrationError !== null) {
      // Pi cannot open such a file (the exception propagates out of SessionManager).
      golden.error = "exception";
      golden.stage = "migration";
      golden.message = migrationError;
      golden.cases = [];
      return golden;
    }
    // A fresh copy for the manager (migration mutates in place; the manager must not share objects).
    let manager = null;
    try {
      const fresh = loadEntriesFromFile(tmpFile);
      manager = SessionManager.inMemory(FAKE_CWD, undefined, fresh);
      golden.sessionName = manager.getSessionName() ?? null;
    } catch (err) {
      golden.sessionName = null;
      golden.managerError = String(err && err.message !== undefined ? err.message : err);
    }
    if (idsStable && manager) {
      const labels = {};
      for (const e of manager.getEntries()) {
        const id = idOf(e);
        if (typeof id !== "string") continue;
        const label = manager.getLabel(id);
        if (label !== undefined) labels[id] = label;
      }
      golden.labels = labels;
      try {
        Object.assign(golden, treeSummary(manager, manager.getEntries()));
      } catch (err) {
        golden.treeError = String(err && err.message !== undefined ? err.message : err);
      }
    }
    golden.cases = chooseLeaves(entries, idsStable).map((leaf) => recordCase(entries, leaf));
    return golden;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A golden's text without its leading `"pi":"<version>",` (what --check compares). */
export function withoutVersion(text) {
  return text.replace(/^\{"pi":"[^"]*",/, "{");
}

function check(dirs, out) {
  let files = 0;
  const problems = [];
  for (const dir of dirs) {
    const isSamples = basename(dir) === "samples";
    const shown = relative(process.cwd(), dir) || ".";
    const recorded = new Set();
    for (const abs of listJsonl(dir)) {
      const rel = relative(dir, abs).replace(/\.jsonl$/, ".golden.json");
      const committed = join(dirname(abs), basename(rel));
      recorded.add(committed);
      if (!existsSync(committed)) {
        if (isSamples) console.error(`note: no committed golden for ${join(shown, rel)} (not compared)`);
        else {
          files++;
          problems.push(`missing committed golden: ${join(shown, rel)}`);
        }
        continue;
      }
      files++;
      const text = JSON.stringify(recordFile(abs)) + "\n";
      if (withoutVersion(text) !== withoutVersion(readFileSync(committed, "utf8"))) {
        problems.push(`differs: ${join(shown, rel)}`);
        if (out) {
          const target = join(out, basename(dir), rel);
          mkdirSync(dirname(target), { recursive: true });
          writeFileSync(target, text);
        }
      }
    }
    const goldens = [];
    const walk = (d) => {
      for (const name of readdirSync(d).sort()) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name.endsWith(".golden.json")) goldens.push(p);
      }
    };
    walk(dir);
    for (const g of goldens) {
      if (!recorded.has(g)) problems.push(`orphan golden (no .jsonl): ${relative(process.cwd(), g)}`);
    }
  }
  console.log(`conformance re-check with Pi ${PI_VERSION}: ${files} files, ${problems.length} mismatches`);
  for (const p of problems.slice(0, 10)) console.log(`  ${p}`);
  if (problems.length > 10) console.log(`  ... and ${problems.length - 10} more`);
  return problems.length ? 1 : 0;
}

function main(argv) {
  let out = null;
  let checking = false;
  const dirs = [];
  const usage = "usage: node conformance/record.mjs [--check] [--out DIR] CORPUS_DIR...";
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") out = resolve(argv[++i]);
    else if (argv[i] === "--check") checking = true;
    else if (argv[i] === "-h" || argv[i] === "--help") {
      console.log(usage);
      return 0;
    } else dirs.push(resolve(argv[i]));
  }
  if (dirs.length === 0) {
    console.error(usage);
    return 2;
  }
  if (checking) return check(dirs, out);
  let n = 0;
  for (const dir of dirs) {
    for (const abs of listJsonl(dir)) {
      const golden = recordFile(abs);
      const rel = relative(dir, abs).replace(/\.jsonl$/, ".golden.json");
      const target = out ? join(out, basename(dir), rel) : join(dirname(abs), basename(rel));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, JSON.stringify(golden) + "\n");
      n++;
    }
  }
  console.error(`recorded ${n} golden file(s) with Pi ${PI_VERSION}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("record.mjs")) {
  process.exitCode = main(process.argv.slice(2));
}
