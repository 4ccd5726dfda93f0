#!/usr/bin/env node
// The fuzzer's oracle: one long-lived Node process that answers "what does Pi 0.87.1
// make of this file?" for file after file, with the conformance recorder's own
// per-file logic (conformance/record.mjs: Pi's loader, migration, context, projection,
// convertToLlm and system prompt at the default leaf and several others, cycles found
// before Pi is called, since Pi would loop forever on them).
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on stdout.
//   {"id": N, "path": "/tmp/x.jsonl"}
//   -> {"id": N, "golden": {...record.mjs golden...},
//       "text": {"context": JSON.stringify(context, null, 2), "llm": ...}}   (default leaf)
//   -> {"id": N, "error": "..."} when recording itself threw (reported, not compared)
// A legacy (v1/v2) file also gets "migrated": Pi's own rewrite of a copy of it
// (SessionManager.open writes the migrated file back), {"bytes": base64} or {"error": line}.
// "manager" holds what users meet: SessionManager.open on a copy (getLeafId, then the
// context there: {leaf, messages, sha256} or {error}) and SessionManager.listAll(dir) of
// a folder holding a copy alone ({listed: row or null}, conformance/record-manager.mjs).
// "text" holds Pi's own indented JSON text of the default leaf's context and llm
// messages (what `pisession context` promises to print); a field is absent when the
// default case has none, and "textError" says why when JSON.stringify threw.
// "sent" holds what pi-ai's transformMessages (conformance/sent.mjs) sends for each case's
// llm messages, for each checked Pi version installed and each of a few target models:
//   {"<version>": [{"case": N, "results": {"<target>": {"model", "messages"|"error"}}}]}
process.env.TZ = "UTC";

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { sessionManager } from "../pi.mjs";
import { listAnswer, openAnswer } from "../record-manager.mjs";
import { legacy, rewrite } from "../record-migrate.mjs";
import { recordFile } from "../record.mjs";
import { CHECKED, locate } from "../locate.mjs";
import { piAiStep } from "../sent.mjs";

// pi-ai's request step of every checked version installed here (both, in CI).
const STEPS = [];
for (const version of CHECKED) if (locate(version)) STEPS.push(await piAiStep(version));

/** The target models: the one in force (API of its latest reply), another provider with
 * thinking, a text-only one with OpenAI's 40-character ids, the Responses API's ids. */
const TARGETS = {
  anthropic: { provider: "anthropic", id: "claude-sonnet-4-5", api: "anthropic-messages", input: ["text", "image"] },
  "openai-text": { provider: "openai", id: "text-only", api: "openai-completions", input: ["text"] },
  responses: { provider: "openai", id: "gpt-5", api: "openai-responses", input: ["text", "image"] },
};

function targetsOf(context, llm) {
  const out = { ...TARGETS };
  const model = context?.model;
  if (model && typeof model === "object") {
    for (let i = llm.length - 1; i >= 0; i--) {
      const m = llm[i];
      if (m?.role === "assistant" && m.provider === model.provider && m.model === model.modelId) {
        out.same = { provider: model.provider, id: model.modelId, api: m.api, input: ["text", "image"] };
        break;
      }
    }
  }
  return out;
}

function sentOf(golden) {
  const out = {};
  for (const step of STEPS) {
    out[step.version] = [];
    for (const [n, c] of golden.cases.entries()) {
      if (!Array.isArray(c.llm)) continue;
      const results = {};
      for (const [name, model] of Object.entries(targetsOf(c.context, c.llm))) {
        try {
          results[name] = { model, messages: step.sentFor(c.llm, model) };
        } catch (err) {
          results[name] = { model, error: errorText(err) };
        }
      }
      out[step.version].push({ case: n, results });
    }
  }
  return out;
}

// The zone local date-times are read in (run.py --tz): Node resets its zone when TZ changes.
process.env.TZ = process.env.FUZZ_TZ ?? "UTC";

// Pi's getTree keys nodes by id, so with repeated ids one node is pushed into the same
// children list once per line naming it as parent; its sorting pass then walks every
// path of that graph: 2^depth visits for a session appended to itself, which never ends
// (a real hang of Pi's tree view). The recorder guards cycles, not this; the worker
// counts the visits first and refuses (the recorder then records a treeError and the
// tree is not compared).
const MAX_TREE_VISITS = 2_000_000;
const { SessionManager } = sessionManager;
const piGetTree = SessionManager.prototype.getTree;
SessionManager.prototype.getTree = function guardedGetTree() {
  const visits = treeVisits(this.getEntries());
  if (visits > MAX_TREE_VISITS) {
    throw new Error(`getTree would visit more than ${MAX_TREE_VISITS} nodes (repeated ids): Pi hangs`);
  }
  return piGetTree.call(this);
};

/** How many nodes Pi's getTree pass visits (children counted with repetition). */
export function treeVisits(entries) {
  const nodes = new Map();
  for (const e of entries) nodes.set(e?.id, { children: [] });
  const roots = [];
  for (const e of entries) {
    const node = nodes.get(e?.id);
    if (e?.parentId === null || e?.parentId === e?.id) roots.push(node);
    else (nodes.get(e?.parentId)?.children ?? roots).push(node);
  }
  // visits(n) = 1 + sum of visits(child) over n.children, memoised, without recursion
  // (the recorder has already refused graphs with a loop).
  const memo = new Map();
  let total = 0;
  for (const root of roots) {
    const stack = [[root, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [node, i] = top;
      if (memo.has(node)) {
        stack.pop();
        continue;
      }
      if (i < node.children.length) {
        top[1]++;
        const child = node.children[i];
        if (!memo.has(child)) stack.push([child, 0]);
      } else {
        let sum = 1;
        for (const c of node.children) sum += memo.get(c) ?? 0;
        memo.set(node, Math.min(sum, Number.MAX_SAFE_INTEGER));
        stack.pop();
      }
    }
    total += memo.get(root) ?? 0;
    if (total > MAX_TREE_VISITS) break;
  }
  return total;
}

function errorText(err) {
  return String(err && err.message !== undefined ? err.message : err);
}

async function managerAnswer(path) {
  const tmp = mkdtempSync(join(tmpdir(), "pi-fuzz-manager-"));
  try {
    const open = openAnswer(SessionManager, sessionManager.parseSessionEntries, path, tmp);
    let listed;
    try {
      listed = await listAnswer(SessionManager, path, tmp);
    } catch (err) {
      listed = { error: errorText(err) };
    }
    return { open, listed };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function answer(request) {
  const out = { id: request.id };
  if (request.dates) {
    // {"id", "dates": [...]}: new Date(value).getTime() for each value (NaN -> null)
    out.dates = request.dates.map((d) => {
      const t = new Date(d).getTime();
      return Number.isNaN(t) ? null : t;
    });
    return out;
  }
  let golden;
  try {
    golden = recordFile(request.path);
  } catch (err) {
    out.error = errorText(err);
    return out;
  }
  out.golden = golden;
  out.manager = await managerAnswer(request.path);
  out.sent = sentOf(golden);
  if (legacy(request.path)) {
    const fresh = rewrite(request.path);
    out.migrated = fresh.error ? { error: fresh.error } : { bytes: fresh.bytes.toString("base64") };
  }
  const first = golden.cases[0];
  if (first && first.leaf === null && first.context !== undefined) {
    const text = {};
    try {
      text.context = JSON.stringify(first.context, null, 2);
      if (first.llm !== undefined) text.llm = JSON.stringify(first.llm, null, 2);
    } catch (err) {
      out.textError = errorText(err);
    }
    out.text = text;
  }
  return out;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let request;
  let reply;
  try {
    request = JSON.parse(line);
    reply = JSON.stringify(await answer(request));
  } catch (err) {
    // The golden itself cannot be written (e.g. nested beyond JSON.stringify's reach).
    reply = JSON.stringify({ id: request?.id, error: `unserialisable: ${errorText(err)}` });
  }
  process.stdout.write(reply + "\n");
}
