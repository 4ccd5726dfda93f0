// Repository paths (no Pi import, so tools that do not need Pi run without it).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
export const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = dirname(HERE);
export const DATA_CONFORMANCE = join(REPO, "data", "conformance");
