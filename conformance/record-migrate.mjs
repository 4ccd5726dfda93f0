// Records Pi's own rewrite of every legacy (v1/v2) file of the corpus: a copy of the file
// opened with SessionManager.open, which migrates it and writes it back. The bytes go to
// data/migrated/<folder>--<name> (outside data/conformance/: they are answers, not inputs
// with goldens) so that tests/test_migrate_bytes.py can compare `pisession migrate` with
// them without Node. A file Pi fails to migrate gets <folder>--<name>.throws instead: the
// one line Pi throws (pisession must refuse it too).
//
//   node conformance/record-migrate.mjs [FILE ...]   (default: the whole legacy corpus)
//   node conformance/record-migrate.mjs --check      (re-record in memory and compare, ids
//                                                    normalised; what conformance/check.sh runs)
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { DATA_CONFORMANCE, PI_VERSION, REPO, sessionManager } from "./pi.mjs";

const OUT = join(REPO, "data", "migrated");
const FOLDERS = { samples: join(REPO, "pisession", "samples"), damaged: join(REPO, "data", "damaged") };

export function legacy(file) {
  // Pi's test: the first "session" line's version (missing means 1) below 3
  for (const line of readFileSync(file, "utf8").split("\n")) {
    try {
      const value = JSON.parse(line);
      if (value && value.type === "session") return (value.version ?? 1) < 3;
    } catch {}
  }
  return false;
}

function corpus() {
  const files = [];
  const add = (dir, keep) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort())
      if (name.endsWith(".jsonl") && keep(name) && legacy(join(dir, name))) files.push(join(dir, name));
  };
  add(join(DATA_CONFORMANCE, "generated"), (n) => /^gen-v[12]-/.test(n));
  add(join(DATA_CONFORMANCE, "edge"), () => true);
  add(join(DATA_CONFORMANCE, "legacy"), () => true);
  add(FOLDERS.damaged, () => true);
  add(FOLDERS.samples, (n) => n.startsWith("legacy-"));
  return files;
}

const recordedName = (file) => `${basename(dirname(file))}--${basename(file)}`;

/** Pi's rewrite of a copy of `file` (bytes), or the one-line reason Pi throws. */
export function rewrite(file) {
  const dir = mkdtempSync(join(tmpdir(), "pi-migrate-"));
  try {
    const copy = join(dir, "session.jsonl");
    copyFileSync(file, copy);
    try {
      sessionManager.SessionManager.open(copy, dir);
    } catch (error) {
      return { error: `Pi throws ${error.name}: ${error.message.split("\n")[0]}` };
    }
    return { bytes: readFileSync(copy) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text with every entry id (and parentId) replaced by <idN>, N its rank: Pi draws ids at random. */
export function normalised(bytes) {
  const text = bytes.toString("utf8");
  const ids = new Map();
  for (const line of text.split("\n")) {
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (value && typeof value === "object" && !Array.isArray(value) && value.type !== "session")
      for (const key of ["id", "parentId"])
        if (typeof value[key] === "string" && !ids.has(value[key])) ids.set(value[key], `<id${ids.size}>`);
  }
  if (!ids.size) return text;
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp([...ids.keys()].map((i) => escape(JSON.stringify(i))).join("|"), "g");
  return text.replace(pattern, (m) => JSON.stringify(ids.get(JSON.parse(m))));
}

function check() {
  const problems = [];
  const wanted = new Set(corpus().map(recordedName));
  const recorded = existsSync(OUT) ? readdirSync(OUT).filter((n) => /\.jsonl(\.throws)?$/.test(n)).sort() : [];
  const names = new Set(recorded.map((n) => n.replace(/\.throws$/, "")));
  for (const name of wanted) if (!names.has(name)) problems.push(`missing recorded rewrite: ${name}`);
  for (const name of recorded) {
    const [folder, file] = name.replace(/\.throws$/, "").split("--", 2);
    const source = join(FOLDERS[folder] ?? join(DATA_CONFORMANCE, folder), file);
    if (!existsSync(source)) {
      problems.push(`orphan rewrite (no source): ${name}`);
      continue;
    }
    const fresh = rewrite(source);
    const was = readFileSync(join(OUT, name));
    if (name.endsWith(".throws") ? fresh.error !== was.toString("utf8").trim() : fresh.error)
      problems.push(`${relative(REPO, source)}: ${fresh.error ?? "Pi no longer throws"}`);
    else if (!fresh.error && normalised(fresh.bytes) !== normalised(was))
      problems.push(`rewrite differs: ${relative(REPO, join(OUT, name))}`);
  }
  for (const p of problems) console.log(`   ${p}`);
  console.log(`migration re-check with Pi ${PI_VERSION}: ${recorded.length} rewrites, ${problems.length} problems`);
  return problems.length ? 1 : 0;
}

function record(files) {
  mkdirSync(OUT, { recursive: true });
  let written = 0;
  for (const file of files) {
    const fresh = rewrite(file);
    rmSync(join(OUT, recordedName(file) + (fresh.error ? "" : ".throws")), { force: true });
    if (fresh.error) {
      console.log(`${file}: ${fresh.error}`);
      writeFileSync(join(OUT, `${recordedName(file)}.throws`), `${fresh.error}\n`);
      continue;
    }
    writeFileSync(join(OUT, recordedName(file)), fresh.bytes);
    written += 1;
  }
  console.log(`Pi ${PI_VERSION}: ${written} rewrites in ${relative(REPO, OUT)}`);
  return 0;
}

if (process.argv[1]?.endsWith("record-migrate.mjs")) {
  const args = process.argv.slice(2);
  process.exitCode = args[0] === "--check" ? check() : record(args.length ? args : corpus());
}
