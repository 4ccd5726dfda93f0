#!/usr/bin/env node
// Writes data/conformance/jsvalues/*.jsonl and its README.md: sessions whose values make
// Pi go through JavaScript's own conversions (ToString of values that are not strings,
// a session name that is not a string, V8's sort of more than 64 siblings, date-times
// without an offset). Each case is spelled out below; it does not need Pi. Record the
// goldens afterwards:
//
//   node conformance/make-jscases.mjs && TZ=UTC node conformance/record.mjs data/conformance/jsvalues
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
let OUT = join(dirname(HERE), "data", "conformance", "jsvalues");
if (process.argv[2] === "--out") OUT = resolve(process.argv[3]);

const J = (o) => JSON.stringify(o);
let clock = 0;
const T = () => new Date(Date.UTC(2026, 0, 15, 9, 0, 0) + clock++ * 60_000).toISOString();
const MS = (iso) => new Date(iso).getTime();
const header = () =>
  J({ type: "session", version: 3, id: "0199jsvl-0000-7000-8000-000000000001", timestamp: "2026-01-15T08:59:00.000Z", cwd: "/home/dev/js" });
const entry = (type, id, parentId, fields = {}) => J({ type, id, parentId, timestamp: T(), ...fields });
const msg = (id, parentId, message, extra = {}) => {
  const ts = T();
  return J({ type: "message", id, parentId, timestamp: ts, ...extra, message: { timestamp: MS(ts), ...message } });
};
const user = (id, parentId, text, extra) => msg(id, parentId, { role: "user", content: [{ type: "text", text }] }, extra);
const bash = (id, parentId, fields) =>
  msg(id, parentId, { role: "bashExecution", command: "ls", output: "a", exitCode: 0, cancelled: false, truncated: false, ...fields });
const sys = (id, parentId, fields) => msg(id, parentId, { role: "system", content: "", ...fields });

const NO_PRIMITIVE = { toString: 1 };
const cases = [];
function add(name, pi, lines) {
  clock = 0;
  cases.push({ name, pi, lines: lines() });
}

// ------------------------------------------------------------ ToString (issue 31, item 1)
add("tostring-bash-command-object", "A bash command `{\"toString\":1}`: convertToLlm throws `Cannot convert object to primitive value`.", () => [
  header(), user("u1", null, "run it"), bash("b1", "u1", { command: NO_PRIMITIVE }),
]);
add("tostring-bash-output-array", "A bash output `[1,{\"toString\":null}]`: the array joins its elements, the object in it throws.", () => [
  header(), user("u1", null, "run it"), bash("b1", "u1", { output: [1, { toString: null }] }),
]);
add("tostring-bash-exitcode-array", "An exit code `[1,{}]` is `1,[object Object]`; a command `{\"valueOf\":1}` is `[object Object]` (an own valueOf alone converts).", () => [
  header(), user("u1", null, "run it"), bash("b1", "u1", { command: { valueOf: 1 }, exitCode: [1, {}], output: [[null], [2, [3]]] }),
]);
add("tostring-bash-full-output-path", "A truncated run whose fullOutputPath is `[[{\"toString\":\"x\"}]]`: convertToLlm throws.", () => [
  header(), user("u1", null, "run it"), bash("b1", "u1", { truncated: true, fullOutputPath: [[{ toString: "x" }]] }),
]);
add("tostring-branch-summary-object", "A branch_summary entry's summary `{\"toString\":\"s\"}`: the context is built; convertToLlm throws.", () => [
  header(), user("u1", null, "hello"), entry("branch_summary", "s1", "u1", { fromId: "u1", summary: { toString: "s" } }), user("u2", "s1", "again"),
]);
add("tostring-compaction-summary-array", "A compaction whose summary is `[\"a\",{\"toString\":0}]`: convertToLlm throws.", () => [
  header(), user("u1", null, "hello"), entry("compaction", "c1", "u1", { summary: ["a", { toString: 0 }], firstKeptEntryId: "u1", tokensBefore: 5 }), user("u2", "c1", "again"),
]);
add("tostring-summaries-convert", "Summaries `[1,[2,null]]` and `{\"valueOf\":\"v\"}` convert: `1,2,` and `[object Object]`.", () => [
  header(), user("u1", null, "hello"), entry("branch_summary", "s1", "u1", { fromId: "u1", summary: [1, [2, null]] }),
  entry("compaction", "c1", "s1", { summary: { valueOf: "v" }, firstKeptEntryId: "s1", tokensBefore: 5 }), user("u2", "c1", "again"),
]);
add("tostring-system-text-block", "A system message's text block with text `{\"toString\":1}`: getCurrentSystemMessage throws.", () => [
  header(), sys("y1", null, { content: [{ type: "text", text: "base" }, { type: "text", text: NO_PRIMITIVE }] }), user("u1", "y1", "hi"),
]);
add("tostring-system-text-block-array", "Text blocks whose text is `[1,{}]` and `null` join to `1,[object Object]` and ``.", () => [
  header(), sys("y1", null, { content: [{ type: "text", text: [1, {}] }, { type: "text", text: null }, { type: "text", text: 7 }] }), user("u1", "y1", "hi"),
]);
add("tostring-system-section-array", "A section `[1,{\"toString\":1}]` (length 2): getCurrentSystemPrompt throws; the system message is built.", () => [
  header(), sys("y1", null, { content: "base", sections: { a: "A", b: [1, NO_PRIMITIVE] } }), user("u1", "y1", "hi"),
]);
add("tostring-system-section-length", "A section `{\"length\":1,\"toString\":1}`: it passes `length > 0` and throws; one set later replaces it.", () => [
  header(), sys("y1", null, { content: "base", sections: { a: { length: 1, toString: 1 } } }), user("u1", "y1", "hi"),
  sys("y2", "u1", { sections: { a: "fixed" } }), user("u2", "y2", "more"),
]);
add("tostring-system-section-no-length", "A section `{\"toString\":1}` has no length: it is filtered out before the join, nothing throws.", () => [
  header(), sys("y1", null, { content: "base", sections: { a: NO_PRIMITIVE, b: [[1], 2] } }), user("u1", "y1", "hi"),
]);
add("tostring-tool-name-object", "A tool named `{\"toString\":1}` or `[1,{}]`: Pi keys its tools by the value and never converts it, nothing throws.", () => [
  header(), sys("y1", null, { content: "base", toolsAdded: [{ name: NO_PRIMITIVE, description: "d" }, { name: [1, {}], description: "e" }] }), user("u1", "y1", "hi"),
]);
add("tostring-sibling-timestamp", "Two siblings, one with timestamp `{\"toString\":1}`: getTree's sort throws; the context does not care.", () => [
  header(), user("u1", null, "root"), user("u2", "u1", "one"), user("u3", "u1", "two", { timestamp: NO_PRIMITIVE }),
]);
add("tostring-only-child-timestamp", "An only child with timestamp `[{\"toString\":1}]`: getTree never compares it, nothing throws.", () => [
  header(), user("u1", null, "root"), user("u2", "u1", "one", { timestamp: [NO_PRIMITIVE] }),
]);

// ------------------------------------------------------------ session names (item 2)
for (const [name, value, pi] of [
  ["name-object", {}, "`name: {}`: getSessionName throws `entry.name?.trim is not a function`."],
  ["name-array", ["x"], "`name: [\"x\"]`: getSessionName throws."],
  ["name-false", false, "`name: false`: getSessionName throws (only null and absent short-circuit)."],
  ["name-null", null, "`name: null`: no name."],
]) {
  add(`session-${name}`, pi, () => [header(), user("u1", null, "hi"), entry("session_info", "n1", "u1", { name: value }), user("u2", "n1", "more")]);
}
add("session-name-object-then-string", "A bad name followed by a later good one: only the latest session_info counts.", () => [
  header(), user("u1", null, "hi"), entry("session_info", "n1", "u1", { name: { trim: 1 } }), entry("session_info", "n2", "n1", { name: "  Later  " }),
]);

// ------------------------------------------------------------ V8's sort (item 3)
const siblings = (count, stamp) => {
  const lines = [header(), user("r1", null, "root")];
  for (let i = 0; i < count; i++) lines.push(user(`k${String(i).padStart(4, "0")}`, "r1", `child ${i}`, { timestamp: stamp(i) }));
  return lines;
};
const pool = ["2026-01-15T10:00:00Z", "2026-01-15T09:00:00Z", "2026-01-15T11:00:00Z", "not a date", "2026-01-15T10:00:00Z", ""];
let seed = 31;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
add("sort-128-siblings-nan", "128 children of one entry, timestamps from 3 values and unparsable ones: V8's TimSort, 3 runs and more.", () => siblings(128, () => pool[Math.floor(rand() * pool.length)]));
add("sort-200-siblings-descending-nan", "200 children, mostly descending times with a NaN every 17th: runs reversed, merged with galloping.", () =>
  siblings(200, (i) => (i % 17 === 5 ? "x" : new Date(Date.UTC(2026, 0, 20) - i * 1000 - (i % 7) * 60000).toISOString())));
add("sort-600-siblings-equal", "600 children with 4 distinct times and NaN: long equal stretches (galloping over them).", () =>
  siblings(600, (i) => (i % 97 === 3 ? null : new Date(Date.UTC(2026, 0, 15) + ((i * 7919) % 4) * 3600_000).toISOString())));
add("sort-80-siblings-sorted-then-nan", "80 children in order, then unparsable ones: one long run and a short tail.", () =>
  siblings(80, (i) => (i < 70 ? new Date(Date.UTC(2026, 0, 15) + i * 1000).toISOString() : "nope")));

// Alternating rising and falling stretches of 40 with a NaN now and then: natural runs
// of uneven length, merged in V8's order (Python's sort, merging by powersort, differs).
const stretches = (runSeed, count) => () => {
  let s = runSeed;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648), s / 2147483648);
  const keys = [];
  for (let i = 0; i < count; i++) keys.push(r() < 0.03 ? null : Math.floor(i / 40) % 2 ? 1000 - i : i + Math.floor(r() * 3));
  return siblings(count, (i) => (keys[i] === null ? "not a date" : new Date(Date.UTC(2026, 0, 15) + keys[i] * 1000).toISOString()));
};
add("sort-128-siblings-stretches", "128 children in rising and falling stretches with NaN: V8's merge order decides (differs from index 85 under a plain stable sort).", stretches(92, 128));
add("sort-128-siblings-stretches-2", "The same with other stretches (differs from index 69 under a plain stable sort).", stretches(200, 128));

// ------------------------------------------------------------ local time (item 4)
add("local-time-no-offset", "Date-times without an offset are local time (recorded with TZ=UTC): custom and summary message timestamps.", () => [
  header(), user("u1", null, "hi"),
  J({ type: "custom_message", id: "m1", parentId: "u1", timestamp: "2026-03-29T02:30:00", customType: "c", content: "gap", display: true }),
  J({ type: "custom_message", id: "m2", parentId: "m1", timestamp: "2026-10-25T02:30:00.5", customType: "c", content: "fold", display: true }),
  J({ type: "branch_summary", id: "s1", parentId: "m2", timestamp: "2026-07-01 12:00", fromId: "u1", summary: "s" }),
  J({ type: "custom_message", id: "m3", parentId: "s1", timestamp: "Sun Mar 8 2026 02:30:00", customType: "c", content: "legacy", display: true }),
]);

// ------------------------------------------------------------ write
mkdirSync(OUT, { recursive: true });
for (const f of readdirSync(OUT)) if (f.endsWith(".jsonl")) rmSync(join(OUT, f));
for (const c of cases) writeFileSync(join(OUT, `${c.name}.jsonl`), c.lines.join("\n") + "\n");
const readme = [
  "# JavaScript conversions",
  "",
  "Sessions whose values make Pi go through JavaScript's own conversions (issue 31): ToString",
  "of values that are not strings, a session name that is not a string, V8's sort of more",
  "than 64 siblings, date-times without an offset. Written by `conformance/make-jscases.mjs`",
  "(the readable source); `X.golden.json` is Pi's reading, recorded by `conformance/record.mjs`",
  "with `TZ=UTC`.",
  "",
  "| File | What Pi 0.87.1 does |",
  "|---|---|",
  ...cases.map((c) => `| \`${c.name}.jsonl\` | ${c.pi} |`),
  "",
];
writeFileSync(join(OUT, "README.md"), readme.join("\n"));
console.log(`${cases.length} files in ${OUT}`);
