#!/usr/bin/env node
// Generates a seeded-random session corpus by driving Pi 0.87.1's real SessionManager.
//
//   node conformance/generate.mjs [--count N] [--seed S] [--out DIR] [--legacy N]
//
// Defaults: 300 sessions, seed 20260087, out data/conformance/generated, 20 v1 + 20 v2 legacy files.
// Every *choice* comes from the seeded PRNG; Pi's own entry ids and entry timestamps are
// random / wall-clock (the files are committed once, then only re-recorded).
process.env.TZ = "UTC";

import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DATA_CONFORMANCE, sessionManager } from "./pi.mjs";

const { SessionManager } = sessionManager;

// ---------------------------------------------------------------- PRNG
function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  float() {
    return this.next();
  }
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p) {
    return this.next() < p;
  }
  pick(arr) {
    return arr[Math.floor(this.next() * arr.length)];
  }
  weighted(table) {
    const total = table.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [v, w] of table) {
      if ((r -= w) < 0) return v;
    }
    return table[table.length - 1][0];
  }
}

// ---------------------------------------------------------------- vocab
const WORDS = ["fix", "test", "parse", "tree", "leaf", "edit", "diff", "log", "file", "bug", "run", "todo", "json", "node", "path", "api", "cache", "ok", "why", "plan"];
const UNICODE = ["héllo", "naïve", "日本語", "emoji 🎉", "tab\there", "line\nbreak", "quote \"x\"", "back\\slash", "\u2028sep", "zero\u0000byte", "lone \ud800 surrogate"];
const PROVIDERS = [
  ["anthropic", "claude-sonnet-4-5"],
  ["openai", "gpt-5.1-codex"],
  ["google", "gemini-2.5-pro"],
  ["openrouter", "qwen/qwen3-coder"],
];
const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh"];
const TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"];
const SECTIONS = ["base", "agents_md", "skills", "date", "cwd"];
const USAGE_KINDS = ["compaction", "branch_summary", "title", "retry", "web_search", "extension:foo", ""];

function text(rng, n = rng.int(1, 4)) {
  const words = [];
  for (let i = 0; i < n; i++) words.push(rng.chance(0.04) ? rng.pick(UNICODE) : rng.pick(WORDS));
  return words.join(" ");
}
function usage(rng) {
  const input = rng.int(0, 5000);
  const output = rng.int(0, 800);
  const u = {
    input,
    output,
    cacheRead: rng.chance(0.5) ? rng.int(0, 20000) : 0,
    cacheWrite: rng.chance(0.3) ? rng.int(0, 3000) : 0,
    cost: { total: Math.round(rng.float() * 1e6) / 1e8 },
  };
  if (rng.chance(0.2)) u.totalTokens = input + output;
  if (rng.chance(0.1)) u.reasoning = rng.int(0, 500);
  return u;
}

class Gen {
  constructor(rng, index) {
    this.rng = rng;
    this.index = index;
    this.clock = Date.UTC(2026, 0, 1) + index * 86_400_000;
    this.sm = SessionManager.inMemory(`/home/dev/project-${index % 17}`);
    this.toolCounter = 0;
    this.tools = new Set();
    this.pendingToolCalls = [];
  }
  ts() {
    this.clock += this.rng.int(1, 90_000);
    return this.clock;
  }
  branchEntries() {
    return this.sm.getBranch();
  }
  allEntries() {
    return this.sm.getEntries();
  }
  // --------------------------------------------------------- messages
  system() {
    const rng = this.rng;
    const m = { role: "system", content: "" };
    if (rng.chance(0.15)) m.content = rng.chance(0.5) ? text(rng) : [{ type: "text", text: text(rng) }];
    if (rng.chance(0.05)) m.content = null;
    const sections = {};
    for (const name of SECTIONS) {
      if (rng.chance(0.35)) sections[name] = rng.chance(0.15) ? null : rng.chance(0.05) ? "" : `${name}: ${text(rng)}`;
    }
    if (Object.keys(sections).length || rng.chance(0.5)) m.sections = sections;
    const removed = [...this.tools].filter(() => rng.chance(0.2));
    if (removed.length) {
      m.toolsRemoved = removed.map((name) => ({ name }));
      for (const t of removed) this.tools.delete(t);
    }
    const added = TOOLS.filter(() => rng.chance(0.25));
    if (added.length) {
      m.toolsAdded = added.map((name) => ({
        name,
        description: `${name} ${text(rng, 2)}`,
        parameters: { type: "object", properties: { p: { type: "string" } } },
        ...(rng.chance(0.2) ? { promptSnippet: `use ${name}` } : {}),
      }));
      for (const t of added) this.tools.add(t);
    }
    m.timestamp = this.ts();
    return this.sm.appendMessage(m);
  }
  user() {
    const rng = this.rng;
    const m = { role: "user" };
    const kind = rng.weighted([["blocks", 80], ["string", 8], ["null", 4], ["missing", 3], ["image", 5]]);
    if (kind === "blocks") {
      m.content = [{ type: "text", text: text(rng) }];
      if (rng.chance(0.1)) m.content.push({ type: "text", text: text(rng) });
    } else if (kind === "string") m.content = text(rng);
    else if (kind === "null") m.content = null;
    else if (kind === "image")
      m.content = [
        { type: "text", text: "see" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ];
    m.timestamp = this.ts();
    return this.sm.appendMessage(m);
  }
  assistant() {
    const rng = this.rng;
    const [provider, model] = rng.pick(PROVIDERS);
    const content = [];
    if (rng.chance(0.3)) {
      const th = { type: "thinking", thinking: text(rng) };
      if (rng.chance(0.5)) th.thinkingSignature = `sig${rng.int(0, 999)}`;
      if (rng.chance(0.1)) th.redacted = true;
      content.push(th);
    }
    if (rng.chance(0.85)) content.push({ type: "text", text: text(rng) });
    const calls = rng.weighted([[0, 60], [1, 30], [2, 10]]);
    this.pendingToolCalls = [];
    for (let i = 0; i < calls; i++) {
      const id = `call_${this.index}_${++this.toolCounter}`;
      const name = rng.pick(TOOLS);
      content.push({ type: "toolCall", id, name, arguments: { p: rng.pick(WORDS) } });
      this.pendingToolCalls.push({ id, name });
    }
    const m = {
      role: "assistant",
      content: rng.chance(0.03) ? null : content,
      api: provider === "anthropic" ? "anthropic-messages" : "openai-responses",
      provider,
      model,
      usage: usage(rng),
      stopReason: calls ? "toolUse" : rng.weighted([["stop", 90], ["error", 5], ["aborted", 5]]),
      timestamp: this.ts(),
    };
    if (m.stopReason === "error") m.errorMessage = "overloaded";
    if (rng.chance(0.3)) m.responseId = `resp_${rng.int(0, 1e6)}`;
    if (rng.chance(0.1)) m.rawStopReason = "end_turn";
    const id = this.sm.appendMessage(m);
    return id;
  }
  toolResults() {
    const rng = this.rng;
    let last;
    for (const call of this.pendingToolCalls) {
      const m = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: rng.chance(0.04) ? null : rng.chance(0.05) ? text(rng) : [{ type: "text", text: text(rng) }],
        isError: rng.chance(0.1),
        timestamp: this.ts(),
      };
      if (rng.chance(0.15)) m.details = { lines: rng.int(0, 99) };
      if (rng.chance(0.1)) m.usage = usage(rng);
      last = this.sm.appendMessage(m);
    }
    this.pendingToolCalls = [];
    return last;
  }
  bash() {
    const rng = this.rng;
    const variant = rng.weighted([["ok", 30], ["fail", 15], ["cancel", 10], ["trunc", 10], ["trunc-nopath", 5], ["empty", 10], ["exclude", 10], ["nullcode", 10]]);
    const m = {
      role: "bashExecution",
      command: rng.pick(["ls", "npm test", "git status", "cat a.txt", "echo `x`"]),
      output: variant === "empty" ? "" : text(rng),
      exitCode: variant === "fail" ? rng.pick([1, 2, 127, -1]) : variant === "nullcode" ? null : 0,
      cancelled: variant === "cancel",
      truncated: variant === "trunc" || variant === "trunc-nopath",
      timestamp: this.ts(),
    };
    if (variant === "trunc") m.fullOutputPath = `/tmp/pi-bash-${rng.int(0, 999)}.log`;
    if (variant === "exclude") m.excludeFromContext = true;
    if (variant === "nullcode" && rng.chance(0.5)) delete m.exitCode;
    if (variant === "cancel" && rng.chance(0.5)) m.exitCode = 130;
    return this.sm.appendMessage(m);
  }
  customRoleMessage() {
    const rng = this.rng;
    const m = {
      role: "custom",
      customType: rng.pick(["reminder", "ext:todo", "plan"]),
      content: rng.chance(0.5) ? text(rng) : [{ type: "text", text: text(rng) }],
      display: rng.chance(0.7),
      timestamp: this.ts(),
    };
    if (rng.chance(0.5)) m.details = { n: rng.int(0, 9) };
    return this.sm.appendMessage(m);
  }
  // --------------------------------------------------------- other entries
  compaction() {
    const rng = this.rng;
    const path = this.branchEntries();
    let first;
    const mode = rng.weighted([["path", 55], ["none", 15], ["system", 10], ["before-older", 10], ["elsewhere", 5], ["bogus", 5]]);
    if (mode === "path" && path.length) first = rng.pick(path.slice(Math.floor(path.length / 2))).id;
    else if (mode === "system") first = path.find((e) => e.type === "message" && e.message.role === "system")?.id;
    else if (mode === "before-older") {
      const idx = path.findIndex((e) => e.type === "compaction");
      if (idx > 0) first = path[rng.int(0, idx - 1)].id;
      else if (path.length) first = path[0].id;
    } else if (mode === "elsewhere") {
      const onPath = new Set(path.map((e) => e.id));
      const off = this.allEntries().filter((e) => !onPath.has(e.id));
      first = off.length ? rng.pick(off).id : undefined;
    } else if (mode === "bogus") first = "deadbeef";
    return this.sm.appendCompaction(
      `Summary: ${text(rng, 3)}`,
      first,
      rng.int(1000, 200000),
      rng.chance(0.5) ? { readFiles: ["a.ts"], modifiedFiles: [] } : undefined,
      rng.chance(0.2) ? true : undefined,
      rng.chance(0.6) ? usage(rng) : undefined,
    );
  }
  contextEdit() {
    const rng = this.rng;
    const targets = this.branchEntries().filter(
      (e) =>
        e.type === "custom_message" ||
        (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)),
    );
    if (!targets.length) return this.user();
    const target = rng.pick(targets);
    const kind = rng.weighted([["null", 40], ["string", 35], ["array", 25]]);
    const replacement =
      kind === "null"
        ? null
        : kind === "string"
          ? { content: `[edited] ${text(rng)}` }
          : { content: [{ type: "text", text: `[edited] ${text(rng)}` }] };
    return this.sm.appendContextEdit(target.id, replacement);
  }
  branchSummary() {
    const rng = this.rng;
    const all = this.allEntries();
    const from = rng.chance(0.15) || !all.length ? null : rng.pick(all).id;
    const summary = rng.chance(0.15) ? "" : `Branch: ${text(rng, 3)}`;
    return this.sm.branchWithSummary(
      from,
      summary,
      rng.chance(0.5) ? { readFiles: [], modifiedFiles: ["b.ts"] } : undefined,
      rng.chance(0.2) ? true : undefined,
      rng.chance(0.5) ? usage(rng) : undefined,
    );
  }
  customMessageEntry() {
    const rng = this.rng;
    const kind = rng.weighted([["string", 40], ["array", 40], ["null", 20]]);
    const content = kind === "string" ? text(rng) : kind === "array" ? [{ type: "text", text: text(rng) }] : null;
    return this.sm.appendCustomMessageEntry(
      rng.pick(["ext:note", "reminder", "skill"]),
      content,
      rng.chance(0.6),
      rng.chance(0.5) ? { k: rng.pick(WORDS) } : undefined,
    );
  }
  label() {
    const rng = this.rng;
    const all = this.allEntries();
    if (!all.length) return this.user();
    const target = rng.pick(all).id;
    const label = rng.weighted([["set", 70], ["undefined", 15], ["empty", 15]]);
    return this.sm.appendLabelChange(target, label === "set" ? rng.pick(["checkpoint", "good", "bug here", "v2"]) : label === "empty" ? "" : undefined);
  }
  sessionInfo() {
    const rng = this.rng;
    const name = rng.weighted([["plain", 70], ["empty", 15], ["newlines", 10], ["spaces", 5]]);
    return this.sm.appendSessionInfo(
      name === "plain" ? `Session ${text(rng, 2)}` : name === "empty" ? "" : name === "newlines" ? `a\r\nb\nc` : "   ",
    );
  }
  step() {
    const rng = this.rng;
    const action = rng.weighted([
      ["turn", 40],
      ["user", 6],
      ["bash", 6],
      ["system", 4],
      ["model", 3],
      ["thinking", 3],
      ["usage", 3],
      ["compaction", 4],
      ["contextEdit", 5],
      ["branchSummary", 3],
      ["custom", 3],
      ["customMessage", 4],
      ["customRole", 2],
      ["label", 3],
      ["sessionInfo", 2],
      ["branch", 5],
      ["resetLeaf", 0.7],
    ]);
    switch (action) {
      case "turn": {
        this.user();
        this.assistant();
        if (this.pendingToolCalls.length) {
          this.toolResults();
          if (rng.chance(0.7)) this.assistant();
          this.pendingToolCalls = [];
        }
        return;
      }
      case "user":
        return this.user();
      case "bash":
        return this.bash();
      case "system":
        return this.system();
      case "model": {
        const [p, m] = rng.pick(PROVIDERS);
        return this.sm.appendModelChange(p, m);
      }
      case "thinking":
        return this.sm.appendThinkingLevelChange(rng.pick(THINKING));
      case "usage": {
        const [p, m] = rng.pick(PROVIDERS);
        return this.sm.appendUsage(rng.pick(USAGE_KINDS), p, m, usage(rng), rng.chance(0.3) ? text(rng, 2) : undefined);
      }
      case "compaction":
        return this.compaction();
      case "contextEdit":
        return this.contextEdit();
      case "branchSummary":
        return this.branchSummary();
      case "custom":
        return this.sm.appendCustomEntry(rng.pick(["ext:state", "todo-state"]), rng.chance(0.8) ? { n: rng.int(0, 99) } : undefined);
      case "customMessage":
        return this.customMessageEntry();
      case "customRole":
        return this.customRoleMessage();
      case "label":
        return this.label();
      case "sessionInfo":
        return this.sessionInfo();
      case "branch": {
        const all = this.allEntries();
        if (all.length) this.sm.branch(rng.pick(all).id);
        return;
      }
      case "resetLeaf":
        return this.sm.resetLeaf();
    }
  }
  run(target) {
    const rng = this.rng;
    // Session start like real files: optional session_info first, model + thinking, system prompt.
    if (rng.chance(0.1)) this.sessionInfo();
    if (rng.chance(0.8)) {
      const [p, m] = rng.pick(PROVIDERS);
      this.sm.appendModelChange(p, m);
    }
    if (rng.chance(0.7)) this.sm.appendThinkingLevelChange(rng.pick(THINKING));
    if (rng.chance(0.85)) this.system();
    let guard = 0;
    while (this.allEntries().length < target && guard++ < 10 * target) this.step();
  }
  lines() {
    return [this.sm.getHeader(), ...this.sm.getEntries()];
  }
}

const serialize = (objs) => objs.map((o) => JSON.stringify(o) + "\n").join("");

function sessionSize(rng) {
  // 10..120, skewed small (median ~17).
  const r = rng.float();
  return Math.min(120, 10 + Math.floor(110 * r * r * r * r));
}

// ---------------------------------------------------------------- legacy
function makeV1(rng, index) {
  const g = new Gen(rng, 10_000 + index);
  // Linear history (v1 had no tree): messages, model/thinking changes, bash, compaction.
  const target = rng.int(8, 40);
  if (rng.chance(0.5)) g.sm.appendThinkingLevelChange(rng.pick(THINKING));
  if (rng.chance(0.5)) {
    const [p, m] = rng.pick(PROVIDERS);
    g.sm.appendModelChange(p, m);
  }
  while (g.allEntries().length < target) {
    const a = rng.weighted([["turn", 70], ["bash", 10], ["model", 5], ["thinking", 5], ["customRole", 5], ["compaction", 8]]);
    if (a === "turn") {
      g.user();
      g.assistant();
      if (g.pendingToolCalls.length) {
        g.toolResults();
        g.assistant();
        g.pendingToolCalls = [];
      }
    } else if (a === "bash") g.bash();
    else if (a === "model") g.sm.appendModelChange(...rng.pick(PROVIDERS));
    else if (a === "thinking") g.sm.appendThinkingLevelChange(rng.pick(THINKING));
    else if (a === "customRole") g.customRoleMessage();
    else g.compaction();
  }
  const header = { ...g.sm.getHeader() };
  const versionMode = rng.weighted([["one", 60], ["missing", 40]]);
  if (versionMode === "one") header.version = 1;
  else delete header.version;
  const entries = g.sm.getEntries().map((e) => ({ ...e }));
  // parsed-values index (header = 0) for each entry
  const lines = [header];
  for (const e of entries) {
    const out = { ...e };
    delete out.id;
    delete out.parentId;
    if (out.type === "compaction") {
      delete out.firstKeptEntryId;
      delete out.systemMessage; // v1 compactions predate systemMessage
      const pos = entries.indexOf(e) + 1;
      const mode = rng.weighted([["earlier", 70], ["header", 8], ["past-end", 7], ["later", 7], ["self", 8]]);
      out.firstKeptEntryIndex =
        mode === "earlier"
          ? rng.int(1, Math.max(1, pos - 1))
          : mode === "header"
            ? 0
            : mode === "past-end"
              ? entries.length + 5
              : mode === "later"
                ? Math.min(entries.length, pos + 1)
                : pos;
    }
    lines.push(out);
  }
  // Sometimes junk lines (blank / malformed) that are not counted by the index.
  let text = serialize(lines);
  if (rng.chance(0.3)) {
    const parts = text.split("\n");
    parts.splice(rng.int(1, parts.length - 1), 0, "", "{not json");
    text = parts.join("\n");
  }
  return text;
}

function makeV2(rng, index) {
  const g = new Gen(rng, 20_000 + index);
  g.run(rng.int(10, 50));
  for (let i = 0; i < rng.int(1, 3); i++) g.customRoleMessage();
  g.user();
  const header = { ...g.sm.getHeader(), version: 2 };
  const entries = g.sm.getEntries().map((e) => {
    if (e.type === "message" && e.message.role === "custom" && rng.chance(0.8)) {
      return { ...e, message: { ...e.message, role: "hookMessage" } };
    }
    return e;
  });
  return serialize([header, ...entries]);
}

// ---------------------------------------------------------------- main
function main(argv) {
  let count = 300;
  let seed = 20260087;
  let out = join(DATA_CONFORMANCE, "generated");
  let legacy = 20;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--count") count = Number(argv[++i]);
    else if (a === "--seed") seed = Number(argv[++i]);
    else if (a === "--out") out = resolve(argv[++i]);
    else if (a === "--legacy") legacy = Number(argv[++i]);
    else {
      console.error("usage: node conformance/generate.mjs [--count N] [--seed S] [--out DIR] [--legacy N]");
      return 2;
    }
  }
  mkdirSync(out, { recursive: true });
  // Remove earlier generated sessions (and their goldens) so the folder matches this run.
  for (const name of readdirSync(out)) {
    if (/^gen-.*\.(jsonl|golden\.json)$/.test(name)) rmSync(join(out, name));
  }
  const pad = (n) => String(n).padStart(4, "0");
  for (let i = 1; i <= count; i++) {
    const rng = new Rng((seed ^ Math.imul(i, 0x9e3779b1)) >>> 0);
    const g = new Gen(rng, i);
    g.run(sessionSize(rng));
    writeFileSync(join(out, `gen-v3-${pad(i)}.jsonl`), serialize(g.lines()));
  }
  for (let i = 1; i <= legacy; i++) {
    const rng = new Rng((seed ^ Math.imul(i + 100_000, 0x9e3779b1)) >>> 0);
    writeFileSync(join(out, `gen-v1-${pad(i)}.jsonl`), makeV1(rng, i));
  }
  for (let i = 1; i <= legacy; i++) {
    const rng = new Rng((seed ^ Math.imul(i + 200_000, 0x9e3779b1)) >>> 0);
    writeFileSync(join(out, `gen-v2-${pad(i)}.jsonl`), makeV2(rng, i));
  }
  console.error(`wrote ${count} v3 + ${legacy} v1 + ${legacy} v2 sessions to ${out}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
