#!/usr/bin/env node
// Pi's own answers on the real-CLI recordings of one Pi version, at the level users meet
// Pi: for every data/realcli/<V>/<scenario>/ folder it writes <scenario>.pi.json.
//
//   PI_ORACLE_VERSION=1.6.0 node conformance/realcli/answers.mjs data/realcli/1.6.0
//   PI_ORACLE_VERSION=0.87.1 node conformance/realcli/answers.mjs --check data/realcli/1.6.0
//
// --check compares with the committed answers apart from the "pi" field (which version
// answered): each checked version must answer every version's recordings alike.
//
// Runs on Node >= 20 with Pi's modules loaded by file path (../pi.mjs). Per session file:
// SessionManager.open (the leaf it picks, getSessionName, getTree in Pi's order with
// labels), buildSessionContext and convertToLlm at the open leaf and at every tree leaf
// (SessionManager.branch), and getUsageCostBreakdown over every entry and over the open
// leaf's branch. Per scenario: SessionManager.listAll() and SessionManager.list(cwd) for
// every project, over a copy of the sessions folder whose files' mtimes are set to their
// header times (git does not keep mtimes; Pi breaks ties by them).
process.env.TZ = "UTC";

import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";

const { PI_PATHS, PI_VERSION, sessionManager, messages } = await import("../pi.mjs");
const { SessionManager } = sessionManager;
const { convertToLlm } = messages;
const { getUsageCostBreakdown } = await import(pathToFileURL(join(PI_PATHS.agent, "dist", "core", "usage-totals.js")).href);

const check = process.argv.includes("--check");
const out = process.argv.slice(2).find((a) => !a.startsWith("--"));
if (!out) {
  console.error("usage: node answers.mjs [--check] DIR (a data/realcli/<version> folder)");
  process.exit(2);
}
const mismatches = [];
/** An answer file without its "pi" field: every checked version must give the same
 * answers on every version's recordings (--check compares so). */
const withoutPi = (text) => text.replace(/^\{\n "pi": "[^"]*",/, "");

/** JSON as Pi would write it (NaN and Infinity become null, undefined fields vanish). */
const plain = (value) => JSON.parse(JSON.stringify(value ?? null));
const figure = (v) => (typeof v === "number" && Number.isFinite(v) ? v : { js: typeof v, text: String(v) });
const rows = (entries) => getUsageCostBreakdown(entries).map((r) => ({ key: r.key, cost: figure(r.cost), tokens: figure(r.tokens) }));

function sessionFiles(dir) {
  const found = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".jsonl")) found.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return found;
}

function treeOf(manager) {
  const order = [];
  const labels = {};
  const leaves = [];
  const stack = [...manager.getTree()].reverse();
  while (stack.length) {
    const node = stack.pop();
    order.push([node.entry.id, node.children.map((c) => c.entry.id)]);
    if (node.label !== undefined) labels[node.entry.id] = node.label;
    if (node.children.length === 0) leaves.push(node.entry.id);
    stack.push(...[...node.children].reverse());
  }
  return { order, labels, leaves };
}

function contextAt(manager) {
  const context = manager.buildSessionContext();
  return { context: plain(context), llm: plain(convertToLlm(context.messages)) };
}

function fileAnswers(path) {
  const manager = SessionManager.open(path);
  const openLeaf = manager.getLeafId() ?? null;
  const tree = treeOf(manager);
  const answer = {
    header: plain(manager.getHeader()),
    openLeaf,
    sessionName: manager.getSessionName() ?? null,
    tree: tree.order,
    labels: tree.labels,
    leaves: tree.leaves,
    contexts: [{ leaf: openLeaf, ...contextAt(manager) }],
    usage: { all: rows(manager.getEntries()), branch: rows(manager.getBranch()) },
  };
  for (const leaf of tree.leaves) {
    manager.branch(leaf);
    answer.contexts.push({ leaf, ...contextAt(manager) });
  }
  return answer;
}

function info(root, i) {
  return plain({
    path: relative(root, i.path).split(sep).join("/"),
    id: i.id,
    cwd: i.cwd,
    name: i.name ?? null,
    parentSessionPath: i.parentSessionPath ?? null,
    created: i.created,
    modified: i.modified,
    messageCount: i.messageCount,
    firstMessage: i.firstMessage,
    allMessagesText: i.allMessagesText,
  });
}

for (const name of readdirSync(out).sort()) {
  const sessions = join(out, name, "sessions");
  if (!existsSync(sessions)) continue;
  const tmp = mkdtempSync(join(tmpdir(), "pi-realcli-"));
  try {
    const agent = join(tmp, "agent");
    cpSync(sessions, join(agent, "sessions"), { recursive: true });
    const files = {};
    const cwds = new Set();
    for (const path of sessionFiles(join(agent, "sessions"))) {
      const header = JSON.parse(readFileSync(path, "utf8").split("\n", 1)[0]);
      const when = new Date(header.timestamp);
      utimesSync(path, when, when);
      cwds.add(header.cwd);
      files[relative(join(agent, "sessions"), path).split(sep).join("/")] = fileAnswers(path);
    }
    process.env.PI_CODING_AGENT_DIR = agent;
    const root = join(agent, "sessions");
    const listAll = (await SessionManager.listAll()).map((i) => info(root, i));
    const list = {};
    for (const cwd of [...cwds].sort()) list[cwd] = (await SessionManager.list(cwd)).map((i) => info(root, i));
    const text = JSON.stringify({ pi: PI_VERSION, scenario: name, files, listAll, list }, null, 1) + "\n";
    const target = join(out, `${name}.pi.json`);
    if (!check) writeFileSync(target, text);
    else if (!existsSync(target) || withoutPi(readFileSync(target, "utf8")) !== withoutPi(text)) mismatches.push(target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
if (check) {
  for (const m of mismatches) console.error(`${m}: differs from Pi ${PI_VERSION}'s answers (re-run without --check)`);
  console.error(`Pi ${PI_VERSION}'s answers for ${out}: ${mismatches.length} differences`);
  process.exit(mismatches.length ? 1 : 0);
}
console.error(`Pi ${PI_VERSION}'s answers written for ${out}`);
