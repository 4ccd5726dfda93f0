// Module hooks that let Pi's own dist/utils/paths.js run with Windows path rules on any
// machine: a module imported with "?platform=win32" in its URL (and everything it imports
// from files) gets Node's path.win32 wherever it imports "node:path". Used by
// session-dirs.mjs; registered with module.register().
const MARK = "platform=win32";
const SHIM =
  "data:text/javascript," +
  encodeURIComponent(
    'import { win32 } from "node:path";\n' +
      "export default win32;\n" +
      "export const { basename, delimiter, dirname, extname, format, isAbsolute, join, normalize, " +
      "parse, posix, relative, resolve, sep, toNamespacedPath } = win32;\n" +
      "export { win32 };\n",
  );

export async function resolve(specifier, context, nextResolve) {
  const marked = context.parentURL?.includes(MARK);
  if (marked && (specifier === "node:path" || specifier === "path")) {
    return { url: SHIM, shortCircuit: true };
  }
  const result = await nextResolve(specifier, context);
  if (marked && result.url.startsWith("file:") && !result.url.includes(MARK)) {
    return { ...result, url: `${result.url}${result.url.includes("?") ? "&" : "?"}${MARK}` };
  }
  return result;
}
