#!/usr/bin/env node
// Pi's own answers to the questions behind the notebooks' facts (data/facts/facts.json)
// that neither conformance/audit.mjs nor the real-CLI recordings answer, written as
// data/facts/evidence-<V>.json for the version PI_ORACLE_VERSION names (default: primary).
//
//   node conformance/facts.mjs                             # (re)write evidence-0.87.1.json
//   PI_ORACLE_VERSION=1.6.0 node conformance/facts.mjs     # (re)write evidence-1.6.0.json
//   node conformance/facts.mjs --stdout                    # print it (freshness check)
//
// Every answer comes from running Pi's code (SessionManager on a file in a temporary
// folder, migrateSessionEntries, getUsageCostBreakdown, pi-ai's isRecoverableLength,
// compaction.js's settings, shouldCompact, estimateTokens, findCutPoint and
// prepareCompaction on sample b, bashExecutionToText, buildSessionProjection, an unknown
// entry type, two entries with one id, a v1 index that is not a number), and
// names the lines of Pi's code it rests on. Runs on Node 20. Deterministic: no ids,
// times or folders reach the output.
process.env.TZ = "UTC";

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PI_PATHS, PI_VERSION, REPO, sessionManager } from "./pi.mjs";

const { SessionManager, buildSessionContext, buildSessionProjection, migrateSessionEntries } = sessionManager;
const load = (root, rel) => import(pathToFileURL(join(root, "dist", rel)).href);
const usageTotals = await load(PI_PATHS.agent, "core/usage-totals.js");
const overflow = await load(PI_PATHS.ai, "utils/overflow.js");
const compaction = await load(PI_PATHS.agent, "core/compaction/compaction.js");
const messages = await load(PI_PATHS.agent, "core/messages.js");

/** The first line of a Pi file containing `needle`: {file, line, text}. */
function codeLine(root, pkg, rel, needle) {
  const lines = readFileSync(join(root, "dist", rel), "utf8").split("\n");
  const index = lines.findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`Pi ${PI_VERSION} ${pkg}/dist/${rel}: "${needle}" not found`);
  return { file: `${pkg}/dist/${rel}`, line: index + 1, text: lines[index].trim() };
}
const agentLine = (rel, needle) => codeLine(PI_PATHS.agent, "pi-coding-agent", rel, needle);
const aiLine = (rel, needle) => codeLine(PI_PATHS.ai, "pi-ai", rel, needle);
const shown = (value) => (value === undefined ? "undefined" : value);

const HEADER = { type: "session", version: 3, id: "s", timestamp: "2026-01-05T12:00:00.000Z", cwd: "/w" };
const msg = (id, parentId, role, text) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-01-05T12:00:01.000Z",
  message: { role, content: [{ type: "text", text }], timestamp: 1 },
});

const dir = mkdtempSync(join(tmpdir(), "pi-facts-"));
const facts = {};
try {
  // Default leaf: SessionManager.open takes the id of the last entry, whatever it is.
  const defaultLeaf = {};
  const lastEntries = {
    idTruthy: { type: "label", id: "l1", parentId: "a1", timestamp: "t", targetId: "u1", label: "x" },
    idNull: { type: "label", id: null, parentId: "a1", timestamp: "t", targetId: "u1", label: "x" },
    idMissing: { type: "label", parentId: "a1", timestamp: "t", targetId: "u1", label: "x" },
    idEmpty: { type: "label", id: "", parentId: "a1", timestamp: "t", targetId: "u1", label: "x" },
  };
  for (const [name, last] of Object.entries(lastEntries)) {
    const file = join(dir, `${name}.jsonl`);
    const lines = [HEADER, msg("u1", null, "user", "hi"), msg("a1", "u1", "assistant", "yo"), last];
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const sm = SessionManager.open(file, dir);
    defaultLeaf[name] = {
      leaf: shown(sm.getLeafId()),
      contextMessages: sm.buildSessionContext().messages.length,
    };
  }
  facts.defaultLeaf = {
    what: "SessionManager.open(file).getLeafId() and buildSessionContext() when the last entry's id is truthy, null, missing or empty",
    code: [agentLine("core/session-manager.js", "this.leafId = entry.id;")],
    result: defaultLeaf,
  };

  // migrateV2ToV3 renames the hookMessage role of `message` entries only.
  const v2 = [
    { type: "session", version: 2, id: "s", timestamp: "t", cwd: "/w" },
    { type: "message", id: "m1", parentId: null, timestamp: "t", message: { role: "hookMessage", content: "a" } },
    { type: "custom", id: "c1", parentId: "m1", timestamp: "t", message: { role: "hookMessage", content: "b" } },
    { type: "branch_summary", id: "b1", parentId: "c1", timestamp: "t", summary: "s", fromId: "m1", message: { role: "hookMessage" } },
  ];
  migrateSessionEntries(v2);
  facts.hookMessageRename = {
    what: "migrateSessionEntries on a version 2 file: the role of a `message` field per entry type after migration",
    code: [agentLine("core/session-manager.js", 'if (entry.type === "message") {'), agentLine("core/session-manager.js", 'msgEntry.message.role === "hookMessage"')],
    result: Object.fromEntries(v2.slice(1).map((e) => [e.type, e.message.role])),
  };

  // getUsageCostBreakdown: present, and what it counts.
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  const assistant = {
    type: "message",
    id: "a1",
    parentId: null,
    timestamp: "t",
    message: {
      role: "assistant", content: [], provider: "p", model: "m", stopReason: "stop", timestamp: 1,
      usage: { input: 3, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 5, cost: { ...zero, total: 0.5 } },
    },
  };
  const breakdown = usageTotals.getUsageCostBreakdown([assistant]);
  facts.usageCostBreakdown = {
    what: "core/usage-totals.js exports getUsageCostBreakdown; its answer for one assistant message (provider p, model m)",
    code: [agentLine("core/usage-totals.js", "export function getUsageCostBreakdown("), agentLine("modes/interactive/interactive-mode.js", "getUsageCostBreakdown(entries)")],
    result: { exported: typeof usageTotals.getUsageCostBreakdown, keys: Object.keys(breakdown).sort() },
  };

  // pi-ai's isRecoverableLength: a reply cut by the output limit below the model's maxTokens.
  const reply = (stopReason, output) => ({ stopReason, usage: { output } });
  facts.recoverableLength = {
    what: "pi-ai isRecoverableLength(reply, maxTokens = 100) for replies that stopped on length with 50 and 100 output tokens, and on stop",
    code: [aiLine("utils/overflow.js", "export function isRecoverableLength("), agentLine("core/agent-session.js", "isRecoverableLength(assistantMessage")],
    result: {
      lengthBelowLimit: overflow.isRecoverableLength(reply("length", 50), 100),
      lengthAtLimit: overflow.isRecoverableLength(reply("length", 100), 100),
      stop: overflow.isRecoverableLength(reply("stop", 50), 100),
      noLimit: overflow.isRecoverableLength(reply("length", 50), 0),
    },
  };

  // Pi 1.6.0 records the live thinking level (and a virtual model) on the branch when a run
  // starts and the branch's recorded one differs; 0.87.1 has no such step.
  const session = readFileSync(join(PI_PATHS.agent, "dist", "core", "agent-session.js"), "utf8").split("\n");
  const where = (needle) => {
    const index = session.findIndex((l) => l.includes(needle));
    return index < 0 ? [] : [{ file: "pi-coding-agent/dist/core/agent-session.js", line: index + 1, text: session[index].trim() }];
  };
  const found = {
    runStart: where("this._recordSelection();"),
    thinkingLevel: where("this.sessionManager.appendThinkingLevelChange(this.thinkingLevel);"),
    virtualModel: where("if (!isVirtualModel(model) && !(recordedModel && isVirtualModel(recordedModel)))"),
  };
  facts.recordSelectionAtRunStart = {
    what: "agent-session.js: does a run's start append the live thinking level / a virtual model when the branch's recorded one differs (_recordSelection)?",
    code: [...found.runStart, ...found.thinkingLevel, ...found.virtualModel],
    result: Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v.length > 0])),
  };

  // Compaction: the default settings, the threshold test at its edge, and the estimate of a
  // message without usage (chars / 4, rounded up).
  const settings = compaction.DEFAULT_COMPACTION_SETTINGS;
  facts.compactionThreshold = {
    what: "compaction.js: DEFAULT_COMPACTION_SETTINGS; shouldCompact(t, 128000, defaults) for t = 128000 - reserveTokens and one more; estimateTokens of a user message of 9 characters",
    code: [
      agentLine("core/compaction/compaction.js", "export const DEFAULT_COMPACTION_SETTINGS = {"),
      agentLine("core/compaction/compaction.js", "export function shouldCompact(contextTokens, contextWindow, settings) {"),
      agentLine("core/compaction/compaction.js", "return Math.ceil(chars / 4);"),
    ],
    result: {
      defaults: settings,
      shouldCompactAtEdge: [128000 - settings.reserveTokens, 128000 - settings.reserveTokens + 1].map((t) =>
        compaction.shouldCompact(t, 128000, settings),
      ),
      estimateOf9Chars: compaction.estimateTokens({ role: "user", content: [{ type: "text", text: "123456789" }], timestamp: 1 }),
    },
  };

  // Where Pi cuts: findCutPoint over user, assistant (a tool call), a long tool result,
  // assistant, keeping 10 tokens: the budget is reached at the tool result, and the cut
  // moves to the next cut point, never the tool result itself.
  const at = (id, parentId, message) => ({ type: "message", id, parentId, timestamp: "2026-01-05T12:00:01.000Z", message });
  const cutEntries = [
    at("u1", null, { role: "user", content: [{ type: "text", text: "run it" }], timestamp: 1 }),
    at("a1", "u1", { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: {} }], timestamp: 2 }),
    at("t1", "a1", { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: "x".repeat(400) }], isError: false, timestamp: 3 }),
    at("a2", "t1", { role: "assistant", content: [{ type: "text", text: "done" }], timestamp: 4 }),
  ];
  const cut = compaction.findCutPoint(cutEntries, 0, cutEntries.length, 10);
  facts.cutPoint = {
    what: "compaction.js findCutPoint(entries, 0, 4, 10) on user, assistant (tool call), a 400-character tool result, assistant: the role of the first kept entry",
    code: [agentLine("core/compaction/compaction.js", "export function findCutPoint(entries, startIndex, endIndex, keepRecentTokens) {")],
    result: { roles: cutEntries.map((e) => e.message.role), firstKeptRole: cutEntries[cut.firstKeptEntryIndex].message.role, isSplitTurn: cut.isSplitTurn },
  };

  // The text a bashExecution message becomes: a cancelled one, a failed one, a truncated one.
  const bash = (extra) => ({ role: "bashExecution", command: "make", output: "", exitCode: 0, cancelled: false, truncated: false, timestamp: 1, ...extra });
  facts.bashExecutionText = {
    what: "core/messages.js bashExecutionToText on a cancelled command (exit code 1 too), a failed one, and a truncated one with a full-output path",
    code: [agentLine("core/messages.js", "export function bashExecutionToText(msg) {")],
    result: {
      cancelled: messages.bashExecutionToText(bash({ cancelled: true, exitCode: 1 })),
      failed: messages.bashExecutionToText(bash({ output: "1 failed", exitCode: 2 })),
      truncated: messages.bashExecutionToText(bash({ output: "a", truncated: true, fullOutputPath: "/tmp/out.log" })),
      truncatedNoPath: messages.bashExecutionToText(bash({ output: "a", truncated: true })),
    },
  };

  // Version 1 -> 2: what a compaction's firstKeptEntryIndex becomes, read at the moment the
  // migration reaches the compaction (index 0 is the header).
  const v1Index = {};
  for (const [name, index] of Object.entries({ earlier: 1, itself: 3, laterWithId: 4, laterWithoutId: 5, header: 0, pastEnd: 9, fraction: 1.5, negative: -1 })) {
    const entries = [
      { type: "session", id: "s", timestamp: "2026-01-05T12:00:00.000Z", cwd: "/w" },
      { type: "message", timestamp: "t", message: { role: "user", content: "a", timestamp: 1 } },
      { type: "message", timestamp: "t", message: { role: "assistant", content: [], timestamp: 2 } },
      { type: "compaction", timestamp: "t", summary: "s", firstKeptEntryIndex: index, tokensBefore: 1 },
      { type: "message", id: "old-id", timestamp: "t", message: { role: "user", content: "b", timestamp: 3 } },
      { type: "message", timestamp: "t", message: { role: "user", content: "c", timestamp: 4 } },
    ];
    migrateSessionEntries(entries);
    const kept = entries[3].firstKeptEntryId;
    const named = entries.findIndex((e, i) => i > 0 && e.id === kept);
    v1Index[name] = kept === undefined ? "none" : kept === "old-id" ? "the old id" : named === 3 ? "its own new id" : named >= 0 ? `the new id of entry ${named}` : "an unknown id";
  }
  facts.v1CompactionIndex = {
    what: "migrateSessionEntries on a version 1 file: what a compaction's firstKeptEntryIndex (earlier entry, itself, a later entry with and without an id, the header, past the end, 1.5, -1) becomes",
    code: [agentLine("core/session-manager.js", "const targetEntry = entries[comp.firstKeptEntryIndex];")],
    result: v1Index,
  };

  // A v1 compaction's firstKeptEntryIndex that is not a number: left in place, no id added.
  const v1NotNumber = {};
  for (const [name, index] of Object.entries({ string: "1", boolean: true })) {
    const entries = [
      { type: "session", id: "s", timestamp: "2026-01-05T12:00:00.000Z", cwd: "/w" },
      { type: "message", timestamp: "t", message: { role: "user", content: "a", timestamp: 1 } },
      { type: "compaction", timestamp: "t", summary: "s", firstKeptEntryIndex: index, tokensBefore: 1 },
    ];
    migrateSessionEntries(entries);
    v1NotNumber[name] = { firstKeptEntryIndex: entries[2].firstKeptEntryIndex, hasFirstKeptEntryId: "firstKeptEntryId" in entries[2] };
  }
  facts.v1CompactionIndexNotNumber = {
    what: 'migrateSessionEntries on a version 1 file whose compaction has firstKeptEntryIndex "1" or true: what stays',
    code: [agentLine("core/session-manager.js", 'if (typeof comp.firstKeptEntryIndex === "number") {')],
    result: v1NotNumber,
  };

  // An entry of a type Pi does not know, between a user message and its reply; and two
  // entries with the same id (the second a different message).
  const opened = (name, lines) => {
    const file = join(dir, `${name}.jsonl`);
    writeFileSync(file, `${[HEADER, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`);
    return SessionManager.open(file, dir);
  };
  const unknown = opened("unknown", [
    msg("u1", null, "user", "hi"),
    { type: "mystery", id: "x1", parentId: "u1", timestamp: "2026-01-05T12:00:01.000Z", note: "?" },
    msg("a1", "x1", "assistant", "yo"),
  ]);
  const projection = buildSessionProjection(unknown.getEntries(), unknown.getLeafId(), undefined);
  facts.unknownEntryType = {
    what: "SessionManager.open on user u1, an entry of type mystery (x1, parent u1), assistant a1 (parent x1): the entries kept, the context's roles, each projected entry's id and number of messages",
    code: [agentLine("core/session-manager.js", "export function buildSessionProjection(entries, leafId, byId) {")],
    result: {
      entryTypes: unknown.getEntries().map((e) => e.type),
      contextRoles: unknown.buildSessionContext().messages.map((m) => m.role),
      projected: projection.entries.map((p) => [p.sourceEntry.id, p.messages.length]),
    },
  };
  const twice = opened("twice", [msg("u1", null, "user", "first"), msg("u1", null, "user", "second")]);
  facts.duplicateId = {
    what: "SessionManager.open on two user messages with the same id u1 (first, then second): getEntry(u1), the entries kept, the context",
    code: [agentLine("core/session-manager.js", "this.byId.set(entry.id, entry);")],
    result: {
      getEntryText: twice.getEntry("u1").message.content[0].text,
      entries: twice.getEntries().length,
      contextTexts: twice.buildSessionContext().messages.map((m) => m.content[0].text),
    },
  };
  facts.sessionProjection = {
    what: "session-manager.js exports buildSessionProjection (entries, leaf id, index)",
    code: [agentLine("core/session-manager.js", "export function buildSessionProjection(entries, leafId, byId) {")],
    result: { exported: typeof buildSessionProjection },
  };

  // Sample b (recorded by Pi 0.87.1's CLI): prepareCompaction on the path before each
  // compaction, at the default keepRecentTokens and at every value from 95 to 105.
  const sampleB = join(REPO, "data", "samples", "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow.jsonl");
  const b = SessionManager.inMemory("/x", undefined, sessionManager.loadEntriesFromFile(sampleB).filter((e) => e.type !== "session"));
  const defaults = compaction.DEFAULT_COMPACTION_SETTINGS;
  const stored = b.getEntries().filter((e) => e.type === "compaction");
  const cutsAt = (keep) =>
    stored.map((e) => {
      const p = compaction.prepareCompaction(b.getBranch(e.parentId), { ...defaults, keepRecentTokens: keep });
      return p ? [p.firstKeptEntryId, p.isSplitTurn] : null;
    });
  const keeps = Array.from({ length: 11 }, (_, i) => 95 + i);
  facts.sampleBCuts = {
    what: "compaction.js prepareCompaction on sample b's path before each of its compactions: does it compact at the default keepRecentTokens, and does every value from 95 to 105 give the cut stored (firstKeptEntryId) with a split turn? tokensBefore prepared (its estimate, keepRecentTokens 100) against the one stored",
    code: [
      agentLine("core/compaction/compaction.js", "export function prepareCompaction("),
      agentLine("core/compaction/compaction.js", "const tokensBefore = estimateProjectedContextTokens(projection, pathEntries).tokens;"),
    ],
    result: {
      stored: stored.map((e) => e.firstKeptEntryId),
      atDefault: cutsAt(defaults.keepRecentTokens),
      preparedTokensBefore: stored.map((e) => compaction.prepareCompaction(b.getBranch(e.parentId), { ...defaults, keepRecentTokens: 100 })?.tokensBefore),
      storedTokensBefore: stored.map((e) => e.tokensBefore),
      everyKeepGivesStoredSplitCut: keeps.every((k) =>
        JSON.stringify(cutsAt(k)) === JSON.stringify(stored.map((e) => [e.firstKeptEntryId, true])),
      ),
    },
  };
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const evidence = { pi: PI_VERSION, generator: "conformance/facts.mjs", facts };
const text = `${JSON.stringify(evidence, null, 2)}\n`;
if (process.argv.includes("--stdout")) process.stdout.write(text);
else {
  const out = join(REPO, "data", "facts", `evidence-${PI_VERSION}.json`);
  writeFileSync(out, text);
  console.log(`wrote ${out}`);
}
