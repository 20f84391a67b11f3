import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Type-checks `file` in `dir` with the project's TypeScript under a strict NodeNext config of its own (no output),
 * `compilerOptions` added to it: "compiled", or what tsc printed.
 */
export async function typeCheck(dir: string, file: string, compilerOptions: Record<string, unknown> = {}): Promise<string> {
  const tsconfig = {
    compilerOptions: {
      module: "NodeNext",
      moduleResolution: "NodeNext",
      target: "ES2022",
      strict: true,
      noEmit: true,
      types: ["node"],
      typeRoots: [path.join(ROOT, "node_modules", "@types")],
      ...compilerOptions,
    },
    files: [file],
  };
  await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
  return promisify(execFile)(process.execPath, [tsc, "-p", dir]).then(
    () => "compiled",
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}
