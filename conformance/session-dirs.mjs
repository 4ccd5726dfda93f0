#!/usr/bin/env node
// Records Pi's own answer for the session folder name of many working directories, for
// POSIX and for Windows path rules, into data/paths/session-dirs.json.
//
//   node conformance/session-dirs.mjs            (re)write data/paths/session-dirs.json
//   node conformance/session-dirs.mjs --check    compare with the committed file, exit 1 on a difference
//   node conformance/session-dirs.mjs --eval     stdin {"cases": [[platform, base, home, cwd], ...]}
//                                                -> stdout: Pi's folder name for each (tests use it)
//
// Pi (getDefaultSessionDirPath in dist/core/session-manager.js) names the folder
//     safePath(resolvePath(cwd))
// where resolvePath (dist/utils/paths.js) expands ~, converts Git Bash / WSL drive paths on
// Windows and resolves the path with the running platform's node:path (process.cwd() as the
// base), and safePath is one line of getDefaultSessionDirPath. This script runs Pi's own
// resolvePath, and Pi's own safePath expression (taken from the source of the version in
// use, so a change there is noticed), with:
//   posix: the module as installed (this machine's node:path is POSIX), process.cwd() and
//          $HOME set to the table's base and home; each answer is also checked end to end
//          against Pi's exported getDefaultSessionDir (called with a temporary agent dir).
//   win32: a second copy of paths.js whose "node:path" is path.win32 (win32-hooks.mjs), with
//          process.platform = "win32" and process.cwd() / $HOME (os.homedir()) set as on Windows.
// The Pi version is $PI_ORACLE_VERSION, else the primary one (see locate.mjs).
process.env.TZ = "UTC";

import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { register } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { locate, notFoundMessage, wantedVersion } from "./locate.mjs";
import { REPO } from "./paths.mjs";

export const TARGET = join(REPO, "data", "paths", "session-dirs.json");

const POSIX = {
  base: "/home/reader/work",
  home: "/home/reader",
  cwds: [
    "/home/reader/projects/demo-app",
    "/home/x",
    "/home/x/",
    "/home/x//",
    "/",
    "//",
    "///srv//data///",
    "/home/x/./y/../z",
    "/a/b/..",
    "/a/b/.",
    "/..",
    "/../etc",
    "relative/dir",
    "./rel",
    "../up",
    "../../../../..",
    "",
    ".",
    "..",
    "~",
    "~/",
    "~/projects/demo",
    "~/../other",
    "~reader/x",
    "~\\proj",
    "C:\\work\\api",
    "C:/work/api",
    "/c/work",
    "\\\\server\\share",
    "a\\b",
    "/home/x:y",
    "/with space/ü/日本語",
    "/tmp/line\nbreak",
  ],
};

const WIN32 = {
  base: "C:\\Users\\reader\\work",
  home: "C:\\Users\\reader",
  cwds: [
    "C:\\work\\api",
    "C:\\work\\api\\",
    "C:\\work\\api\\\\",
    "c:\\work\\api",
    "C:/work/api",
    "C:/work/api/",
    "C:",
    "C:\\",
    "C:foo",
    "D:foo",
    "D:\\x\\..\\..",
    "C:\\a\\.\\b\\..\\c",
    "\\work",
    "/work",
    "/",
    "\\",
    "/c",
    "/c/Users/reader",
    "/mnt/d/data",
    "/cygdrive/e/x/y",
    "/MNT/d/x",
    "//server/share/dir",
    "\\\\server\\share\\dir\\",
    "\\\\?\\C:\\x",
    "\\\\.\\pipe\\x",
    "relative",
    ".\\rel",
    "..\\up",
    "..\\..\\..\\..",
    "",
    ".",
    "~",
    "~\\proj",
    "~/proj",
    "~/..\\x",
    "CON",
    "C:\\work:stream",
    "/home/x/",
  ],
};

function piPieces(version) {
  const found = locate(version);
  if (!found) throw new Error(notFoundMessage(version));
  const source = readFileSync(join(found.agent, "dist", "core", "session-manager.js"), "utf8");
  // getDefaultSessionDirPath: `const resolvedCwd = resolvePath(cwd);` ... `const safePath = <expr>;`
  const body = source.match(
    /function getDefaultSessionDirPath\(cwd[^{]*\{\s*const resolvedCwd = resolvePath\(cwd\);[^]*?const safePath = (`[^`]*`);/,
  );
  if (!body) throw new Error(`Pi ${version}: getDefaultSessionDirPath no longer has the expected shape`);
  const safePath = new Function("resolvedCwd", `return ${body[1]};`);
  return { found, safePath, expression: body[1] };
}

/** Run fn with process.platform, process.cwd() and $HOME set as on the given machine. */
function asOn(platform, base, home, fn) {
  const saved = { cwd: process.cwd, platform: Object.getOwnPropertyDescriptor(process, "platform"), home: process.env.HOME };
  process.cwd = () => base;
  Object.defineProperty(process, "platform", { ...saved.platform, value: platform });
  process.env.HOME = home;
  try {
    return fn();
  } finally {
    process.cwd = saved.cwd;
    Object.defineProperty(process, "platform", saved.platform);
    if (saved.home === undefined) delete process.env.HOME;
    else process.env.HOME = saved.home;
  }
}

/** Pi's own pieces for one version: safePath, and resolvePath under each platform's rules. */
async function loadPi(version) {
  const { found, safePath } = piPieces(version);
  const pathsFile = join(found.agent, "dist", "utils", "paths.js");
  const posixPaths = await import(pathToFileURL(pathsFile).href);
  const sessionManager = await import(pathToFileURL(join(found.agent, "dist", "core", "session-manager.js")).href);
  register("./win32-hooks.mjs", import.meta.url);
  const winPaths = await import(`${pathToFileURL(pathsFile).href}?platform=win32`);
  const name = (platform, base, home, cwd) =>
    asOn(platform === "win32" ? "win32" : process.platform, base, home, () =>
      safePath((platform === "win32" ? winPaths : posixPaths).resolvePath(cwd)),
    );
  return { name, sessionManager };
}

export async function record(version) {
  const { name: piName, sessionManager } = await loadPi(version);

  const agentDir = mkdtempSync(join(tmpdir(), "pi-session-dirs-"));
  try {
    const posix = POSIX.cwds.map((cwd) => {
      const name = piName("posix", POSIX.base, POSIX.home, cwd);
      const whole = asOn(process.platform, POSIX.base, POSIX.home, () =>
        basename(sessionManager.getDefaultSessionDir(cwd, agentDir)),
      );
      if (whole !== name) throw new Error(`getDefaultSessionDir(${JSON.stringify(cwd)}) gives ${whole}, not ${name}`);
      return [cwd, name];
    });
    const win32 = WIN32.cwds.map((cwd) => [cwd, piName("win32", WIN32.base, WIN32.home, cwd)]);
    return { posix, win32 };
  } finally {
    rmSync(agentDir, { recursive: true, force: true });
  }
}

export function format({ posix, win32 }) {
  const block = (table, cases) =>
    `{\n    "base": ${JSON.stringify(table.base)},\n    "home": ${JSON.stringify(table.home)},\n    "cases": [\n` +
    cases.map((c) => `      ${JSON.stringify(c)}`).join(",\n") +
    "\n    ]\n  }";
  return (
    "{\n" +
    `  "about": ${JSON.stringify(
      "Pi's session folder name (getDefaultSessionDirPath: safePath(resolvePath(cwd))) for each cwd, " +
        "recorded by conformance/session-dirs.mjs from Pi's own code with POSIX and with Windows path rules; " +
        "base is process.cwd(), home is os.homedir(). Each case: [cwd, folder name].",
    )},\n` +
    `  "posix": ${block(POSIX, posix)},\n` +
    `  "win32": ${block(WIN32, win32)}\n` +
    "}\n"
  );
}

/** --eval: stdin {"cases": [[platform, base, home, cwd], ...]} -> stdout [name or {"error": message}, ...]. */
async function evaluate(version) {
  const { name } = await loadPi(version);
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const { cases } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const out = cases.map(([platform, base, home, cwd]) => {
    try {
      return name(platform, base, home, cwd);
    } catch (err) {
      return { error: String(err?.message ?? err) };
    }
  });
  process.stdout.write(JSON.stringify(out));
  return 0;
}

async function main(argv) {
  const checking = argv.includes("--check");
  const version = wantedVersion();
  if (argv.includes("--eval")) return evaluate(version);
  const text = format(await record(version));
  if (!checking) {
    mkdirSync(dirname(TARGET), { recursive: true });
    writeFileSync(TARGET, text);
    console.error(`wrote ${TARGET} with Pi ${version}`);
    return 0;
  }
  let committed = "";
  try {
    committed = readFileSync(TARGET, "utf8");
  } catch {
    // missing: reported below
  }
  const same = committed === text;
  const n = POSIX.cwds.length + WIN32.cwds.length;
  console.log(`session folder names with Pi ${version}: ${n} cases, ${same ? 0 : 1} mismatches`);
  if (!same) {
    const want = committed ? JSON.parse(committed) : { posix: { cases: [] }, win32: { cases: [] } };
    const got = JSON.parse(text);
    for (const platform of ["posix", "win32"]) {
      const old = new Map(want[platform].cases.map(([c, n]) => [c, n]));
      for (const [cwd, name] of got[platform].cases) {
        if (old.get(cwd) !== name) console.log(`  ${platform} ${JSON.stringify(cwd)}: Pi gives ${JSON.stringify(name)}, committed ${JSON.stringify(old.get(cwd))}`);
      }
    }
    console.log("  (re-record: node conformance/session-dirs.mjs)");
  }
  return same ? 0 : 1;
}

if (process.argv[1]?.endsWith("session-dirs.mjs")) {
  process.exitCode = await main(process.argv.slice(2));
}
