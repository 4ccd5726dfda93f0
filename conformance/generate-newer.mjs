#!/usr/bin/env node
// Generates a session corpus with the NEWEST checked Pi's own SessionManager writing real
// files (SessionManager.create with a session folder on disk, createBranchedSession,
// forkFrom), and copies the files Pi wrote. It covers what newer Pi (0.99 and later) writes
// and 0.87.1 never did:
//   - a file holding setup entries and a user message with no reply yet (newer Pi creates
//     the file at the first user message; 0.87.1 waited for the first assistant message);
//   - assistant thinkingLevel, providerThinkingLevel, durationMs, endTurn, responseModel,
//     diagnostics, stopReason "length"/"deferred" with a deferred handle;
//   - tool calls with argumentsError (arguments {}) and namespace;
//   - tool results with nestedCalls and durationMs;
//   - usage with the cost breakdown, cost.totalFromProvider and cacheWrite1h;
//   - the pi.virtual-model-state custom entry, model changes to a virtual model and
//     failed-routing assistant messages with api "pi-virtual";
// plus every entry type and several leaves (branches, branch summaries, resetLeaf).
//
//   node conformance/generate-newer.mjs [--count N] [--seed S] [--out DIR]
//
// Pi version: $PI_ORACLE_VERSION, else the newest in pisession/pi_versions.json ("checked").
// Defaults: 60 sessions + 6 pending + 4 branched + 3 forked, seed 20261120,
// out data/conformance/generated-<major.minor>. Every choice comes from the seeded PRNG;
// Pi's ids and entry timestamps are its own (the files are committed once, then re-recorded).
process.env.TZ = "UTC";

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CHECKED } from "./locate.mjs";

const release = (v) => v.split(".").map(Number);
const newer = (a, b) => {
  const [x, y] = [release(a), release(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
};
process.env.PI_ORACLE_VERSION ||= CHECKED.reduce((a, b) => (newer(b, a) ? b : a));
const { DATA_CONFORMANCE, PI_VERSION, sessionManager } = await import("./pi.mjs");
const { SessionManager } = sessionManager;
if (!newer(PI_VERSION, "0.99.0")) {
  throw new Error(`generate-newer.mjs needs Pi 0.99 or later (it records how newer Pi writes files), not ${PI_VERSION}`);
}

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
const UNICODE = ["héllo", "日本語", "emoji 🎉", "tab\there", "line\nbreak", "quote \"x\"", "back\\slash", "\u2028sep", "lone \ud800 surrogate"];
const PROVIDERS = [
  ["anthropic", "claude-sonnet-4-5", "anthropic-messages"],
  ["openai", "gpt-5.1-codex", "openai-responses"],
  ["google", "gemini-2.5-pro", "google-generative-ai"],
  ["openrouter", "qwen/qwen3-coder", "openai-completions"],
];
const VIRTUAL = ["router", "auto"];
const VIRTUAL_STATE_ENTRY = "pi.virtual-model-state";
const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
const TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls", "codemode"];
const SECTIONS = ["base", "agents_md", "skills", "date", "cwd"];
const USAGE_KINDS = ["compaction", "branch_summary", "title", "retry", "web_search", "extension:foo"];

function text(rng, n = rng.int(1, 4)) {
  const words = [];
  for (let i = 0; i < n; i++) words.push(rng.chance(0.04) ? rng.pick(UNICODE) : rng.pick(WORDS));
  return words.join(" ");
}
/** Usage as newer Pi writes it: the cost breakdown, sometimes the provider's billed total. */
function usage(rng) {
  const input = rng.int(0, 5000);
  const output = rng.int(0, 800);
  const cacheRead = rng.chance(0.5) ? rng.int(0, 20000) : 0;
  const cacheWrite = rng.chance(0.3) ? rng.int(0, 3000) : 0;
  const cost = {
    input: Math.round(rng.float() * 1e6) / 1e9,
    output: Math.round(rng.float() * 1e6) / 1e9,
    cacheRead: Math.round(rng.float() * 1e5) / 1e9,
    cacheWrite: Math.round(rng.float() * 1e5) / 1e9,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  const billed = rng.weighted([["absent", 50], ["true", 35], ["false", 15]]);
  if (billed !== "absent") cost.totalFromProvider = billed === "true";
  if (billed === "true" && rng.chance(0.5)) cost.total = Math.round(rng.float() * 1e6) / 1e8;
  const u = { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
  if (cacheWrite && rng.chance(0.4)) u.cacheWrite1h = rng.int(0, cacheWrite);
  if (rng.chance(0.3)) u.reasoning = rng.int(0, output);
  return u;
}

class Gen {
  constructor(rng, index, sessionDir) {
    this.rng = rng;
    this.index = index;
    this.clock = Date.UTC(2026, 10, 1) + index * 86_400_000;
    this.sm = SessionManager.create(`/home/dev/project-${index % 13}`, sessionDir);
    this.toolCounter = 0;
    this.tools = new Set();
    this.pendingToolCalls = [];
    this.virtual = false;
  }
  ts() {
    this.clock += this.rng.int(1, 90_000);
    return this.clock;
  }
  // --------------------------------------------------------- messages
  system() {
    const rng = this.rng;
    const m = { role: "system", content: rng.chance(0.3) ? text(rng) : "" };
    const sections = {};
    for (const name of SECTIONS) {
      if (rng.chance(0.35)) sections[name] = rng.chance(0.15) ? null : `${name}: ${text(rng)}`;
    }
    if (Object.keys(sections).length) m.sections = sections;
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
      }));
      for (const t of added) this.tools.add(t);
    }
    m.timestamp = this.ts();
    return this.sm.appendMessage(m);
  }
  user() {
    const rng = this.rng;
    const kind = rng.weighted([["array", 60], ["string", 30], ["image", 10]]);
    const m = { role: "user" };
    if (kind === "string") m.content = text(rng);
    else if (kind === "array") m.content = [{ type: "text", text: text(rng) }];
    else
      m.content = [
        { type: "text", text: "see" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ];
    m.timestamp = this.ts();
    return this.sm.appendMessage(m);
  }
  assistant() {
    const rng = this.rng;
    const [provider, model, api] = rng.pick(PROVIDERS);
    const content = [];
    if (rng.chance(0.4)) {
      const th = { type: "thinking", thinking: text(rng) };
      if (rng.chance(0.5)) th.thinkingSignature = `sig${rng.int(0, 999)}`;
      if (rng.chance(0.1)) th.redacted = true;
      content.push(th);
    }
    if (rng.chance(0.85)) content.push({ type: "text", text: text(rng) });
    const calls = rng.weighted([[0, 55], [1, 30], [2, 15]]);
    this.pendingToolCalls = [];
    for (let i = 0; i < calls; i++) {
      const id = `call_${this.index}_${++this.toolCounter}`;
      const name = rng.pick(TOOLS);
      const call = { type: "toolCall", id, name, arguments: { p: rng.pick(WORDS) } };
      if (rng.chance(0.15)) {
        call.arguments = {};
        call.argumentsError = `Tool arguments are not a JSON object: {"p": "${rng.pick(WORDS)}"`;
      }
      if (provider === "openai" && rng.chance(0.4)) call.namespace = rng.pick(["mcp__github", "tools", "dynamic"]);
      if (rng.chance(0.1)) call.thoughtSignature = `ts${rng.int(0, 99)}`;
      content.push(call);
      this.pendingToolCalls.push({ id, name });
    }
    const failedRoute = this.virtual && rng.chance(0.2);
    const stopReason = calls
      ? "toolUse"
      : failedRoute
        ? "error"
        : rng.weighted([["stop", 80], ["length", 6], ["error", 5], ["aborted", 5], ["deferred", 4]]);
    const m = {
      role: "assistant",
      content: failedRoute ? [] : content,
      api: failedRoute ? "pi-virtual" : api,
      provider: failedRoute ? VIRTUAL[0] : provider,
      model: failedRoute ? VIRTUAL[1] : model,
      usage: usage(rng),
      stopReason,
      timestamp: this.ts(),
    };
    if (!failedRoute) {
      if (rng.chance(0.3)) m.responseModel = `${model}-2026-10-01`;
      if (rng.chance(0.4)) m.responseId = `resp_${rng.int(0, 1e6)}`;
      if (rng.chance(0.8)) m.thinkingLevel = rng.pick(THINKING);
      if (m.thinkingLevel && rng.chance(0.5)) m.providerThinkingLevel = rng.pick(["low", "medium", "high", "adaptive"]);
      if (rng.chance(0.85)) m.durationMs = rng.int(120, 90_000);
      if (rng.chance(0.5)) m.endTurn = stopReason === "stop" ? rng.chance(0.8) : false;
      if (rng.chance(0.2)) m.rawStopReason = rng.pick(["end_turn", "tool_use", "max_tokens"]);
    }
    if (stopReason === "error") {
      m.errorMessage = failedRoute ? "Router failed: no route for this request" : "overloaded";
      if (rng.chance(0.5))
        m.diagnostics = [{ type: "provider_error", timestamp: m.timestamp, error: { name: "Error", message: "overloaded", code: 529 } }];
    }
    if (stopReason === "deferred")
      m.deferred = { provider, modelId: model, api, id: `batch_${rng.int(0, 1e6)}`, pollAfterMs: 5000, data: { row: rng.int(0, 9) } };
    return this.sm.appendMessage(m);
  }
  toolResults() {
    const rng = this.rng;
    let last;
    for (const call of this.pendingToolCalls) {
      const m = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: text(rng) }],
        isError: rng.chance(0.1),
        timestamp: this.ts(),
      };
      if (rng.chance(0.8)) m.durationMs = rng.int(1, 20_000);
      if (call.name === "codemode" || rng.chance(0.1)) {
        const calls = [];
        for (let i = 0; i < rng.int(0, 3); i++) {
          const nested = { id: `nested_${this.toolCounter}_${i}`, name: rng.pick(["read", "grep", "bash"]), status: rng.pick(["ok", "ok", "error", "unfinished"]) };
          if (rng.chance(0.8)) nested.arguments = { path: `src/${rng.pick(WORDS)}.ts` };
          else nested.argumentsBytes = rng.int(10_000, 90_000);
          if (nested.status !== "unfinished") nested.durationMs = rng.int(1, 3000);
          if (nested.status === "error") nested.error = "ENOENT: no such file";
          calls.push(nested);
        }
        m.nestedCalls = { calls, complete: !calls.some((c) => c.status === "unfinished" || c.argumentsBytes !== undefined) };
      }
      if (rng.chance(0.15)) m.details = { lines: rng.int(0, 99) };
      if (rng.chance(0.1)) m.usage = usage(rng);
      last = this.sm.appendMessage(m);
    }
    this.pendingToolCalls = [];
    return last;
  }
  bash() {
    const rng = this.rng;
    const m = {
      role: "bashExecution",
      command: rng.pick(["ls", "npm test", "git status"]),
      output: rng.chance(0.1) ? "" : text(rng),
      exitCode: rng.pick([0, 0, 1, 127, null]),
      cancelled: rng.chance(0.1),
      truncated: false,
      timestamp: this.ts(),
    };
    if (rng.chance(0.1)) {
      m.truncated = true;
      m.fullOutputPath = `/tmp/pi-bash-${rng.int(0, 999)}.log`;
    }
    if (rng.chance(0.1)) m.excludeFromContext = true;
    return this.sm.appendMessage(m);
  }
  customRoleMessage() {
    const rng = this.rng;
    return this.sm.appendMessage({
      role: "custom",
      customType: rng.pick(["reminder", "ext:todo", "plan"]),
      content: rng.chance(0.5) ? text(rng) : [{ type: "text", text: text(rng) }],
      display: rng.chance(0.7),
      timestamp: this.ts(),
    });
  }
  // --------------------------------------------------------- other entries
  virtualState() {
    const rng = this.rng;
    return this.sm.appendCustomEntry(VIRTUAL_STATE_ENTRY, {
      provider: VIRTUAL[0],
      modelId: VIRTUAL[1],
      state: { turn: rng.int(0, 50), last: rng.pick(PROVIDERS)[1], history: [rng.pick(WORDS)] },
    });
  }
  selectModel() {
    const rng = this.rng;
    this.virtual = rng.chance(0.3);
    if (this.virtual) return this.sm.appendModelChange(VIRTUAL[0], VIRTUAL[1]);
    const [p, m] = rng.pick(PROVIDERS);
    return this.sm.appendModelChange(p, m);
  }
  compaction() {
    const rng = this.rng;
    const path = this.sm.getBranch();
    let first;
    const mode = rng.weighted([["path", 65], ["none", 15], ["system", 10], ["bogus", 10]]);
    if (mode === "path" && path.length) first = rng.pick(path.slice(Math.floor(path.length / 2))).id;
    else if (mode === "system") first = path.find((e) => e.type === "message" && e.message.role === "system")?.id;
    else if (mode === "bogus") first = "deadbeef";
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
    const targets = this.sm
      .getBranch()
      .filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)));
    if (!targets.length) return this.user();
    const kind = rng.weighted([["null", 40], ["string", 35], ["array", 25]]);
    const replacement =
      kind === "null" ? null : kind === "string" ? { content: `[edited] ${text(rng)}` } : { content: [{ type: "text", text: `[edited] ${text(rng)}` }] };
    return this.sm.appendContextEdit(rng.pick(targets).id, replacement);
  }
  branchSummary() {
    const rng = this.rng;
    const all = this.sm.getEntries();
    const from = rng.chance(0.15) || !all.length ? null : rng.pick(all).id;
    return this.sm.branchWithSummary(
      from,
      rng.chance(0.15) ? "" : `Branch: ${text(rng, 3)}`,
      rng.chance(0.5) ? { readFiles: [], modifiedFiles: ["b.ts"] } : undefined,
      rng.chance(0.2) ? true : undefined,
      rng.chance(0.5) ? usage(rng) : undefined,
    );
  }
  customMessageEntry() {
    const rng = this.rng;
    const kind = rng.weighted([["string", 40], ["array", 40], ["null", 20]]);
    const content = kind === "string" ? text(rng) : kind === "array" ? [{ type: "text", text: text(rng) }] : null;
    return this.sm.appendCustomMessageEntry(rng.pick(["ext:note", "reminder", "skill"]), content, rng.chance(0.6), rng.chance(0.5) ? { k: rng.pick(WORDS) } : undefined);
  }
  label() {
    const rng = this.rng;
    const all = this.sm.getEntries();
    if (!all.length) return this.user();
    const label = rng.weighted([["set", 75], ["clear", 25]]);
    return this.sm.appendLabelChange(rng.pick(all).id, label === "set" ? rng.pick(["checkpoint", "good", "bug here"]) : undefined);
  }
  sessionInfo() {
    return this.sm.appendSessionInfo(this.rng.chance(0.85) ? `Session ${text(this.rng, 2)}` : "");
  }
  turn() {
    const rng = this.rng;
    this.user();
    if (this.virtual && rng.chance(0.5)) this.virtualState();
    this.assistant();
    if (this.pendingToolCalls.length) {
      this.toolResults();
      if (rng.chance(0.8)) this.assistant();
      this.pendingToolCalls = [];
    }
  }
  step() {
    const rng = this.rng;
    const action = rng.weighted([
      ["turn", 40],
      ["user", 4],
      ["bash", 5],
      ["system", 4],
      ["model", 4],
      ["thinking", 3],
      ["usage", 3],
      ["compaction", 4],
      ["contextEdit", 5],
      ["branchSummary", 3],
      ["custom", 2],
      ["virtualState", 3],
      ["customMessage", 4],
      ["customRole", 2],
      ["label", 3],
      ["sessionInfo", 2],
      ["branch", 5],
      ["resetLeaf", 0.7],
    ]);
    switch (action) {
      case "turn":
        return this.turn();
      case "user":
        return this.user();
      case "bash":
        return this.bash();
      case "system":
        return this.system();
      case "model":
        return this.selectModel();
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
        return this.sm.appendCustomEntry(rng.pick(["ext:state", "todo-state"]), { n: rng.int(0, 99) });
      case "virtualState":
        return this.virtualState();
      case "customMessage":
        return this.customMessageEntry();
      case "customRole":
        return this.customRoleMessage();
      case "label":
        return this.label();
      case "sessionInfo":
        return this.sessionInfo();
      case "branch": {
        const all = this.sm.getEntries();
        if (all.length) this.sm.branch(rng.pick(all).id);
        return;
      }
      case "resetLeaf":
        return this.sm.resetLeaf();
    }
  }
  /** Setup entries as Pi writes them before the first prompt: model, thinking level, system prompt. */
  setup() {
    const rng = this.rng;
    if (rng.chance(0.85)) this.selectModel();
    if (rng.chance(0.7)) this.sm.appendThinkingLevelChange(rng.pick(THINKING));
    if (rng.chance(0.85)) this.system();
  }
  run(target) {
    this.setup();
    this.turn();
    let guard = 0;
    while (this.sm.getEntryCount() < target && guard++ < 10 * target) this.step();
  }
}

function sessionSize(rng) {
  const r = rng.float();
  return Math.min(90, 10 + Math.floor(80 * r * r * r));
}

// ---------------------------------------------------------------- main
function main(argv) {
  let count = 60;
  let seed = 20261120;
  let out = join(DATA_CONFORMANCE, `generated-${PI_VERSION.split(".").slice(0, 2).join(".")}`);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--count") count = Number(argv[++i]);
    else if (a === "--seed") seed = Number(argv[++i]);
    else if (a === "--out") out = resolve(argv[++i]);
    else {
      console.error("usage: node conformance/generate-newer.mjs [--count N] [--seed S] [--out DIR]");
      return 2;
    }
  }
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(out)) {
    if (/\.(jsonl|golden\.json)$/.test(name)) rmSync(join(out, name));
  }
  const root = mkdtempSync(join(tmpdir(), "pi-generate-newer-"));
  const pad = (n) => String(n).padStart(4, "0");
  const rngFor = (i, salt) => new Rng((seed ^ Math.imul(i + salt, 0x9e3779b1)) >>> 0);
  let written = 0;
  /** Copy the file Pi wrote (it must exist: Pi writes once the session has a conversation). */
  const keep = (file, name) => {
    if (!file || !existsSync(file)) throw new Error(`Pi wrote no file for ${name}`);
    copyFileSync(file, join(out, `${name}.jsonl`));
    written++;
  };
  const folder = (name) => join(root, "sessions", name);
  try {
    for (let i = 1; i <= count; i++) {
      const rng = rngFor(i, 0);
      const g = new Gen(rng, i, folder(`gen-${i}`));
      g.run(sessionSize(rng));
      keep(g.sm.getSessionFile(), `gen-${pad(i)}`);
    }
    // A prompt with no reply yet: newer Pi has already written setup entries and the prompt.
    for (let i = 1; i <= 6; i++) {
      const rng = rngFor(i, 100_000);
      const g = new Gen(rng, 500 + i, folder(`pending-${i}`));
      g.setup();
      if (g.sm.getSessionFile() && existsSync(g.sm.getSessionFile())) throw new Error("Pi wrote a file before any conversation");
      if (i % 3 === 0) g.bash();
      g.user();
      if (i % 2 === 0) g.sessionInfo();
      keep(g.sm.getSessionFile(), `pending-reply-${pad(i)}`);
    }
    // createBranchedSession: a new file holding the path to a leaf (labels re-created), then more turns.
    for (let i = 1; i <= 4; i++) {
      const rng = rngFor(i, 200_000);
      const g = new Gen(rng, 600 + i, folder(`branched-${i}`));
      g.run(sessionSize(rng));
      const entries = g.sm.getEntries();
      for (let k = 0; k < 3; k++) g.label();
      const leaf = rng.pick(entries.filter((e) => e.type === "message")).id;
      g.sm.createBranchedSession(leaf);
      for (let k = 0; k < rng.int(1, 4); k++) g.turn();
      keep(g.sm.getSessionFile(), `branched-${pad(i)}`);
    }
    // forkFrom: header and every entry written through one file descriptor, parentSession set.
    for (let i = 1; i <= 3; i++) {
      const rng = rngFor(i, 300_000);
      const g = new Gen(rng, 700 + i, folder(`fork-source-${i}`));
      g.run(sessionSize(rng));
      const fork = SessionManager.forkFrom(g.sm.getSessionFile(), `/home/dev/fork-${i}`, folder(`fork-${i}`));
      if (i !== 2) {
        const f = new Gen(rng, 800 + i, folder(`fork-unused-${i}`));
        f.sm = fork;
        f.turn();
      }
      keep(fork.getSessionFile(), `forked-${pad(i)}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.error(`wrote ${written} sessions written by Pi ${PI_VERSION} to ${out}`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
