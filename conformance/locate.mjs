// Which Pi versions the conformance suite checks, and where each one is installed.
// No Pi import here, so check.sh can ask before anything is installed.
//
// The version list lives in pisession/pi_versions.json (read by the Python package too):
//   primary  the version the chapter and spec describe; conformance/package.json pins it
//   checked  every version check.sh re-records the goldens with
//
// Where Pi <V> is looked for, first hit wins (its package.json must say version V):
//   $PI_ORACLE_DIR/<V>/node_modules   (a folder of versions, e.g. /work/pi)
//   $PI_ORACLE_DIR/node_modules       (one version)
//   conformance/.pi/<V>/node_modules  (check.sh installs non-primary versions here)
//   conformance/node_modules          (`npm install` in conformance/: the primary version)
//
//   node conformance/locate.mjs --checked   prints the checked versions, space-separated
//   node conformance/locate.mjs --primary   prints the primary version
//   node conformance/locate.mjs V           prints the node_modules folder holding Pi V (exit 3 if none)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HERE, REPO } from "./paths.mjs";

export const VERSIONS_FILE = join(REPO, "pisession", "pi_versions.json");
export const VERSIONS = JSON.parse(readFileSync(VERSIONS_FILE, "utf8"));
export const PACKAGE = VERSIONS.package;
export const PRIMARY = VERSIONS.primary;
export const CHECKED = VERSIONS.checked;
export const CACHE = join(HERE, ".pi");

/** The version the scripts load: $PI_ORACLE_VERSION, else the primary one. */
export function wantedVersion() {
  return process.env.PI_ORACLE_VERSION || PRIMARY;
}

/** node_modules folders that may hold Pi `version`, in lookup order. */
export function candidates(version) {
  const out = [];
  const oracle = process.env.PI_ORACLE_DIR;
  if (oracle) out.push(join(oracle, version, "node_modules"), join(oracle, "node_modules"));
  out.push(join(CACHE, version, "node_modules"), join(HERE, "node_modules"));
  return out;
}

function installedVersion(nodeModules) {
  const manifest = join(nodeModules, ...PACKAGE.split("/"), "package.json");
  if (!existsSync(manifest)) return null;
  return JSON.parse(readFileSync(manifest, "utf8")).version;
}

/** {nodeModules, agent, ai} for Pi `version`, or null when no candidate holds it. */
export function locate(version) {
  for (const nodeModules of candidates(version)) {
    if (installedVersion(nodeModules) !== version) continue;
    const agent = join(nodeModules, ...PACKAGE.split("/"));
    // pi-ai as session-manager.js itself resolves it: nested copy first, then hoisted.
    const ai = [join(agent, "node_modules", "@earendil-works", "pi-ai"), join(nodeModules, "@earendil-works", "pi-ai")].find(
      (p) => existsSync(join(p, "package.json")),
    );
    if (!ai) throw new Error(`@earendil-works/pi-ai not found next to ${agent}`);
    return { nodeModules, agent, ai };
  }
  return null;
}

export function notFoundMessage(version) {
  const where = candidates(version)
    .map((p) => {
      const found = installedVersion(p);
      return `  ${p}${found ? ` (holds ${found})` : ""}`;
    })
    .join("\n");
  return (
    `Pi ${version} not found. Looked in:\n${where}\n` +
    `Run \`sh conformance/check.sh\` (installs every checked version), or ` +
    `\`npm install --prefix conformance/.pi/${version} --ignore-scripts ${PACKAGE}@${version}\`, ` +
    `or set PI_ORACLE_DIR.`
  );
}

if (process.argv[1]?.endsWith("locate.mjs")) {
  const arg = process.argv[2];
  if (arg === "--checked") console.log(CHECKED.join(" "));
  else if (arg === "--primary") console.log(PRIMARY);
  else if (arg && !arg.startsWith("-")) {
    const found = locate(arg);
    if (found) console.log(found.nodeModules);
    else {
      console.error(notFoundMessage(arg));
      process.exitCode = 3;
    }
  } else {
    console.error("usage: node conformance/locate.mjs --checked | --primary | VERSION");
    process.exitCode = 2;
  }
}
