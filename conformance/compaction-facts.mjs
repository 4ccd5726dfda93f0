#!/usr/bin/env node
// Prints, as JSON, what Pi 0.87.1's own code says about the facts notebook 04 states on
// compaction (tests/test_compaction_lesson.py checks them):
//
//   node conformance/compaction-facts.mjs data/samples/pi-0.87.1-b-rpc-compaction-manual-threshold-overflow.jsonl
//
// - compaction.js: DEFAULT_COMPACTION_SETTINGS, shouldCompact at the 128000 - 16384 edge,
//   estimateProjectedContextTokens and prepareCompaction on the path before each compaction;
// - SessionManager.appendCompaction: when it writes a system checkpoint;
// - AgentSession.prototype._checkCompaction on a stand-in `this`: which case a reply triggers;
//   _compactBeforeNextAssistantResponse: the threshold before a further request of a turn;
// - the next request after a compaction without / with a checkpoint: the system message
//   AgentSession.prototype._preparePromptAndToolLoadout adds, then pi-agent-core's
//   runAgentLoop (which declares the tools) against pi-ai's faux provider.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const pi = await import("./pi.mjs");
const load = (root, p) => import(pathToFileURL(join(root, "dist", ...p.split("/"))).href);
const c = await load(pi.PI_PATHS.agent, "core/compaction/compaction.js");
const { AgentSession } = await load(pi.PI_PATHS.agent, "core/agent-session.js");
const sp = await load(pi.PI_PATHS.agent, "core/system-prompt.js");
const { runAgentLoop } = await load(join(pi.PI_PATHS.nodeModules, "@earendil-works", "pi-agent-core"), "agent-loop.js");
const faux = await load(pi.PI_PATHS.ai, "providers/faux.js");
const { SessionManager, buildSessionProjection } = pi.sessionManager;
const out = { defaults: c.DEFAULT_COMPACTION_SETTINGS };
const s = c.DEFAULT_COMPACTION_SETTINGS;
out.shouldCompact = [111616, 111617].map((t) => c.shouldCompact(t, 128000, s));

// Sample b: each compaction's estimate and cut, from the path before it.
const sm = SessionManager.inMemory("/x", undefined, pi.sessionManager.loadEntriesFromFile(process.argv[2]).filter((e) => e.type !== "session"));
out.compactions = sm.getEntries().filter((e) => e.type === "compaction").map((e) => {
  const branch = sm.getBranch(e.parentId);
  const estimate = c.estimateProjectedContextTokens(buildSessionProjection(branch), branch);
  const cut = (keep) => {
    const p = c.prepareCompaction(branch, { ...s, keepRecentTokens: keep });
    return p ? [p.firstKeptEntryId, p.isSplitTurn] : null;
  };
  const byKeep = {};
  for (let keep = 95; keep <= 105; keep++) byKeep[keep] = cut(keep);
  return { id: e.id, estimate, byKeep, atDefault: cut(s.keepRecentTokens) };
});

// When appendCompaction writes a checkpoint.
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
function session(system) {
  const m = SessionManager.inMemory("/tmp/project");
  if (system) m.appendMessage(system);
  m.appendMessage({ role: "user", content: [{ type: "text", text: "old question" }], timestamp: 1 });
  m.appendMessage(faux.fauxAssistantMessage("old answer", { timestamp: 2 }));
  return m;
}
const checkpoint = (system) => {
  const m = session(system);
  return "systemMessage" in m.getEntry(m.appendCompaction("summary", undefined, 10));
};
out.checkpoint = {
  none: checkpoint(null),
  sections: checkpoint({ role: "system", content: "", sections: { preamble: "Hi" }, timestamp: 0 }),
  noTimestamp: checkpoint({ role: "system", content: "", sections: { preamble: "Hi" } }),
  toolOnly: checkpoint({ role: "system", content: "", toolsAdded: [{ name: "read", description: "r", parameters: {} }] }),
};

// What the next request sends after a compaction, without and with a checkpoint.
const tools = ["read", "bash"].map((name) => ({ name, description: name, parameters: { type: "object", properties: {} }, execute: async () => ({ content: [] }) }));
const options = () => sp.normalizeBuildSystemPromptOptions({ cwd: "/tmp/project", selectedTools: ["read", "bash"] });
async function nextRequest(system) {
  const m = session(system);
  m.appendCompaction("summary", undefined, 10);
  const fake = { _toolRegistry: new Map(tools.map((t) => [t.name, t])), agent: { state: {} } };
  const messages = m.buildSessionProjection().messages;
  const update = AgentSession.prototype._preparePromptAndToolLoadout.call(fake, options(), messages);
  const core = faux.createFauxCore({});
  const sent = [];
  core.setResponses([(context) => { sent.push(context.messages); return faux.fauxAssistantMessage("ok"); }]);
  const prompts = [...(update ? [update] : []), { role: "user", content: [{ type: "text", text: "new" }], timestamp: 3 }];
  const added = await runAgentLoop(prompts, { messages, tools }, { model: core.getModel(), convertToLlm: pi.messages.convertToLlm }, async () => {}, undefined, core.stream);
  const show = (msg) => ({ role: msg.role, sections: msg.sections ? Object.keys(msg.sections) : null, tools: msg.toolsAdded ? msg.toolsAdded.map((t) => t.name) : null });
  return { sent: sent[0].map(show), added: added.map(show) };
}
const full = { role: "system", content: "", sections: sp.buildSystemPromptSections(options()), toolsAdded: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })), timestamp: 0 };
out.sections = Object.keys(full.sections);
out.next = { without: await nextRequest(null), with: await nextRequest(full) };
// Which case _checkCompaction picks for a reply (the calls it makes, on a stand-in `this`).
const window = 128000;
async function check(reply, attempted = false) {
  const calls = [];
  const self = {
    settingsManager: { getCompactionSettings: () => s },
    model: { provider: "fake", id: "fake-coder", contextWindow: window, maxTokens: 16384 },
    sessionManager: SessionManager.inMemory("/tmp/project"),
    agent: { state: { messages: [reply] } },
    _overflowRecoveryAttempted: attempted,
    _findPersistedMessageEntryId: () => undefined,
    _omitRecoveryAttempt: () => calls.push(["omit"]),
    _runAutoCompaction: async (reason, willRetry) => (calls.push([reason, willRetry]), willRetry),
    _emit: () => {},
    _emitSessionCompactFailed: async () => calls.push(["gave up"]),
  };
  await AgentSession.prototype._checkCompaction.call(self, reply, true, []);
  return calls;
}
const overflowError = sm.getEntries().find((e) => e.type === "message" && e.message.stopReason === "error").message;
const reply = (totalTokens, stopReason = "stop") => ({
  ...faux.fauxAssistantMessage("ok"), provider: "fake", model: "fake-coder", stopReason,
  usage: { ...usage, input: totalTokens, output: 0, totalTokens },
});
out.cases = {
  overflowError: await check({ ...overflowError, timestamp: Date.now() }),
  overflowErrorAgain: await check({ ...overflowError, timestamp: Date.now() }, true),
  overWindowStop: await check(reply(window + 1)),
  aboveThreshold: await check(reply(window - s.reserveTokens + 1)),
  atThreshold: await check(reply(window - s.reserveTokens)),
};
// Before a further request of a turn: the projected estimate against the same threshold.
async function beforeNextRequest(tokens) {
  const calls = [];
  const m = SessionManager.inMemory("/tmp/project");
  m.appendMessage({ role: "user", content: [{ type: "text", text: "x".repeat(tokens * 4) }], timestamp: 1 });
  const self = {
    model: { contextWindow: window },
    settingsManager: { getCompactionSettings: () => s },
    sessionManager: m,
    _runAutoCompaction: async (reason, willRetry) => calls.push([reason, willRetry]),
  };
  await AgentSession.prototype._compactBeforeNextAssistantResponse.call(self, { messages: [] });
  return calls;
}
out.beforeNextRequest = {
  above: await beforeNextRequest(window - s.reserveTokens + 1),
  at: await beforeNextRequest(window - s.reserveTokens),
};
process.stdout.write(JSON.stringify(out));
