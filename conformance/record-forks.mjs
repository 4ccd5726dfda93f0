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

// --- a folder of forks and clones, each made by one of Pi's routes -------------------------
//
// The calls Pi's own commands make (agent-session-runtime.js `fork`, which /fork, /clone,
// RPC `fork` and RPC `clone` all go through; main.js `forkSessionOrExit` for pi --fork),
// each fork then continued by one question and a reply with usage of its own, as a user
// would. The files keep their parent's absolute path in `parentSession`, which is gone
// once the folder is committed: pisession finds the copies by their entries.
// data/forks/[pi-<V>/]folder/folder.json says which route made each file;
// conformance/record-fork-usage.mjs records Pi's breakdown over its distinct entries.
{
  const FOLDER = join(WORK, "folder");
  const ELSEWHERE = join(WORK, "elsewhere"); // a parent that is not in the folder
  mkdirSync(FOLDER, { recursive: true });
  mkdirSync(ELSEWHERE, { recursive: true });
  copyFileSync(join(SAMPLES, TOUR), join(FOLDER, "tour.jsonl"));
  copyFileSync(join(SAMPLES, REAL), join(FOLDER, "real.jsonl"));
  copyFileSync(join(SAMPLES, REAL), join(ELSEWHERE, "real-moved.jsonl"));
  let tick = 0;
  const later = () => {
    const start = Date.now(); // every file made in a millisecond of its own
    while (Date.now() <= start + 1);
  };
  const exchange = (sm, text) => {
    tick += 1;
    const cost = tick / 1000;
    sm.appendMessage({ role: "user", content: [{ type: "text", text }], timestamp: Date.now() });
    sm.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: `Answer ${tick}.` }],
      api: "openai-completions",
      provider: "fake",
      model: "fake-coder",
      usage: { input: 100 * tick, output: 10 * tick, cacheRead: tick, cacheWrite: 0, totalTokens: 111 * tick, cost: { input: cost, output: cost, cacheRead: 0, cacheWrite: 0, total: 2 * cost } },
      stopReason: "stop",
      timestamp: Date.now(),
    });
  };
  const made = [];
  const taken = new Set(readdirSync(FOLDER));
  const name = (file, route, call, parent) => {
    const target = `${made.length + 1}-${route.replace(/[^a-z0-9]+/gi, "-").toLowerCase().replace(/^-|-$/g, "")}.jsonl`;
    made.push({ file: target, route, call, parent, piFile: basename(file) });
    return target;
  };
  const fileOf = (sm) => sm.getSessionFile();
  const inFolder = (dir) => (n) => join(dir, n);
  const at = inFolder(FOLDER);
  const rename = [];

  later();
  // pi --fork tour.jsonl: every entry of every branch
  const cliFork = SessionManager.forkFrom(at("tour.jsonl"), "/home/reader/projects/demo-app", FOLDER);
  exchange(cliFork, "Carry on in the fork.");
  rename.push([fileOf(cliFork), name(fileOf(cliFork), "CLI --fork", "SessionManager.forkFrom(tour.jsonl)", "tour.jsonl")]);
  later();
  // RPC fork on u4000001 (runtime.fork(entryId)): the path up to its parent
  {
    const sm = SessionManager.open(at("tour.jsonl"), FOLDER);
    const target = sm.getEntry("u4000001").parentId;
    sm.createBranchedSession(target);
    exchange(sm, "Run the tests again.");
    rename.push([fileOf(sm), name(fileOf(sm), "RPC fork", `createBranchedSession("${target}")`, "tour.jsonl")]);
  }
  later();
  // /clone (RPC clone: runtime.fork(leaf, {position: "at"})), labels rewritten at the end
  {
    const sm = SessionManager.open(at("tour.jsonl"), FOLDER);
    const leaf = sm.getLeafId();
    sm.createBranchedSession(leaf);
    exchange(sm, "Now in the clone.");
    rename.push([fileOf(sm), name(fileOf(sm), "clone", `createBranchedSession("${leaf}"), labels rewritten`, "tour.jsonl")]);
  }
  later();
  // RPC clone of the CLI fork: copies the fork's own reply too (a chain)
  {
    const sm = SessionManager.open(fileOf(cliFork), FOLDER);
    const leaf = sm.getLeafId();
    sm.createBranchedSession(leaf);
    exchange(sm, "A clone of the fork.");
    rename.push([fileOf(sm), name(fileOf(sm), "RPC clone of the CLI fork", `createBranchedSession("${leaf}")`, made[0].file)]);
  }
  later();
  // /fork at the first user message of a real file: the system message's path, no file until the reply
  {
    const sm = SessionManager.open(at("real.jsonl"), FOLDER);
    const user = sm.getEntries().find((e) => e.type === "message" && e.message.role === "user");
    sm.createBranchedSession(user.parentId);
    exchange(sm, "A new first question.");
    rename.push([fileOf(sm), name(fileOf(sm), "/fork at the first message", `createBranchedSession("${user.parentId}")`, "real.jsonl")]);
  }
  later();
  // /fork on a user message without a parent: a new session that names its parent
  {
    const sm = SessionManager.create("/home/reader/projects/demo-app", FOLDER);
    sm.newSession({ parentSession: at("tour.jsonl") });
    exchange(sm, "Start again from nothing.");
    rename.push([fileOf(sm), name(fileOf(sm), "/fork at a root message", "newSession({ parentSession })", "tour.jsonl")]);
  }
  later();
  // pi --fork of a file that is not in the folder, then a clone of that fork
  {
    const orphan = SessionManager.forkFrom(join(ELSEWHERE, "real-moved.jsonl"), "/home/reader/projects/demo-app", FOLDER);
    exchange(orphan, "The parent is elsewhere.");
    rename.push([fileOf(orphan), name(fileOf(orphan), "CLI --fork of a parent not in the folder", "SessionManager.forkFrom(elsewhere/real-moved.jsonl)", null)]);
    later();
    const sm = SessionManager.open(fileOf(orphan), FOLDER);
    const leaf = sm.getLeafId();
    sm.createBranchedSession(leaf);
    rename.push([fileOf(sm), name(fileOf(sm), "clone of that fork", `createBranchedSession("${leaf}")`, made[made.length - 1].file)]);
  }
  const folderOut = join(OUT, "folder");
  rmSync(folderOut, { recursive: true, force: true });
  mkdirSync(folderOut, { recursive: true });
  for (const n of taken) copyFileSync(at(n), join(folderOut, n));
  for (const [from, to] of rename) {
    if (!existsSync(from)) throw new Error(`${to}: Pi wrote no file`);
    copyFileSync(from, join(folderOut, to));
  }
  const folderManifest = { pi: PI_VERSION, sources: [...taken].sort(), files: made.map(({ piFile, ...rest }) => rest) };
  writeFileSync(join(folderOut, "folder.json"), `${JSON.stringify(folderManifest, null, 1)}\n`);
}

// The files forked from are left as they were.
const sourcesUnchanged = [TOUR, REAL].every((name) =>
  readFileSync(join(SESSIONS, name)).equals(readFileSync(join(SAMPLES, name))),
);
const manifest = { pi: PI_VERSION, sessionsFolder: SESSIONS, sources: [TOUR, REAL], sourcesUnchanged, cases };
writeFileSync(join(OUT, "forks.json"), `${JSON.stringify(manifest, null, 1)}\n`);
rmSync(WORK, { recursive: true, force: true });
console.log(`Pi ${PI_VERSION}: ${cases.length} cases in ${OUT}: ${cases.map((c) => c.file ?? `(${c.name}: no file)`).map((f) => basename(f)).join(", ")}`);
