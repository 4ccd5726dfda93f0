#!/usr/bin/env node
// Records what pi-ai's transformMessages (conformance/sent.mjs: the step every provider API
// runs before a request) makes of the provider messages of every case of every golden of
// the corpus, for a few target models, as data/request/<version>.json. The version is
// $PI_ORACLE_VERSION, else the primary one; tests/test_request.py compares pisession.request.
//
//   node conformance/record-sent.mjs            write data/request/<version>.json
//   node conformance/record-sent.mjs --check    compare with it, exit 1 on a difference
//
// A case's input is its golden's `llm` (Pi's own convertToLlm, already recorded). For each
// target the golden holds `sent`: per message sent, the index of an input message with the
// same JSON text (runs as `a-b`), else `role:sha` (sha-256 of
// JSON.stringify, first 16 hex digits); or `error` when pi-ai throws. Date.now() is NOW.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { REPO } from "./paths.mjs";
import { NOW, PI_VERSION, sentFor } from "./sent.mjs";

/** The target models: a cross-provider one with thinking, text-only ones, each id rule. */
export const TARGETS = {
  anthropic: { provider: "anthropic", id: "claude-sonnet-4-5", api: "anthropic-messages", input: ["text", "image"] },
  "openai-text": { provider: "openai", id: "text-only", api: "openai-completions", input: ["text"] },
  responses: { provider: "openai", id: "gpt-5", api: "openai-responses", input: ["text", "image"] },
  "gemini-3": { provider: "google", id: "gemini-3-pro-preview", api: "google-generative-ai", input: ["text", "image"] },
  mistral: { provider: "mistral", id: "mistral-large-latest", api: "mistral-conversations", input: ["text"] },
};

/** The model in force at the leaf as the same-model target: API of its latest reply. */
function sameTarget(context, llm) {
  const model = context && context.model;
  if (!model || typeof model !== "object") return null;
  for (let i = llm.length - 1; i >= 0; i--) {
    const m = llm[i];
    if (m.role === "assistant" && m.provider === model.provider && m.model === model.modelId) {
      return { provider: model.provider, id: model.modelId, api: m.api, input: ["text", "image"] };
    }
  }
  return null;
}

export const sha = (value) => createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);

/** The sent list as text: runs of passed-through input messages as `a-b` (or `a`), each
 * other message as `role:sha`, separated by spaces. */
export function encode(llm, out) {
  const parts = [];
  const texts = llm.map((m) => JSON.stringify(m));
  for (const m of out) {
    let i = llm.indexOf(m);
    if (i < 0) i = texts.indexOf(JSON.stringify(m));
    const last = parts[parts.length - 1];
    if (i >= 0 && Array.isArray(last) && last[1] === i - 1) last[1] = i;
    else parts.push(i >= 0 ? [i, i] : `${m.role}:${sha(m)}`);
  }
  return parts.map((p) => (Array.isArray(p) ? (p[0] === p[1] ? `${p[0]}` : `${p[0]}-${p[1]}`) : p)).join(" ");
}

export function recordCase(llm, model) {
  try {
    return { sent: encode(llm, sentFor(llm, model)) };
  } catch (err) {
    return { error: String(err && err.message !== undefined ? err.message : err) };
  }
}

function goldens() {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".golden.json")) out.push(p);
    }
  };
  walk(join(REPO, "data", "conformance"));
  walk(join(REPO, "pisession", "samples"));
  return out;
}

function record() {
  const files = {};
  for (const path of goldens()) {
    const golden = JSON.parse(readFileSync(path, "utf8"));
    const cases = [];
    for (const [n, c] of (golden.cases ?? []).entries()) {
      if (!Array.isArray(c.llm)) continue;
      const targets = { ...TARGETS };
      const same = sameTarget(c.context, c.llm);
      if (same) targets.same = same;
      const results = {};
      for (const [name, model] of Object.entries(targets)) results[name] = recordCase(c.llm, model);
      cases.push({ case: n, leaf: c.leaf, same, results });
    }
    if (cases.length) files[relative(REPO, path).split(sep).join("/")] = cases;
  }
  return { pi: PI_VERSION, now: NOW, targets: TARGETS, files };
}

const out = join(REPO, "data", "request", `${PI_VERSION}.json`);
const text = `${JSON.stringify(record())}\n`;
if (process.argv.includes("--check")) {
  const same = existsSync(out) && readFileSync(out, "utf8") === text;
  console.log(same ? `${out}: same` : `${out}: DIFFERS (re-record with node conformance/record-sent.mjs)`);
  process.exit(same ? 0 : 1);
}
mkdirSync(join(REPO, "data", "request"), { recursive: true });
writeFileSync(out, text);
console.log(`wrote ${out}`);
