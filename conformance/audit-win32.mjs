// Module hooks for the claim audit's Windows question (used as `node --import audit-win32.mjs`).
//
// Pi computes a session folder from `path.resolve(cwd)` and `path.join(...)`. On Windows
// those are `path.win32`; on Linux and macOS `path.posix`. To ask Pi 0.87.1 itself what
// it does with `C:\work\api`, this hook hands `path.win32` to exactly two of Pi's files,
// dist/core/session-manager.js and dist/utils/paths.js, whatever machine runs the audit.
// Pi's code is loaded unchanged; only the `path` module those two files import differs.
// (process.platform is left alone: the two win32-only branches of Pi's normalizePath,
// MSYS drive paths and `~\`, do not apply to the inputs the audit uses.)
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

const WIN32_PATH =
  "data:text/javascript," +
  encodeURIComponent(
    'import p from "node:path"; const w = p.win32; export default w;' +
      " export const { basename, delimiter, dirname, extname, format, isAbsolute, join, normalize," +
      " parse, relative, resolve, sep, toNamespacedPath } = w;" +
      " export const posix = p.posix; export const win32 = w;",
  );
const TARGETS = ["/dist/core/session-manager.js", "/dist/utils/paths.js"];

export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? "";
  if ((specifier === "path" || specifier === "node:path") && TARGETS.some((t) => parent.endsWith(t))) {
    return { url: WIN32_PATH, shortCircuit: true };
  }
  return next(specifier, context);
}

if (isMainThread && !globalThis.__piAuditWin32) {
  globalThis.__piAuditWin32 = true;
  register(import.meta.url);
}
