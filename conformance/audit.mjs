#!/usr/bin/env node
// The claim audit's evidence: Pi's own answers to the questions notebook 08 asks about the
// chapter's and PiG's statements, written as data/audit/evidence.json (Pi 0.87.1) and
// data/audit/evidence-1.6.0.json (PI_ORACLE_VERSION=1.6.0).
//
//   node conformance/audit.mjs             # (re)write data/audit/evidence.json
//   PI_ORACLE_VERSION=1.6.0 node conformance/audit.mjs   # (re)write data/audit/evidence-1.6.0.json
//   node conformance/audit.mjs --stdout    # print the evidence instead (freshness checks)
//   node conformance/audit.mjs --out FILE  # write it elsewhere
//
// Pi comes from $PI_ORACLE_DIR, conformance/.pi/<V> or conformance/node_modules (locate.mjs).
// Runs on Node 20 for both versions: it imports only the modules a scenario needs. Pi
// 1.6.0's agent-session.js cannot be imported there (its HTTP client needs zstd), so the
// one method the audit uses from it, getSessionStats, is evaluated as written (piMethod).
//
// Every scenario calls Pi's own code: SessionManager in a temporary folder (what is
// written, when, and where), buildSessionContext / convertToLlm / getCurrentSystemPrompt
// on the purpose-made files in data/audit/*.jsonl, CacheWarmer and
// AgentSession.getSessionStats for usage. A few answers live only in code that needs the
// Node 22 CLI (the session-folder precedence in main.js, what sdk.js writes at session
// start); those are quoted from Pi's files with their line numbers, and the precedence
// expression is evaluated as written. Facts about the two files Pi's CLI wrote
// (data/samples/pi-0.87.1-*.jsonl) are read from those files.
//
// Determinism: Pi draws entry ids from crypto.randomUUID, session ids from uuidv7
// (Date.now + crypto.getRandomValues) and timestamps from `new Date()`. This script
// replaces those three sources with a seeded generator and a clock that starts at
// 2026-01-05T12:00:00Z and advances one second per `new Date()`, reset before each
// scenario, so recording twice gives identical bytes. Pi's logic is untouched.
// Temporary folders appear as <tmp>, the home folder as ~.
process.env.TZ = "UTC";

import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { homedir, tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { HERE, PI_PATHS, PI_VERSION, PRIMARY, REPO, messages, sessionManager, transcript } from "./pi.mjs";

const { SessionManager, loadEntriesFromFile, migrateSessionEntries, buildSessionContext, getDefaultSessionDir } =
  sessionManager;
const { convertToLlm } = messages;
const { getCurrentSystemMessage, getCurrentSystemPrompt } = transcript;

const AUDIT = join(REPO, "data", "audit");
const SAMPLES = join(REPO, "data", "samples");
// The primary version's evidence is evidence.json; another version's is evidence-<V>.json.
const EVIDENCE = join(AUDIT, PI_VERSION === PRIMARY ? "evidence.json" : `evidence-${PI_VERSION}.json`);
const load = (rel) => import(pathToFileURL(join(PI_PATHS.agent, "dist", rel)).href);

// --- fixed entropy -----------------------------------------------------------------------

const require = createRequire(import.meta.url);
const nodeCrypto = require("node:crypto");
const RealDate = Date;
const START = RealDate.UTC(2026, 0, 5, 12, 0, 0);
let state = 1;
let clock = START;
let fixedUuid = null; // set by the id-fallback scenario

function nextByte() {
  // mulberry32, one byte at a time
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) & 0xff;
}
function randomUuidV4() {
  const b = Array.from({ length: 16 }, nextByte);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
nodeCrypto.randomUUID = () => fixedUuid ?? randomUuidV4();
syncBuiltinESMExports();
Object.defineProperty(globalThis.crypto, "getRandomValues", {
  value: (array) => {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i++) bytes[i] = nextByte();
    return array;
  },
});
class AuditDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) {
      super(clock);
      clock += 1000;
    } else super(...args);
  }
  static now() {
    return clock;
  }
}
globalThis.Date = AuditDate;

function fresh(seed) {
  state = seed;
  clock = START;
  fixedUuid = null;
}

// --- helpers ---------------------------------------------------------------------------

const HOME = homedir();
let scrubRoots = [];

/** Replace temporary folders and the home folder in every string of `value`. */
function scrub(value) {
  let text = JSON.stringify(value);
  for (const [root, name] of scrubRoots) text = text.split(JSON.stringify(root).slice(1, -1)).join(name);
  return JSON.parse(text);
}

async function inTmp(fn) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "pi-audit-")));
  scrubRoots = [[dir, "<tmp>"], [HOME, "~"]];
  try {
    return scrub(await fn(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const readJsonl = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return { malformed: l };
      }
    });
const kindOf = (e) => (e.malformed !== undefined ? "malformed" : e.type + (e.type === "message" ? `/${e.message.role}` : ""));
const jsonKeys = (value) => Object.keys(JSON.parse(JSON.stringify(value)));
const HEX8 = /^[0-9a-f]{8}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function piText(rel) {
  return readFileSync(join(PI_PATHS.agent, "dist", rel), "utf8");
}
/** The first line of a Pi file that contains `needle`, with its number. */
function codeLine(rel, needle) {
  const lines = piText(rel).split("\n");
  const index = lines.findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`Pi ${PI_VERSION} ${rel}: "${needle}" not found`);
  return { file: `pi-coding-agent/dist/${rel}`, line: index + 1, text: lines[index].trim() };
}
/** `count` lines of a Pi file starting at the first line containing `needle`. */
function codeBlock(rel, needle, count) {
  const first = codeLine(rel, needle);
  const lines = piText(rel).split("\n").slice(first.line - 1, first.line - 1 + count);
  return { file: first.file, line: first.line, text: lines.map((l) => l.replace(/\s+$/, "")).join("\n") };
}
/**
 * A method of a class in a Pi file, evaluated as written with the given names in scope:
 * what the audit does for code whose module cannot be imported here (Pi 1.6.0's
 * agent-session.js pulls in an HTTP client that needs zstd, which Node 20 lacks).
 */
function piMethod(rel, name, scope) {
  const lines = piText(rel).split("\n");
  const start = lines.findIndex((l) => l.trimStart().startsWith(`${name}(`) && l.trimEnd().endsWith("{"));
  if (start < 0) throw new Error(`Pi ${PI_VERSION} ${rel}: method ${name} not found`);
  const indent = lines[start].match(/^\s*/)[0];
  const end = lines.findIndex((l, i) => i > start && l === `${indent}}`);
  const text = lines.slice(start, end + 1).join("\n");
  const method = new Function(...Object.keys(scope), `return function ${text.trim()};`)(...Object.values(scope));
  return { method, code: { file: `pi-coding-agent/dist/${rel}`, line: start + 1, lines: end - start + 1 } };
}
/** Fields of an interface in a .d.ts file: [{name, optional, type}]. */
function interfaceFields(dts, name) {
  const match = dts.match(new RegExp(`export interface ${name}(?:<[^>]*>)?(?: extends [^{]+)? \\{([\\s\\S]*?)\\n\\}`));
  if (!match) throw new Error(`interface ${name} not found`);
  return match[1]
    .split("\n")
    .map((l) => l.trim().match(/^([A-Za-z_]\w*)(\?)?: (.*);$/))
    .filter(Boolean)
    .map(([, field, optional, type]) => ({ name: field, optional: Boolean(optional), type }));
}

const user = (text, ts = 1767607200000) => ({ role: "user", content: [{ type: "text", text }], timestamp: ts });
const usage = (input, output, total, cacheRead = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite: 0,
  totalTokens: input + output + cacheRead,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
});
const assistant = (text, ts = 1767607201000) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-completions",
  provider: "audit",
  model: "audit-model",
  usage: usage(100, 20, 0.001),
  stopReason: "stop",
  timestamp: ts,
});
const systemMessage = (sections, toolsAdded = []) => ({
  role: "system",
  content: "",
  sections,
  ...(toolsAdded.length ? { toolsAdded: toolsAdded.map((name) => ({ name, description: name, parameters: {} })) } : {}),
  timestamp: 1767607200000,
});

// --- scenarios: writing files ------------------------------------------------------------

async function firstWrite() {
  return inTmp((tmp) => {
    const folder = join(tmp, "sessions");
    const m = SessionManager.create(join(tmp, "project"), folder);
    const file = m.getSessionFile();
    const look = (after) => {
      const exists = existsSync(file);
      return { after, fileExists: exists, lines: exists ? readJsonl(file).map(kindOf) : [] };
    };
    const steps = [look("SessionManager.create")];
    m.appendModelChange("audit", "audit-model");
    m.appendThinkingLevelChange("off");
    m.appendMessage(user("first question"));
    steps.push(look("model_change, thinking_level_change and a user message"));
    m.appendMessage(assistant("first answer"));
    steps.push(look("the first assistant message"));
    const before = readFileSync(file);
    m.appendMessage(user("second question"));
    const after = readFileSync(file);
    steps.push({ ...look("another user message"), earlierBytesUnchanged: after.subarray(0, before.length).equals(before) });
    return {
      kind: "run",
      what: "A new persisted session: when does Pi write the file, and what does a later entry change?",
      calls: ["SessionManager.create", "appendModelChange", "appendThinkingLevelChange", "appendMessage"],
      code: [codeBlock("core/session-manager.js", "_persist(entry) {", 6)],
      result: { steps },
    };
  });
}

async function branchInPlace() {
  return inTmp((tmp) => {
    const folder = join(tmp, "sessions");
    const m = SessionManager.create(join(tmp, "project"), folder);
    const u1 = m.appendMessage(user("first question"));
    m.appendMessage(assistant("first answer"));
    m.appendMessage(user("second question"));
    const file = m.getSessionFile();
    const before = readFileSync(file);
    m.branch(u1); // what /tree does when you pick an entry without summarizing
    const newId = m.appendMessage(assistant("another answer to the first question"));
    const after = readFileSync(file);
    const written = readJsonl(file);
    const parents = new Set(written.map((e) => e.parentId));
    return {
      kind: "run",
      what: "Branching inside a session, as /tree does: SessionManager.branch, then an append.",
      calls: ["SessionManager.branch", "appendMessage"],
      code: [
        codeLine("core/agent-session.js", "async navigateTree(targetId"),
        codeLine("core/agent-session.js", "this.sessionManager.branch(newLeafId)"),
        codeLine("core/agent-session.js", "this.sessionManager.branchWithSummary(newLeafId"),
      ],
      result: {
        filesInFolder: readdirSync(folder).length,
        earlierBytesUnchanged: after.subarray(0, before.length).equals(before),
        newEntryParentIsEarlierEntry: written.find((e) => e.id === newId).parentId === u1,
        leaves: written.filter((e) => e.type !== "session" && !parents.has(e.id)).length,
      },
    };
  });
}

async function forkAndClone() {
  return inTmp((tmp) => {
    const folder = join(tmp, "sessions");
    const m = SessionManager.create(join(tmp, "project"), folder);
    m.appendMessage(user("first question"));
    m.appendMessage(assistant("first answer"));
    const u2 = m.appendMessage(user("second question"));
    const a2 = m.appendMessage(assistant("second answer"));
    m.appendLabelChange(u2, "checkpoint");
    const original = m.getSessionFile();
    const originalBytes = readFileSync(original);
    const originalIds = new Set(readJsonl(original).map((e) => e.id));

    // /fork and /clone: AgentSessionRuntime.fork opens the file and calls createBranchedSession.
    const opened = SessionManager.open(original, folder);
    const forked = opened.createBranchedSession(a2);
    const forkedLines = readJsonl(forked);
    const forkedEntries = forkedLines.filter((e) => e.type !== "session");
    const reused = forkedEntries.filter((e) => originalIds.has(e.id));

    // pi --fork <file> from another project: SessionManager.forkFrom copies every entry.
    const otherFolder = join(tmp, "other-sessions");
    const copied = SessionManager.forkFrom(original, join(tmp, "other-project"), otherFolder).getSessionFile();
    const copiedLines = readJsonl(copied);
    const originalEntryLines = readFileSync(original, "utf8").split("\n").slice(1);
    const copiedEntryLines = readFileSync(copied, "utf8").split("\n").slice(1);

    // newSession({parentSession}) (extensions, /new from a runtime that passes one)
    const child = SessionManager.inMemory(join(tmp, "project"));
    child.newSession({ parentSession: original });

    return {
      kind: "run",
      what: "A fork or a clone (createBranchedSession, as /fork and /clone do), pi --fork (forkFrom), and newSession({parentSession}).",
      calls: ["SessionManager.open", "createBranchedSession", "SessionManager.forkFrom", "newSession"],
      code: [
        codeLine("core/slash-commands.js", '{ name: "fork"'),
        codeLine("core/slash-commands.js", '{ name: "clone"'),
        codeLine("modes/interactive/interactive-mode.js", 'this.runtimeHost.fork(leafId, { position: "at" })'),
        codeLine("core/agent-session-runtime.js", "sessionManager.createBranchedSession(targetLeafId);"),
      ],
      result: {
        createBranchedSession: {
          filesInFolder: readdirSync(folder).length,
          newFile: forked !== original,
          originalUnchanged: readFileSync(original).equals(originalBytes),
          header: forkedLines[0],
          parentSessionIsOriginalPath: forkedLines[0].parentSession === original,
          entries: forkedEntries.length,
          entryIdsReused: reused.length,
          entryKinds: forkedEntries.map(kindOf),
        },
        forkFrom: {
          header: copiedLines[0],
          parentSessionIsOriginalPath: copiedLines[0].parentSession === original,
          entryLinesIdentical: JSON.stringify(copiedEntryLines) === JSON.stringify(originalEntryLines),
        },
        newSessionWithParent: { header: child.getHeader() },
      },
    };
  });
}

async function tornLastLine() {
  return inTmp((tmp) => {
    const lines = readFileSync(join(AUDIT, "settings.jsonl"), "utf8").split("\n").slice(0, 5);
    const fragment = '{"type":"message","id":"t0rn","parentId":"a1","timestamp":"2026-01-05T10:00:05.000Z","message":{"role":"us';
    const torn = join(tmp, "torn.jsonl");
    writeFileSync(torn, `${lines.join("\n")}\n${fragment}`);
    const before = readFileSync(torn);
    const read = loadEntriesFromFile(torn);
    const afterLoad = readFileSync(torn);
    const m = SessionManager.open(torn, tmp);
    m.appendMessage(user("after the crash"));
    const final = readFileSync(torn, "utf8").split("\n");

    const complete = join(tmp, "no-final-newline.jsonl");
    writeFileSync(complete, lines.join("\n"));
    const completeRead = loadEntriesFromFile(complete);
    return {
      kind: "run",
      what: "A file whose last line was cut off mid-write (no newline), opened by Pi, then appended to.",
      calls: ["loadEntriesFromFile", "SessionManager.open", "appendMessage"],
      result: {
        tornLine: {
          valuesRead: read.length,
          linesInFile: lines.length + 1,
          bytesAppendedByLoad: afterLoad.subarray(before.length).toString(),
          earlierBytesUnchanged: afterLoad.subarray(0, before.length).equals(before),
          lineKindsAfterAppend: final.filter((l) => l).map((l) => kindOf(readJsonlLine(l))),
          valuesReadAfterAppend: loadEntriesFromFile(torn).length,
        },
        completeLastLineWithoutNewline: {
          valuesRead: completeRead.length,
          bytesAppendedByLoad: readFileSync(complete).subarray(Buffer.byteLength(lines.join("\n"))).toString(),
        },
      },
    };
  });
}
function readJsonlLine(line) {
  try {
    return JSON.parse(line);
  } catch {
    return { malformed: line };
  }
}

async function migrationRewritesFile() {
  return inTmp((tmp) => {
    const result = {};
    for (const name of ["v1-session", "v2-hook", "compaction-with-system"]) {
      const copy = join(tmp, `${name}.jsonl`);
      copyFileSync(join(AUDIT, `${name}.jsonl`), copy);
      const before = readFileSync(copy);
      const beforeLines = readJsonl(copy);
      SessionManager.open(copy, tmp);
      const after = readJsonl(copy);
      const entries = after.slice(1);
      const out = {
        fileRewritten: !readFileSync(copy).equals(before),
        versionBefore: beforeLines[0].version ?? null,
        versionAfter: after[0].version ?? null,
      };
      if (name === "v1-session") {
        out.idsAre8Hex = entries.every((e) => HEX8.test(e.id));
        out.parentIsPreviousLine = entries.every((e, i) => e.parentId === (i === 0 ? null : entries[i - 1].id));
        const compaction = entries.find((e) => e.type === "compaction");
        out.firstKeptEntryIndexLeft = "firstKeptEntryIndex" in compaction;
        const kept = entries.find((e) => e.id === compaction.firstKeptEntryId);
        out.firstKeptEntryIndexWas = beforeLines.find((e) => e.type === "compaction").firstKeptEntryIndex;
        out.firstKeptEntryIdNames = kept.message.content[0].text;
      }
      if (name === "v2-hook") {
        out.idsUnchanged = JSON.stringify(entries.map((e) => e.id)) === JSON.stringify(beforeLines.slice(1).map((e) => e.id));
        out.kindsBefore = beforeLines.slice(1).map(kindOf);
        out.kindsAfter = entries.map(kindOf);
      }
      result[name] = out;
    }
    return {
      kind: "run",
      what: "Opening version 1, 2 and 3 files with SessionManager.open: is the file itself changed?",
      calls: ["SessionManager.open"],
      result,
    };
  });
}

// --- scenarios: where files live --------------------------------------------------------

async function location() {
  const config = await load("config.js");
  return inTmp(async (tmp) => {
    const agentDir = join(tmp, "agent");
    const saved = process.env.PI_CODING_AGENT_DIR;
    try {
      delete process.env.PI_CODING_AGENT_DIR;
      const defaultAgentDir = config.getAgentDir();
      process.env.PI_CODING_AGENT_DIR = agentDir;
      const m = SessionManager.create("/home/reader/projects/demo-app");
      m.appendMessage(user("question"));
      m.appendMessage(assistant("answer"));
      const file = m.getSessionFile();
      const header = readJsonl(file)[0];
      return {
        kind: "run",
        what: "Where SessionManager.create puts a new session, with PI_CODING_AGENT_DIR set, and the agent folder without it.",
        calls: ["getAgentDir", "SessionManager.create"],
        result: {
          defaultAgentDir,
          defaultAgentDirIsHomeDotPiAgent: defaultAgentDir === join(HOME, ".pi", "agent"),
          agentDirFromEnvironment: config.getAgentDir(),
          sessionFile: relative(agentDir, file),
          header: { id: header.id, timestamp: header.timestamp, cwd: header.cwd },
          fileNameIsTimestampAndId:
            basename(file) === `${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`,
          sessionsRoot: relative(agentDir, config.getSessionsDir()),
        },
      };
    } finally {
      if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
      else process.env.PI_CODING_AGENT_DIR = saved;
    }
  });
}

const POSIX_CWDS = [
  "/home/reader/projects/demo-app",
  "/home/reader/projects/demo-app/",
  "/",
  "/srv/data:2026/app",
  "/home/reader/my project",
];
const WINDOWS_CWDS = ["C:\\work\\api", "C:\\work\\api\\", "C:/Users/ana/code", "\\\\server\\share\\repo", "D:\\", "C:\\data:2026\\app"];

async function folderNames() {
  const posix = await inTmp((tmp) =>
    Object.fromEntries(POSIX_CWDS.map((cwd) => [cwd, basename(getDefaultSessionDir(cwd, join(tmp, "agent")))])),
  );
  const child = spawnSync(
    process.execPath,
    ["--import", pathToFileURL(join(HERE, "audit-win32.mjs")).href, join(HERE, "audit.mjs"), "--win32-folders"],
    { encoding: "utf8", env: process.env },
  );
  if (child.status !== 0) throw new Error(`win32 folder child failed:\n${child.stderr}`);
  return {
    kind: "run",
    what: "getDefaultSessionDir(cwd, agentDir): the folder name Pi derives from a working directory, with Node's POSIX paths and with path.win32 as on Windows.",
    calls: ["getDefaultSessionDir"],
    code: [codeLine("core/session-manager.js", "const safePath = `--${resolvedCwd")],
    result: { posix, windows: JSON.parse(child.stdout) },
  };
}

function win32Folders() {
  // Runs in the child started with audit-win32.mjs: Pi's session-manager.js sees path.win32.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "pi-audit-win32-")));
  const previous = process.cwd();
  process.chdir(dir); // getDefaultSessionDir creates the (Windows-named) folder relative to here
  try {
    const out = {};
    for (const cwd of WINDOWS_CWDS) {
      const folder = getDefaultSessionDir(cwd, "C:\\Users\\reader\\.pi\\agent");
      out[cwd] = folder.slice(folder.lastIndexOf("\\") + 1);
    }
    process.stdout.write(JSON.stringify(out));
  } finally {
    process.chdir(previous);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sessionDirPrecedence() {
  const config = await load("config.js");
  const paths = await load("utils/paths.js");
  const statement = codeLine("main.js", "const sessionDir = (parsed.sessionDir");
  const source = piText("main.js").split("\n");
  let text = "";
  for (let i = statement.line - 1; i < source.length; i++) {
    text += `${source[i].trim()} `;
    if (source[i].trim().endsWith(";")) break;
  }
  const expression = text.replace(/^const sessionDir = /, "").replace(/;\s*$/, "");
  const evaluate = new Function(
    "parsed",
    "envSessionDir",
    "startupSettingsManager",
    "normalizePath",
    "expandTildePath",
    `return ${expression};`,
  );
  const cases = [];
  for (const cli of [undefined, "/from/cli"]) {
    for (const env of [undefined, "/from/env"]) {
      for (const setting of [undefined, "/from/settings"]) {
        const chosen = evaluate({ sessionDir: cli }, env, { getSessionDir: () => setting }, paths.normalizePath, config.expandTildePath);
        cases.push({ cli: cli ?? null, env: env ?? null, setting: setting ?? null, chosen: chosen ?? null });
      }
    }
  }
  return {
    kind: "code",
    what: "main.js picks the sessions root from --session-dir, PI_CODING_AGENT_SESSION_DIR and the sessionDir setting; the expression is evaluated as written in Pi's file (the CLI itself needs Node 22).",
    code: [codeLine("main.js", "const envSessionDir = process.env[ENV_SESSION_DIR]"), { ...statement, text: text.trim() }],
    result: { environmentVariable: config.ENV_SESSION_DIR, cases },
  };
}

async function deletion() {
  return inTmp(async (tmp) => {
    const folder = join(tmp, "sessions");
    const cwd = join(tmp, "project");
    const files = [];
    for (const text of ["first", "second"]) {
      const m = SessionManager.create(cwd, folder);
      m.appendMessage(user(`${text} session`));
      m.appendMessage(assistant("ok"));
      files.push(m.getSessionFile());
    }
    const before = (await SessionManager.list(cwd, folder)).map((s) => s.firstMessage).sort();
    unlinkSync(files[0]);
    const after = (await SessionManager.list(cwd, folder)).map((s) => s.firstMessage).sort();
    return {
      kind: "run",
      what: "Two sessions in a folder; one .jsonl file deleted; what SessionManager.list (the /resume picker's source) shows.",
      calls: ["SessionManager.create", "SessionManager.list"],
      code: [
        codeLine("modes/interactive/components/session-selector.js", "Delete a session file, trying the `trash` CLI first"),
        codeLine("modes/interactive/components/session-selector.js", 'spawnSync("trash"'),
      ],
      result: { listedBefore: before, listedAfter: after },
    };
  });
}

// --- scenarios: versions, header, ids, types --------------------------------------------

function versions() {
  const result = { currentVersion: sessionManager.CURRENT_SESSION_VERSION };
  for (const name of ["v1-session", "v2-hook", "v3-stray-hook"]) {
    const values = readJsonl(join(AUDIT, `${name}.jsonl`));
    const before = JSON.stringify(values);
    migrateSessionEntries(values);
    result[name] = {
      versionAfter: values[0].version,
      changed: JSON.stringify(values) !== before,
      kinds: values.slice(1).map(kindOf),
    };
  }
  return {
    kind: "run",
    what: "migrateSessionEntries (what Pi runs on load) on a version 1, a version 2 and a version 3 file.",
    calls: ["migrateSessionEntries"],
    result,
  };
}

async function header() {
  return inTmp((tmp) => {
    const m = SessionManager.create(join(tmp, "project"), join(tmp, "sessions"));
    m.appendMessage(user("question"));
    m.appendMessage(assistant("answer"));
    const lines = readJsonl(m.getSessionFile());
    const dts = readFileSync(join(PI_PATHS.agent, "dist", "core", "session-manager.d.ts"), "utf8");
    return {
      kind: "run",
      what: "The first line of a new session file, and whether the header takes part in the tree.",
      calls: ["SessionManager.create", "appendMessage", "getEntries", "getTree"],
      result: {
        headerKeys: Object.keys(lines[0]),
        headerIdIsUuidV7: UUID7.test(lines[0].id),
        headerHasParentId: "parentId" in lines[0],
        firstEntryParentId: lines[1].parentId,
        headerAmongEntries: m.getEntries().some((e) => e.type === "session"),
        treeRoots: m.getTree().map((n) => kindOf(n.entry)),
        headerInterface: interfaceFields(dts, "SessionHeader"),
      },
    };
  });
}

function entryIds() {
  const m = SessionManager.inMemory("/work/audit");
  const usual = [m.appendMessage(user("one")), m.appendMessage(assistant("two")), m.appendMessage(user("three"))];
  fixedUuid = "abcdef01-2345-4678-9abc-def012345678"; // every randomUUID() call now collides
  const colliding = SessionManager.inMemory("/work/audit");
  const first = colliding.appendMessage(user("one"));
  const second = colliding.appendMessage(user("two"));
  fixedUuid = null;
  return {
    kind: "run",
    what: "Entry ids from appendMessage, and what Pi's generateId does after 100 collisions (randomUUID forced to repeat one value).",
    calls: ["appendMessage (generateId)"],
    code: [codeLine("core/session-manager.js", "const id = randomUUID().slice(0, 8);"), codeLine("core/session-manager.js", "// Fallback to full UUID")],
    result: {
      usualIds: usual,
      usualAre8Hex: usual.every((id) => HEX8.test(id)),
      afterCollisions: [first, second],
      fallbackIsFullUuid: UUID.test(second),
    },
  };
}

function entryTypes() {
  const m = SessionManager.inMemory("/work/audit");
  const u = m.appendMessage(user("question"));
  m.appendThinkingLevelChange("high");
  m.appendModelChange("audit", "audit-model");
  const a = m.appendMessage(assistant("answer"));
  m.appendUsage("cache_warm", "audit", "audit-model", usage(0, 1, 0.001, 500));
  m.appendCustomEntry("todo", { open: 1 });
  m.appendCustomMessageEntry("note", "text for the model", true);
  m.appendContextEdit(a, { content: "shorter answer" });
  m.appendLabelChange(u, "start");
  m.appendSessionInfo("Audit session");
  m.appendCompaction("summary", u, 1000);
  m.branchWithSummary(u, "the branch that was left");
  const written = [...new Set(m.getEntries().map((e) => e.type))];
  const dts = readFileSync(join(PI_PATHS.agent, "dist", "core", "session-manager.d.ts"), "utf8");
  const union = dts.match(/export type SessionEntry = ([^;]+);/)[1].split("|").map((s) => s.trim());
  const declared = union.map((member) => {
    const literal = dts.match(new RegExp(`export interface ${member}(?:<[^>]*>)? extends SessionEntryBase \\{\\s*type: "([^"]+)"`));
    return literal ? literal[1] : member;
  });
  return {
    kind: "run",
    what: "Every append method of SessionManager called once: which entry types does Pi write? And the SessionEntry union of its type declarations.",
    calls: [
      "appendMessage",
      "appendThinkingLevelChange",
      "appendModelChange",
      "appendUsage",
      "appendCustomEntry",
      "appendCustomMessageEntry",
      "appendContextEdit",
      "appendLabelChange",
      "appendSessionInfo",
      "appendCompaction",
      "branchWithSummary",
    ],
    result: { written, declared },
  };
}

// --- scenarios: context rules -------------------------------------------------------------

/** Pi's reading of one audit file at a leaf: context, provider messages, system prompt. */
function readAudit(name, leaf) {
  const values = loadEntriesFromFile(join(AUDIT, `${name}.jsonl`));
  migrateSessionEntries(values);
  const entries = values.filter((e) => e.type !== "session");
  const context = buildSessionContext(entries, leaf ?? undefined);
  return { leaf: leaf ?? null, context, llm: convertToLlm(context.messages), systemPrompt: getCurrentSystemPrompt(context.messages) };
}
const roles = (messagesList) => messagesList.map((m) => m.role);

function compactionSystemMessages() {
  const out = {};
  for (const name of ["compaction-with-system", "compaction-without-system", "compaction-system-after"]) {
    const { context, systemPrompt } = readAudit(name);
    out[name] = { roles: roles(context.messages), systemPrompt };
  }
  return {
    kind: "run",
    what: "buildSessionContext on three files: a system message inside the kept range, with and without the compaction's systemMessage, and one after the compaction.",
    calls: ["buildSessionContext", "getCurrentSystemPrompt"],
    code: [codeLine("core/session-manager.js", 'if (foundFirstKept && !(entry.type === "message" && entry.message.role === "system"))')],
    result: out,
  };
}

function compactionFields() {
  const dts = readFileSync(join(PI_PATHS.agent, "dist", "core", "session-manager.d.ts"), "utf8");
  const plain = SessionManager.inMemory("/work/audit");
  const u = plain.appendMessage(user("question"));
  plain.appendMessage(assistant("answer"));
  const ownId = plain.appendCompaction("summary of the question", undefined, 1200);
  const withoutPrompt = JSON.parse(JSON.stringify(plain.getEntry(ownId)));
  const prompted = SessionManager.inMemory("/work/audit");
  prompted.appendMessage(systemMessage({ preamble: "You are a careful assistant." }, ["read"]));
  prompted.appendMessage(user("question"));
  prompted.appendMessage(assistant("answer"));
  const id = prompted.appendCompaction("summary", u, 1200);
  const withPrompt = JSON.parse(JSON.stringify(prompted.getEntry(id)));
  return {
    kind: "run",
    what: "appendCompaction with and without a system message in the context, and the CompactionEntry type.",
    calls: ["appendCompaction"],
    result: {
      declared: interfaceFields(dts, "CompactionEntry"),
      noSystemMessageInContext: {
        keys: Object.keys(withoutPrompt),
        firstKeptEntryIdIsOwnId: withoutPrompt.firstKeptEntryId === ownId,
      },
      systemMessageInContext: {
        keys: Object.keys(withPrompt),
        systemMessage: { role: withPrompt.systemMessage.role, sections: Object.keys(withPrompt.systemMessage.sections ?? {}), tools: (withPrompt.systemMessage.toolsAdded ?? []).map((t) => t.name) },
      },
    },
  };
}

function retainedTail() {
  const withTail = readAudit("compaction-retained-tail");
  const without = readAudit("compaction-with-system");
  const dts = readFileSync(join(PI_PATHS.agent, "dist", "core", "session-manager.d.ts"), "utf8");
  return {
    kind: "run",
    what: "The same file with and without a retainedTail field on its compaction.",
    calls: ["buildSessionContext", "convertToLlm"],
    result: {
      contextsEqual: JSON.stringify(withTail.context) === JSON.stringify(without.context),
      llmEqual: JSON.stringify(withTail.llm) === JSON.stringify(without.llm),
      declaredAnywhere: dts.includes("retainedTail"),
    },
  };
}

function settingsSources() {
  const at = (leaf) => {
    const { context } = readAudit("settings", leaf);
    return { thinkingLevel: context.thinkingLevel, model: context.model };
  };
  return {
    kind: "run",
    what: "buildSessionContext on data/audit/settings.jsonl at three leaves: after a model_change only, after an assistant message from another model, and on a branch without the thinking_level_change.",
    calls: ["buildSessionContext"],
    code: [codeBlock("core/session-manager.js", "function getSessionContextSettings(path)", 14)],
    result: { u1: at("u1"), a1: at("a1"), u2: at("u2") },
  };
}

function settingsWrittenByPi() {
  const samples = {};
  for (const name of readdirSync(SAMPLES).filter((n) => n.startsWith("pi-0.87.1-") && n.endsWith(".jsonl")).sort()) {
    const lines = readJsonl(join(SAMPLES, name));
    samples[name] = lines.slice(1, 4).map(kindOf);
  }
  return {
    kind: "pi-file",
    what: "The first entries of the two files Pi 0.87.1's CLI wrote (data/samples), and the sdk.js code that writes them.",
    code: [codeBlock("core/sdk.js", "// Restore missing settings metadata for older sessions.", 12)],
    result: { firstEntries: samples },
  };
}

async function usageScenario() {
  // Where Pi writes usage entries: every call of appendUsage in its dist files.
  const calls = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, name.name);
      if (name.isDirectory()) walk(p);
      else if (name.name.endsWith(".js")) {
        piText(relative(join(PI_PATHS.agent, "dist"), p))
          .split("\n")
          .forEach((line, i) => {
            const match = line.match(/\.appendUsage\(([^,]+),/);
            if (match) calls.push({ file: `pi-coding-agent/dist/${relative(join(PI_PATHS.agent, "dist"), p)}`, line: i + 1, kind: match[1].trim() });
          });
      }
    }
  };
  walk(join(PI_PATHS.agent, "dist"));

  // The one writer, run: a cache warming refresh appends a usage entry.
  const { CacheWarmer } = await load("core/cache-warmer.js");
  const m = SessionManager.inMemory("/work/audit");
  m.appendMessage(user("question"));
  m.appendMessage({ ...assistant("answer"), usage: usage(100000, 20, 0.3) });
  const model = {
    id: "audit-model",
    provider: "audit",
    api: "openai-completions",
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    promptCache: { short: 300 },
  };
  const models = {
    streamSimple: () => ({
      result: async () => ({ role: "assistant", provider: "audit", model: "audit-model", usage: usage(0, 1, 0.03, 100000), stopReason: "stop", content: [] }),
    }),
  };
  const warmer = new CacheWarmer(models, m, () => "streaming");
  warmer.start({ model, context: { messages: [] }, options: {} }, () => true);
  await warmer.refresh(warmer.run);
  warmer.cancel();
  const warm = m.getEntries().filter((e) => e.type === "usage").map((e) => ({ kind: e.kind, provider: e.provider, model: e.model, keys: jsonKeys(e) }));

  // Totals: AgentSession.getSessionStats over the entries of usage-kinds.jsonl.
  const totals = await load("core/usage-totals.js");
  const getSessionStats = piMethod("core/agent-session.js", "getSessionStats", {
    createUsageTotals: totals.createUsageTotals,
    addUsageToTotals: totals.addUsageToTotals,
  });
  const stats = (entries) => {
    const manager = SessionManager.inMemory("/work/audit", undefined, entries);
    const s = getSessionStats.method.call({ sessionManager: manager, sessionFile: undefined, sessionId: "usage-kinds", getContextUsage: () => undefined });
    return { tokens: s.tokens, cost: s.cost, assistantMessages: s.assistantMessages };
  };
  const all = loadEntriesFromFile(join(AUDIT, "usage-kinds.jsonl"));
  const { context } = readAudit("usage-kinds");
  return {
    kind: "run",
    what: "Which code writes usage entries (and with which kind), a cache-warming refresh run, getSessionStats over usage entries of a known and an unknown kind, and the context of that file.",
    calls: ["CacheWarmer.refresh", "AgentSession.getSessionStats (as written, with usage-totals.js)", "buildSessionContext"],
    code: [
      codeLine("modes/interactive/components/tree-selector.js", 'if (entry.type === "usage")'),
      codeLine("core/agent-session.js", "    getSessionStats() {"),
    ],
    result: {
      appendUsageCalls: calls,
      cacheWarmingWrote: warm,
      totals: stats(all),
      totalsWithoutTheUnknownKind: stats(all.filter((e) => e.kind !== "invented-by-an-extension")),
      contextRoles: roles(context.messages),
    },
  };
}

function contextEdits() {
  const m = SessionManager.inMemory("/work/audit");
  const u = m.appendMessage(user("read the log"));
  const a = m.appendMessage(assistant("I will read it."));
  const t = m.appendMessage({ role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "long log" }], isError: false, timestamp: 1767607202000 });
  const s = m.appendMessage(systemMessage({ rules: "Be brief." }));
  const c = m.appendCustomMessageEntry("note", "a note", true);
  const targetsBefore = JSON.stringify([u, a, t, c].map((id) => m.getEntry(id)));
  const contextBefore = m.buildSessionContext();
  const stored = {};
  const errors = {};
  for (const [name, id] of [["user", u], ["assistant", a], ["toolResult", t], ["custom_message", c], ["system", s]]) {
    try {
      stored[name] = m.getEntry(m.appendContextEdit(id, { content: `shorter ${name}` })).replacement;
    } catch (err) {
      errors[name] = err.message.replace(id, "<id>");
    }
  }
  m.appendContextEdit(a, null);
  const contextAfter = m.buildSessionContext();
  const contentOf = (ctx, role) => ctx.messages.filter((msg) => msg.role === role).map((msg) => msg.content);
  // An entry that is not on the active branch cannot be edited.
  m.branch(u);
  try {
    m.appendContextEdit(t, { content: "x" });
  } catch (err) {
    errors.offBranch = err.message.replace(t, "<id>");
  }
  const file = readAudit("context-edits");
  return {
    kind: "run",
    what: "appendContextEdit on each kind of target, then buildSessionContext; and Pi's reading of data/audit/context-edits.jsonl (two edits of one target, a null replacement, a string for a user message).",
    calls: ["appendContextEdit", "buildSessionContext"],
    result: {
      storedReplacement: stored,
      refused: errors,
      targetsUnchanged: JSON.stringify([u, a, t, c].map((id) => m.getEntry(id))) === targetsBefore,
      rolesBefore: roles(contextBefore.messages),
      rolesAfter: roles(contextAfter.messages),
      contentAfter: { user: contentOf(contextAfter, "user"), toolResult: contentOf(contextAfter, "toolResult"), custom: contentOf(contextAfter, "custom") },
      file: { roles: roles(file.context.messages), contents: file.context.messages.map((msg) => msg.content) },
    },
  };
}

function labels() {
  const entries = loadEntriesFromFile(join(AUDIT, "labels.jsonl"));
  const m = SessionManager.inMemory("/work/audit", undefined, entries);
  const targets = ["u1", "a1", "u2"];
  const fromFile = Object.fromEntries(targets.map((id) => [id, m.getLabel(id) ?? null]));
  const fresh2 = SessionManager.inMemory("/work/audit");
  const u = fresh2.appendMessage(user("question"));
  fresh2.appendLabelChange(u, "start");
  const cleared = fresh2.getEntry(fresh2.appendLabelChange(u, undefined));
  return {
    kind: "run",
    what: "getLabel after loading data/audit/labels.jsonl (labels set, replaced, and cleared with null, an empty string and a missing field), and the entry appendLabelChange writes to clear one.",
    calls: ["SessionManager.inMemory", "getLabel", "appendLabelChange"],
    code: [codeBlock("core/session-manager.js", 'if (entry.type === "label") {', 10)],
    result: { labels: fromFile, clearingEntryKeys: jsonKeys(cleared), labelAfterClearing: fresh2.getLabel(u) ?? null },
  };
}

function contentBlocks() {
  const blocks = {};
  for (const name of readdirSync(SAMPLES).filter((n) => n.startsWith("pi-0.87.1-") && n.endsWith(".jsonl")).sort()) {
    for (const entry of readJsonl(join(SAMPLES, name))) {
      const content = entry.message?.content;
      if (entry.type !== "message") continue;
      if (!Array.isArray(content)) {
        const key = `${entry.message.role}: ${typeof content}`;
        blocks[key] ??= [];
        continue;
      }
      for (const block of content) {
        const key = `${entry.message.role}: ${block.type}`;
        blocks[key] = [...new Set([...(blocks[key] ?? []), ...Object.keys(block)])].sort();
      }
    }
  }
  const types = readFileSync(join(PI_PATHS.ai, "dist", "types.d.ts"), "utf8");
  const declared = Object.fromEntries(
    ["TextContent", "ThinkingContent", "ImageContent", "ToolCall", "UserMessage"].map((n) => [n, interfaceFields(types, n)]),
  );
  const { context, llm } = readAudit("user-string-content");
  return {
    kind: "pi-file",
    what: "Content blocks in the files Pi's CLI wrote (role: block type -> keys), pi-ai's declared content types, and Pi's reading of a user message whose content is a plain string.",
    calls: ["buildSessionContext", "convertToLlm"],
    result: {
      inPiFiles: Object.fromEntries(Object.entries(blocks).sort()),
      declared,
      stringUserContent: { context: context.messages[0].content, llm: llm[0].content },
    },
  };
}

function rolesScenario() {
  const input = [
    { role: "system", content: "", sections: { preamble: "Be careful." }, timestamp: 1 },
    { role: "user", content: "plain string", timestamp: 2 },
    { role: "user", content: [{ type: "text", text: "blocks" }], timestamp: 3 },
    { role: "assistant", content: [{ type: "text", text: "answer" }], timestamp: 4 },
    { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "file" }], isError: false, timestamp: 5 },
    { role: "bashExecution", command: "make", output: "ok", exitCode: 0, cancelled: false, truncated: false, timestamp: 6 },
    { role: "bashExecution", command: "git status", output: "clean", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 7 },
    { role: "custom", customType: "note", content: "custom string", display: true, timestamp: 8 },
    { role: "custom", customType: "note", content: [{ type: "text", text: "custom blocks" }], display: false, timestamp: 9 },
    { role: "branchSummary", summary: "left branch", fromId: "x", timestamp: 10 },
    { role: "compactionSummary", summary: "older part", tokensBefore: 10, timestamp: 11 },
    { role: "hookMessage", content: "old role", timestamp: 12 },
  ];
  const output = input.map((message) => {
    const out = convertToLlm([message]);
    return { input: message, becomes: out.length ? out[0] : null };
  });
  return {
    kind: "run",
    what: "convertToLlm on one message of every role.",
    calls: ["convertToLlm"],
    result: { messages: output },
  };
}

function bashExclusion() {
  const { context, llm } = readAudit("bash-exclusion");
  return {
    kind: "run",
    what: "buildSessionContext and convertToLlm on data/audit/bash-exclusion.jsonl (a failing command, a !! command excluded from context, a cancelled command).",
    calls: ["buildSessionContext", "convertToLlm"],
    code: [codeLine("core/messages.js", "if (m.excludeFromContext)")],
    result: {
      contextRoles: roles(context.messages),
      excludedInContext: context.messages.filter((m) => m.excludeFromContext).length,
      llmRoles: roles(llm),
      llmTexts: llm.filter((m) => m.role === "user").map((m) => m.content[0].text ?? m.content),
    },
  };
}

function systemPromptReplay() {
  const { context, systemPrompt } = readAudit("system-deltas");
  const current = getCurrentSystemMessage(context.messages);
  const sample = readJsonl(join(SAMPLES, "pi-0.87.1-a-print-multiturn-tools.jsonl"));
  const systems = sample.filter((e) => e.type === "message" && e.message.role === "system").map((e) => ({
    content: e.message.content,
    sections: Object.keys(e.message.sections ?? {}),
    toolsAdded: (e.message.toolsAdded ?? []).map((t) => t.name),
    toolsRemoved: (e.message.toolsRemoved ?? []).map((t) => t.name),
  }));
  return {
    kind: "run",
    what: "getCurrentSystemMessage / getCurrentSystemPrompt on data/audit/system-deltas.jsonl, and the system messages of a file Pi's CLI wrote.",
    calls: ["buildSessionContext", "getCurrentSystemMessage", "getCurrentSystemPrompt"],
    result: {
      sections: current.sections,
      tools: current.toolsAdded.map((t) => t.name),
      prompt: systemPrompt,
      piFileSystemMessages: systems,
      piFileEntryTypes: [...new Set(sample.slice(1).map((e) => e.type))].sort(),
    },
  };
}

// --- scenarios added for issue 27 -----------------------------------------------------------

/** Every file below `dir`, relative to it, sorted. */
function filesBelow(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort().map((p) => p.replace(/\d{4}-\d\d-\d\dT[\d-]+Z_[0-9a-f-]+\.jsonl$/, "<timestamp>_<session-id>.jsonl"));
}

async function customSessionDir() {
  return inTmp(async (tmp) => {
    const custom = join(tmp, "my-sessions");
    const cwds = [join(tmp, "project-a"), join(tmp, "project-b")];
    const files = {};
    for (const cwd of cwds) {
      const m = SessionManager.create(cwd, custom);
      m.appendMessage(user(`question in ${basename(cwd)}`));
      m.appendMessage(assistant("ok"));
      files[basename(cwd)] = relative(custom, m.getSessionFile());
    }
    const listed = (await SessionManager.list(cwds[0], custom)).map((s) => s.firstMessage);
    const recent = SessionManager.continueRecent(cwds[1], custom);
    return {
      kind: "run",
      what: "Two projects' sessions created with one custom session folder (what --session-dir, PI_CODING_AGENT_SESSION_DIR or sessionDir give SessionManager.create), then SessionManager.list and continueRecent for one project.",
      calls: ["SessionManager.create", "SessionManager.list", "SessionManager.continueRecent"],
      code: [
        codeLine("core/session-manager.js", "const dir = sessionDir ? normalizePath(sessionDir) : getDefaultSessionDir(cwd);"),
        codeLine("core/session-manager.js", "const filterCwd = sessionDir !== undefined && "),
        codeLine("core/session-manager.js", "const includeSession = (session) => !filterCwd"),
      ],
      result: {
        filesInCustomFolder: filesBelow(custom),
        sessionFileRelativeToFolder: files,
        listedForProjectA: listed,
        continueRecentForProjectB: { cwd: recent.getCwd(), firstMessage: recent.getEntries().find((e) => e.type === "message")?.message.content[0].text ?? null },
      },
    };
  });
}

async function noIndex() {
  return inTmp(async (tmp) => {
    const agentDir = join(tmp, "agent");
    const saved = process.env.PI_CODING_AGENT_DIR;
    try {
      process.env.PI_CODING_AGENT_DIR = agentDir;
      for (const cwd of ["/home/reader/projects/demo-app", "/home/reader/projects/other"]) {
        const m = SessionManager.create(cwd);
        m.appendMessage(user("question"));
        m.appendMessage(assistant("answer"));
        m.branch(m.getEntries()[0].id);
        m.appendMessage(assistant("another answer"));
      }
      const listed = (await SessionManager.list("/home/reader/projects/demo-app")).length;
      const all = (await SessionManager.listAll()).length;
      SessionManager.continueRecent("/home/reader/projects/demo-app");
      return {
        kind: "run",
        what: "Two projects with a branched session each, listed, listed across projects and resumed, with PI_CODING_AGENT_DIR in a temporary folder: every file Pi left in the agent folder.",
        calls: ["SessionManager.create", "SessionManager.branch", "SessionManager.list", "SessionManager.listAll", "SessionManager.continueRecent"],
        result: { filesInAgentFolder: filesBelow(agentDir), listed, listedAll: all },
      };
    } finally {
      if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
      else process.env.PI_CODING_AGENT_DIR = saved;
    }
  });
}

async function lineValues() {
  return inTmp((tmp) => {
    const header = readFileSync(join(AUDIT, "settings.jsonl"), "utf8").split("\n")[0];
    const lines = ["[]", "{}", "0", "false", "null", '""', '"text"', "1", "true", '{"no":"type"}', "[1,2]", "   ", "{not json"];
    const file = join(tmp, "values.jsonl");
    writeFileSync(file, `${header}\n${lines.join("\n")}\n`);
    const kept = loadEntriesFromFile(file).slice(1).map((v) => JSON.stringify(v));
    let opened;
    try {
      const m = SessionManager.open(file, tmp);
      opened = { entries: m.getEntries().length, contextMessages: m.buildSessionContext().messages.length };
    } catch (err) {
      opened = { error: err.message.replace(tmp, "<tmp>") };
    }
    return {
      kind: "run",
      what: "loadEntriesFromFile on a header followed by lines holding JSON values that are not entries, a blank line and a malformed one: which values does Pi keep?",
      calls: ["loadEntriesFromFile", "SessionManager.open"],
      code: [codeBlock("core/session-manager.js", "function parseSessionEntryLine(line)", 10)],
      result: { lines, kept, opened },
    };
  });
}

async function forkDetails() {
  return inTmp((tmp) => {
    const folder = join(tmp, "sessions");
    const m = SessionManager.create(join(tmp, "project"), folder);
    const u1 = m.appendMessage(user("first question"));
    const a1 = m.appendMessage(assistant("first answer"));
    const label = m.appendLabelChange(u1, "start");
    const u2 = m.appendMessage(user("second question"));
    const a2 = m.appendMessage(assistant("second answer"));
    m.branch(a1);
    m.appendMessage(user("a question on another branch"));
    const original = m.getSessionFile();
    const originalEntries = readJsonl(original).slice(1);
    const byId = new Map(originalEntries.map((e) => [e.id, e]));

    // /fork or /clone at a2: createBranchedSession copies the path root..a2.
    const forked = SessionManager.open(original, folder).createBranchedSession(a2);
    const forkedEntries = readJsonl(forked).slice(1);
    const relinked = forkedEntries
      .filter((e) => byId.has(e.id) && byId.get(e.id).parentId !== e.parentId)
      .map((e) => ({ id: e.id, parentIdWas: byId.get(e.id).parentId, parentIdNow: e.parentId }));

    // A fork whose copied path holds no assistant message yet: createBranchedSession(u1).
    const early = SessionManager.open(original, folder);
    const earlyFile = early.createBranchedSession(u1);

    // /fork on the first user message of a file Pi's CLI wrote: runtime.fork (position
    // "before") branches at that message's parent, which is the system message, not null.
    const sample = join(tmp, "sample.jsonl");
    copyFileSync(join(SAMPLES, "pi-0.87.1-a-print-multiturn-tools.jsonl"), sample);
    const piFile = SessionManager.open(sample, folder);
    const firstUser = piFile.getEntries().find((e) => e.type === "message" && e.message.role === "user");
    const targetLeafId = firstUser.parentId;
    const piFileFork = targetLeafId ? piFile.createBranchedSession(targetLeafId) : undefined;

    // pi --fork: forkFrom copies every entry line of every branch.
    const copied = SessionManager.forkFrom(original, join(tmp, "other"), join(tmp, "other-sessions")).getSessionFile();
    const copiedEntries = readJsonl(copied).slice(1);
    return {
      kind: "run",
      what: "A session with a label in the middle of the path and a second branch: createBranchedSession (/fork, /clone) to the end of the first branch and to the first user message, and SessionManager.forkFrom (pi --fork); runtime.fork's code, and what it branches at for /fork on the first user message of a file Pi's CLI wrote.",
      calls: ["SessionManager.open", "createBranchedSession", "SessionManager.forkFrom"],
      code: [
        codeLine("core/agent-session-runtime.js", "targetLeafId = selectedEntry.parentId;"),
        codeBlock("core/agent-session-runtime.js", "if (!targetLeafId) {", 3),
        codeLine("core/session-manager.js", "// Filter out LabelEntry from path"),
      ],
      result: {
        originalKinds: originalEntries.map(kindOf),
        forkKinds: forkedEntries.map(kindOf),
        relinked,
        labelIdChanged: !forkedEntries.some((e) => e.id === label),
        labelsLast: forkedEntries.at(-1).type === "label",
        branchSummaryInFork: forkedEntries.some((e) => e.type === "branch_summary"),
        branchSummaryInOriginal: readJsonl(original).some((e) => e.type === "branch_summary"),
        uncopiedBranchLeft: !forkedEntries.some((e) => e.type === "message" && e.message.content[0].text === "a question on another branch"),
        forkAtFirstUserMessage: { fileWritten: existsSync(earlyFile), kindsInMemory: early.getEntries().map(kindOf) },
        forkBeforeFirstUserMessageOfPiFile: {
          firstUserMessageIsRoot: firstUser.parentId === null,
          targetLeafKind: kindOf(piFile.getEntry(targetLeafId) ?? { type: "none" }),
          kindsInMemory: piFile.getEntries().map(kindOf),
          fileWritten: piFileFork !== undefined && existsSync(piFileFork),
        },
        forkFrom: { entries: copiedEntries.length, originalEntries: originalEntries.length, allBranchesCopied: JSON.stringify(copiedEntries) === JSON.stringify(originalEntries) },
      },
    };
  });
}

async function openInPlace() {
  return inTmp((tmp) => {
    const empty = join(tmp, "empty.jsonl");
    writeFileSync(empty, "");
    SessionManager.open(empty, tmp);
    const emptyAfter = readJsonl(empty).map(kindOf);
    const copy = join(tmp, "v1.jsonl");
    copyFileSync(join(AUDIT, "v1-session.jsonl"), copy);
    const inode = statSync(copy).ino;
    SessionManager.open(copy, tmp);
    const notSession = join(tmp, "not-a-session.jsonl");
    writeFileSync(notSession, "not json\n");
    let refused = null;
    try {
      SessionManager.open(notSession, tmp);
    } catch (err) {
      refused = err.message.replace(tmp, "<tmp>");
    }
    return {
      kind: "run",
      what: "SessionManager.open on an existing empty file, on a version 1 file (is the rewrite in place?), and on a file whose lines are not JSON.",
      calls: ["SessionManager.open"],
      code: [codeBlock("core/session-manager.js", "_rewriteFile() {", 12)],
      result: {
        emptyFileAfterOpen: emptyAfter,
        migrationKeepsTheSameFile: statSync(copy).ino === inode,
        rewriteOpensWithTruncation: piText("core/session-manager.js").includes('const fd = openSync(this.sessionFile, "w");'),
        notASession: refused,
      },
    };
  });
}

function entryOrder() {
  const m = SessionManager.inMemory("/work/audit");
  const u1 = m.appendMessage(user("first question"));
  m.appendMessage(assistant("first answer"));
  m.appendMessage(user("second question"));
  m.branch(u1);
  const other = m.appendMessage(assistant("another answer"));
  m.resetLeaf();
  const root2 = m.appendMessage(user("a second root"));
  const entries = m.getEntries();
  const order = entries.map((e, i) => ({
    id: e.id,
    parentId: e.parentId,
    parentIsPreviousLine: e.parentId === (i === 0 ? null : entries[i - 1].id),
  }));
  // Timestamps that disagree with append order: the tree view sorts children by timestamp.
  const file = [
    { type: "session", version: 3, id: "order", timestamp: "2026-01-05T10:00:00.000Z", cwd: "/work/audit" },
    { type: "message", id: "u1", parentId: null, timestamp: "2026-01-05T10:00:01.000Z", message: user("question") },
    { type: "message", id: "late", parentId: "u1", timestamp: "2026-01-05T10:09:00.000Z", message: assistant("appended first, stamped later") },
    { type: "message", id: "early", parentId: "u1", timestamp: "2026-01-05T10:02:00.000Z", message: assistant("appended second, stamped earlier") },
  ];
  const sorted = SessionManager.inMemory("/work/audit", undefined, file);
  return {
    kind: "run",
    what: "Appends with a branch (SessionManager.branch) and a new root (resetLeaf): the parentId of each entry against the line before it; and getTree's order for two children whose timestamps disagree with their order in the file.",
    calls: ["appendMessage", "SessionManager.branch", "resetLeaf", "getTree"],
    code: [codeLine("core/session-manager.js", "// Sort children by timestamp")],
    result: {
      order,
      branchedEntryParent: order.find((o) => o.id === other).parentId === u1,
      secondRootParent: m.getEntry(root2).parentId,
      roots: m.getTree().length,
      treeChildrenOrder: sorted.getTree()[0].children.map((n) => n.entry.id),
      fileOrder: file.slice(2).map((e) => e.id),
    },
  };
}

function nullVersusMissingParent() {
  const file = [
    { type: "session", version: 3, id: "parents", timestamp: "2026-01-05T10:00:00.000Z", cwd: "/work/audit" },
    { type: "message", id: "nullroot", parentId: null, timestamp: "2026-01-05T10:00:01.000Z", message: user("parentId null") },
    { type: "message", id: "missing", timestamp: "2026-01-05T10:00:02.000Z", message: user("no parentId at all") },
    { type: "message", id: "a1", parentId: "missing", timestamp: "2026-01-05T10:00:03.000Z", message: assistant("answer") },
  ];
  return inTmp((tmp) => {
    const path = join(tmp, "parents.jsonl");
    writeFileSync(path, `${file.map((e) => JSON.stringify(e)).join("\n")}\n`);
    const m = SessionManager.open(path, tmp);
    const copied = readJsonl(SessionManager.forkFrom(path, join(tmp, "other"), join(tmp, "o")).getSessionFile()).slice(1);
    const branchedFile = SessionManager.open(path, tmp).createBranchedSession("a1");
    const branched = readJsonl(branchedFile).slice(1);
    return {
      kind: "run",
      what: "A version 3 file with a root whose parentId is null and one without parentId: Pi's tree, the context at the second root's child, and what pi --fork (forkFrom) and /fork (createBranchedSession) write for the entry without parentId.",
      calls: ["SessionManager.open", "getTree", "buildSessionContext", "SessionManager.forkFrom", "createBranchedSession"],
      code: [codeLine("core/session-manager.js", "current = current.parentId ? index.get(current.parentId) : undefined;")],
      result: {
        roots: m.getTree().map((n) => n.entry.id),
        contextAtA1: roles(buildSessionContext(m.getEntries(), "a1").messages),
        fileUnchangedOnOpen: readFileSync(path, "utf8") === `${file.map((e) => JSON.stringify(e)).join("\n")}\n`,
        forkFromKeepsMissing: !("parentId" in copied.find((e) => e.id === "missing")),
        createBranchedSessionWrites: branched.find((e) => e.id === "missing").parentId,
      },
    };
  });
}

function sessionName() {
  const m = SessionManager.inMemory("/work/audit");
  m.appendMessage(user("question"));
  const steps = [];
  for (const name of ["First name", "Latest name", "", "  ", "Line one\nline two"]) {
    const id = m.appendSessionInfo(name);
    steps.push({ appended: name, stored: m.getEntry(id).name, getSessionName: m.getSessionName() ?? null });
  }
  return {
    kind: "run",
    what: "appendSessionInfo with a name, a later name, an empty name, blanks and two lines: what is stored and what getSessionName (the /resume list's name) returns after each.",
    calls: ["appendSessionInfo", "getSessionName"],
    code: [codeBlock("core/session-manager.js", "getSessionName() {", 12)],
    result: { steps },
  };
}

async function editsLeaveViews() {
  const totals = await load("core/usage-totals.js");
  const getSessionStats = piMethod("core/agent-session.js", "getSessionStats", {
    createUsageTotals: totals.createUsageTotals,
    addUsageToTotals: totals.addUsageToTotals,
  });
  const { serializeSessionBranch } = await load("core/session-export.js");
  const { exportFromFile } = await load("core/export-html/index.js");
  return inTmp(async (tmp) => {
    const m = SessionManager.create(join(tmp, "project"), join(tmp, "sessions"));
    m.appendMessage(user("read the log"));
    const a = m.appendMessage(assistant("the original answer"));
    const stats = () => {
      const s = getSessionStats.method.call({ sessionManager: m, sessionFile: undefined, sessionId: "edits", getContextUsage: () => undefined });
      return { tokens: s.tokens, cost: s.cost, assistantMessages: s.assistantMessages, totalMessages: s.totalMessages };
    };
    const before = stats();
    m.appendContextEdit(a, { content: "the edited answer" });
    const after = stats();
    const text = (msg) => msg.content.map((b) => b.text).join("");
    const ui = m.buildContextEntries().filter((e) => e.type === "message" && e.message.role === "assistant").map((e) => text(e.message));
    const context = m.buildSessionContext().messages.filter((msg) => msg.role === "assistant").map(text);
    const jsonl = serializeSessionBranch(m).split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const html = readFileSync(await exportFromFile(m.getSessionFile(), { outputPath: join(tmp, "export.html") }), "utf8");
    const data = JSON.parse(Buffer.from(html.match(/<script id="session-data" type="application\/json">([^<]*)<\/script>/)[1], "base64").toString());
    const htmlAssistant = data.entries.filter((e) => e.type === "message" && e.message.role === "assistant").map((e) => text(e.message));
    return {
      kind: "run",
      what: "An assistant answer replaced by a context edit: Pi's session totals (getSessionStats, as written) before and after, the entries the chat view renders (buildContextEntries), the model context, the JSONL export (serializeSessionBranch) and the HTML export's embedded data (exportFromFile).",
      calls: ["appendContextEdit", "AgentSession.getSessionStats (as written)", "buildContextEntries", "buildSessionContext", "serializeSessionBranch", "exportFromFile"],
      code: [
        codeLine("modes/interactive/interactive-mode.js", "const entries = this.sessionManager.buildContextEntries();"),
        codeLine("core/agent-session.js", "    getSessionStats() {"),
      ],
      result: {
        statsBefore: before,
        statsAfter: after,
        chatViewAssistantText: ui,
        modelContextAssistantText: context,
        jsonlExport: { kinds: jsonl.slice(1).map(kindOf), assistantText: jsonl.filter((e) => e.type === "message" && e.message.role === "assistant").map((e) => text(e.message)) },
        htmlExportAssistantText: htmlAssistant,
        htmlExportHasTheEdit: data.entries.some((e) => e.type === "context_edit"),
      },
    };
  });
}

function assistantFields() {
  const types = readFileSync(join(PI_PATHS.ai, "dist", "types.d.ts"), "utf8");
  const keys = new Set();
  for (const name of readdirSync(SAMPLES).filter((n) => n.startsWith("pi-0.87.1-") && n.endsWith(".jsonl")).sort()) {
    for (const e of readJsonl(join(SAMPLES, name))) if (e.type === "message" && e.message.role === "assistant") Object.keys(e.message).forEach((k) => keys.add(k));
  }
  return {
    kind: "pi-file",
    what: "pi-ai's AssistantMessage type, and the keys of the assistant messages in the files Pi 0.87.1's CLI wrote.",
    result: { declared: interfaceFields(types, "AssistantMessage"), inPiFiles: [...keys].sort() },
  };
}

async function responseModel() {
  const totals = await load("core/usage-totals.js");
  const aiFiles = ["api/anthropic-messages.js", "api/openai-completions.js"];
  const code = aiFiles.flatMap((rel) => {
    const lines = readFileSync(join(PI_PATHS.ai, "dist", rel), "utf8").split("\n");
    return lines.flatMap((l, i) => {
      if (!l.includes("responseModel")) return [];
      const guard = i > 0 && lines[i - 1].trim().startsWith("if (") && !lines[i - 1].includes("responseModel");
      return [...(guard ? [{ file: `pi-ai/dist/${rel}`, line: i, text: lines[i - 1].trim() }] : []), { file: `pi-ai/dist/${rel}`, line: i + 1, text: l.trim() }];
    });
  });
  const { context } = readAudit("settings", "a1");
  const entries = loadEntriesFromFile(join(AUDIT, "settings.jsonl")).slice(1);
  const a1 = entries.find((e) => e.id === "a1").message;
  const virtual = ["core/agent-session.js", "core/virtual-models.js"].flatMap((rel) => {
    if (!existsSync(join(PI_PATHS.agent, "dist", rel))) return [];
    return piText(rel).split("\n").flatMap((l, i) => (l.includes("VIRTUAL_MODEL_STATE_ENTRY") && l.includes("append") || l.includes('"pi.virtual-model-state"') ? [{ file: `pi-coding-agent/dist/${rel}`, line: i + 1, text: l.trim() }] : []));
  });
  return {
    kind: "run",
    what: "Where pi-ai sets responseModel, the model Pi's context reports at an assistant message that has one (data/audit/settings.jsonl, a1), the cost breakdown's key (getUsageCostBreakdown), and the code that writes pi.virtual-model-state entries.",
    calls: ["buildSessionContext", "getUsageCostBreakdown"],
    code,
    result: {
      assistant: { provider: a1.provider, model: a1.model, responseModel: a1.responseModel },
      contextModel: context.model,
      costBreakdownKeys: totals.getUsageCostBreakdown ? totals.getUsageCostBreakdown(entries).map((b) => b.key) : null,
      virtualModelStateWriters: virtual,
    },
  };
}

/** What the request carries (pi-ai's transformMessages, run before every provider request)
 * at the leaf of data/audit/aborted-reply.jsonl, for the model in force: recorded after the
 * other scenarios (its own seed), so theirs do not move. */
async function requestStep() {
  const aiText = (rel) => readFileSync(join(PI_PATHS.ai, "dist", rel), "utf8");
  const aiLine = (rel, needle) => {
    const lines = aiText(rel).split("\n");
    const index = lines.findIndex((l) => l.includes(needle));
    if (index < 0) throw new Error(`pi-ai ${rel}: "${needle}" not found`);
    return { file: `pi-ai/dist/${rel}`, line: index + 1, text: lines[index].trim() };
  };
  const { transformMessages } = await import(pathToFileURL(join(PI_PATHS.ai, "dist", "api", "transform-messages.js")).href);
  const { context, llm } = readAudit("aborted-reply");
  const model = { provider: "audit", id: "audit-model", api: "openai-completions", input: ["text", "image"] };
  const sent = transformMessages(llm, model, (id) => id);
  // each message sent: the provider message it came from (same role and time; a reply is
  // copied, not passed through), or -1 for one pi-ai wrote itself
  const sentFrom = sent.map((m) => llm.findIndex((x) => x.role === m.role && x.timestamp === m.timestamp));
  const written = sent.filter((m, i) => sentFrom[i] < 0);
  return {
    kind: "run",
    what: "pi-ai's transformMessages (what every provider API runs on convertToLlm's messages before a request) at the leaf of data/audit/aborted-reply.jsonl (an aborted reply that had made a tool call, then a reply whose tool call has no result), for the model in force; which entries' messages the request carries.",
    calls: ["buildSessionContext", "convertToLlm", "transformMessages"],
    code: [
      aiLine("api/transform-messages.js", 'if (assistantMsg.stopReason === "error" || assistantMsg.stopReason === "aborted")'),
      aiLine("api/transform-messages.js", 'content: [{ type: "text", text: "No result provided" }]'),
      aiLine("api/openai-completions.js", "const transformedMessages = transformMessages("),
    ],
    result: {
      contextRoles: roles(context.messages),
      llmRoles: roles(llm),
      sentRoles: roles(sent),
      sentFrom,
      leftOut: llm.flatMap((m, i) => (sentFrom.includes(i) ? [] : [i])),
      written: written.map(({ toolCallId, toolName, content, isError }) => ({ toolCallId, toolName, content, isError })),
    },
  };
}

// --- every audit file, as Pi reads it ---------------------------------------------------------

function auditFiles() {
  const out = {};
  for (const name of readdirSync(AUDIT).filter((n) => n.endsWith(".jsonl")).sort()) {
    const stem = name.replace(/\.jsonl$/, "");
    const values = loadEntriesFromFile(join(AUDIT, name));
    const stable = (values[0].version ?? 1) >= 2;
    const parents = new Set(values.map((v) => v.parentId));
    const leaves = [null, ...(stable ? values.slice(1).map((v) => v.id).filter((id) => !parents.has(id)) : [])];
    out[stem] = { headerVersion: values[0].version ?? null, cases: leaves.map((leaf) => readAudit(stem, leaf)) };
  }
  return out;
}

// --- main ---------------------------------------------------------------------------------------

const SCENARIOS = [
  ["first-write", firstWrite],
  ["branch-in-place", branchInPlace],
  ["fork-and-clone", forkAndClone],
  ["torn-last-line", tornLastLine],
  ["migration-rewrites-file", migrationRewritesFile],
  ["location", location],
  ["folder-names", folderNames],
  ["session-dir-precedence", sessionDirPrecedence],
  ["deletion", deletion],
  ["versions", versions],
  ["header", header],
  ["entry-ids", entryIds],
  ["entry-types", entryTypes],
  ["system-prompt-replay", systemPromptReplay],
  ["settings-sources", settingsSources],
  ["settings-written-by-pi", settingsWrittenByPi],
  ["usage", usageScenario],
  ["compaction-fields", compactionFields],
  ["compaction-system-messages", compactionSystemMessages],
  ["retained-tail", retainedTail],
  ["context-edits", contextEdits],
  ["labels", labels],
  ["content-blocks", contentBlocks],
  ["roles", rolesScenario],
  ["bash-exclusion", bashExclusion],
  ["custom-session-dir", customSessionDir],
  ["no-index", noIndex],
  ["line-values", lineValues],
  ["fork-details", forkDetails],
  ["open-in-place", openInPlace],
  ["entry-order", entryOrder],
  ["null-versus-missing-parent", nullVersusMissingParent],
  ["session-name", sessionName],
  ["edits-leave-views", editsLeaveViews],
  ["assistant-fields", assistantFields],
  ["response-model", responseModel],
];

export async function recordEvidence() {
  const scenarios = {};
  let seed = 1;
  for (const [name, run] of SCENARIOS) {
    fresh(seed++);
    scenarios[name] = await run();
  }
  fresh(seed);
  const files = auditFiles();
  fresh(seed + 1);
  scenarios["request-step"] = await requestStep();
  return {
    pi: PI_VERSION,
    piAi: JSON.parse(readFileSync(join(PI_PATHS.ai, "package.json"), "utf8")).version,
    generator: "conformance/audit.mjs",
    note: "Pi's own answers for notebook 08 (the claim audit). Entropy fixed (seeded ids, a clock from 2026-01-05T12:00:00Z); temporary folders shown as <tmp>, the home folder as ~.",
    scenarios,
    files,
  };
}

async function main(argv) {
  if (argv.includes("--win32-folders")) {
    win32Folders();
    return 0;
  }
  const evidence = await recordEvidence();
  const text = `${JSON.stringify(evidence, null, 1)}\n`;
  if (argv.includes("--stdout")) {
    process.stdout.write(text);
    return 0;
  }
  const at = argv.indexOf("--out");
  const target = at >= 0 ? argv[at + 1] : EVIDENCE;
  mkdirSync(AUDIT, { recursive: true });
  writeFileSync(target, text);
  console.error(`wrote ${relative(process.cwd(), target) || target} (${Object.keys(evidence.scenarios).length} scenarios, ${Object.keys(evidence.files).length} files)`);
  return 0;
}

if (process.argv[1]?.endsWith("audit.mjs")) {
  process.exitCode = await main(process.argv.slice(2));
}
