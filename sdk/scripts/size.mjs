#!/usr/bin/env node
import path from "node:path";
// `npm run sdk:size`: the SDK as a browser game ships it — dist/index.js bundled and minified
// by rolldown, then gzipped — against its budget. sdk/test/package.test.ts holds it to the budget.
import { gzipSync } from "node:zlib";
import { rolldown } from "rolldown";

// 5 KiB until remote config (ETag round trip, values kept offline, typed getter) and reports added 0.3 KiB;
// 5.4 KiB until issue 51 added 0.75 KiB: createClient's option checks with their messages, the per-call
// deadline (TIMEOUT), caller-supplied Idempotency-Keys on answers and errors, busy password-check retries.
export const SIZE_BUDGET_BYTES = 6.15 * 1024;

export async function measureSize() {
  const bundle = await rolldown({ input: path.resolve(import.meta.dirname, "../dist/index.js"), logLevel: "silent" });
  const { output } = await bundle.generate({ format: "esm", minify: true });
  await bundle.close();
  const code = output[0].code;
  return { minifiedBytes: Buffer.byteLength(code), gzippedBytes: gzipSync(code, { level: 9 }).length, budgetBytes: SIZE_BUDGET_BYTES };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const size = await measureSize();
  const kib = (n) => `${(n / 1024).toFixed(2)} KiB`;
  console.log(
    `@game-backend/client: ${kib(size.minifiedBytes)} minified, ${kib(size.gzippedBytes)} minified + gzipped (budget ${kib(size.budgetBytes)})`,
  );
  if (size.gzippedBytes > size.budgetBytes) process.exit(1);
}
