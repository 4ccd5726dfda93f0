#!/usr/bin/env node
// Records what Pi 0.87.1 writes when a session is forked or cloned, by calling the same
// SessionManager methods as Pi's commands, on copies of two samples:
//
//   /clone                      runtime fork(leaf, {position: "at"})  -> createBranchedSession(leaf)
//   /fork on a user message     runtime fork(id)                      -> createBranchedSession(its parentId)
//   /fork on a root user message (parentId null)                      -> SessionManager.create + newSession({parentSession})
//   pi --fork <file>            main.js forkSessionOrExit             -> SessionManager.forkFrom(file, cwd, dir)
//
// (agent-session-runtime.js `fork`, interactive-mode.js `handleCloneCommand`, main.js
// `forkSessionOrExit`.) Each file Pi writes is copied byte for byte to data/forks/<case>.jsonl;
// data/forks/forks.json says, per case, what was called, whether Pi wrote a file at once,
// and (when it did not) the header it holds in memory and the file after the first reply.
//
//   node conformance/record-forks.mjs [--out DIR]   (default: data/forks)
//
// The sources are copied to a fixed folder, /tmp/pisession-record-forks/sessions, so that
// the headers' parentSession is the same on every run. Ids of new entries and header ids and
// timestamps are Pi's own (random, the clock): tests/test_fork_files.py compares a re-run
// with the committed files apart from those.
process.env.TZ = "UTC";

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { PI_VERSION, REPO, sessionManager } from "./pi.mjs";

const { SessionManager } = sessionManager;
const argOut = process.argv.indexOf("--out");
const OUT = argOut > 0 ? process.argv[argOut + 1] : join(REPO, "data", "forks");
const WORK = "/tmp/pisession-record-forks";
const SESSIONS = join(WORK, "sessions");
const SAMPLES = join(REPO, "data", "samples");
const TOUR = "tour.jsonl";
const REAL = "pi-0.87.1-a-print-multiturn-tools.jsonl";

rmSync(WORK, { recursive: true, force: true });
mkdirSync(SESSIONS, { recursive: true });
mkdirSync(OUT, { recursive: true });
for (const name of [TOUR, REAL]) copyFileSync(join(SAMPLES, name), join(SESSIONS, name));

const newFiles = (before) => readdirSync(SESSIONS).filter((n) => n.endsWith(".jsonl") && !before.includes(n));

/** Run `act` on a fresh copy of the sources; return the one file it wrote, if any. */
function run(act) {
  const before = readdirSync(SESSIONS);
  const result = act();
  const written = newFiles(before);
  if (written.length > 1) throw new Error(`expected at most one new file, got ${written}`);
  return { result, written: written[0] ?? null };
}

function keep(name, written) {
  writeFileSync(join(OUT, `${name}.jsonl`), readFileSync(join(SESSIONS, written)));
  rmSync(join(SESSIONS, written));
  return `${name}.jsonl`;
}

const cases = [];
const open = (name) => SessionManager.open(join(SESSIONS, name), SESSIONS);

// /clone: the whole path to the current leaf.
{
  const sm = open(TOUR);
  const leaf = sm.getLeafId();
  const { written } = run(() => sm.createBranchedSession(leaf));
  cases.push({
    name: "clone-tour",
    command: "/clone",
    source: TOUR,
    call: `createBranchedSession("${leaf}")`,
    writtenAtOnce: written !== null,
    file: keep("clone-tour", written),
  });
}

// /fork on a later user message: the path up to that message's parent.
{
  const sm = open(TOUR);
  const user = sm.getEntry("u4000001");
  const { written } = run(() => sm.createBranchedSession(user.parentId));
  cases.push({
    name: "fork-tour-u4000001",
    command: "/fork on user message u4000001",
    source: TOUR,
    call: `createBranchedSession("${user.parentId}")`,
    writtenAtOnce: written !== null,
    file: keep("fork-tour-u4000001", written),
  });
}

// /fork on the first user message of a file Pi wrote: its parent is the system message, so
// the path copied holds no assistant message and Pi 0.87.1 writes nothing yet.
{
  const sm = open(REAL);
  const user = sm.getEntries().find((e) => e.type === "message" && e.message.role === "user");
  const { result: path, written } = run(() => sm.createBranchedSession(user.parentId));
  const later = run(() => {
    sm.appendMessage({ role: "user", content: [{ type: "text", text: "A new first question." }], timestamp: 1 });
    sm.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: "A new first answer." }],
      api: "openai-completions",
      provider: "fake",
      model: "fake-coder",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop",
      timestamp: 2,
    });
  });
  if (existsSync(path) !== (later.written !== null)) throw new Error("unexpected file state");
  cases.push({
    name: "fork-real-first-user",
    command: `/fork on the first user message (${user.id}, whose parent is the system message)`,
    source: REAL,
    call: `createBranchedSession("${user.parentId}")`,
    writtenAtOnce: written !== null,
    entriesInMemory: sm.getEntries().length - 2,
    afterFirstReply: "appendMessage(user), appendMessage(assistant)",
    file: keep("fork-real-first-user-after-reply", later.written),
  });
}

// /fork on a root user message (no parent): a new, empty session that names its parent.
{
  const source = join(SESSIONS, TOUR);
  const { result: sm, written } = run(() => {
    const manager = SessionManager.create("/home/reader/projects/demo-app", SESSIONS);
    manager.newSession({ parentSession: source });
    return manager;
  });
  cases.push({
    name: "fork-root-user",
    command: "/fork on a user message whose parentId is null",
    source: TOUR,
    call: "SessionManager.create(cwd, dir).newSession({ parentSession })",
    writtenAtOnce: written !== null,
    entriesInMemory: sm.getEntries().length,
    header: sm.getHeader(),
    file: null,
  });
}

// pi --fork: every line of every branch, under a new header.
{
  const { written } = run(() =>
    SessionManager.forkFrom(join(SESSIONS, TOUR), "/home/reader/projects/other-app", SESSIONS),
  );
  cases.push({
    name: "pi-fork-tour",
    command: "pi --fork tour.jsonl (run in /home/reader/projects/other-app)",
    source: TOUR,
    call: 'SessionManager.forkFrom(source, "/home/reader/projects/other-app", dir)',
    writtenAtOnce: written !== null,
    file: keep("pi-fork-tour", written),
  });
}

// The files forked from are left as they were.
const sourcesUnchanged = [TOUR, REAL].every((name) =>
  readFileSync(join(SESSIONS, name)).equals(readFileSync(join(SAMPLES, name))),
);
const manifest = { pi: PI_VERSION, sessionsFolder: SESSIONS, sources: [TOUR, REAL], sourcesUnchanged, cases };
writeFileSync(join(OUT, "forks.json"), `${JSON.stringify(manifest, null, 1)}\n`);
rmSync(WORK, { recursive: true, force: true });
console.log(`Pi ${PI_VERSION}: ${cases.length} cases in ${OUT}: ${cases.map((c) => c.file ?? `(${c.name}: no file)`).map((f) => basename(f)).join(", ")}`);
