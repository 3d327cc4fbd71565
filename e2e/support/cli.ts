import { spawn } from "node:child_process";
import { baseUrl } from "./api";

/** `npm run admin -- …` (server/cli/admin.mjs) against the shared app with an operator token. */
export function cli(args: string[], token: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["server/cli/admin.mjs", ...args], {
      env: { ...process.env, GB_URL: baseUrl(), GB_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
