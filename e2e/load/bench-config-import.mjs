#!/usr/bin/env node
// `npm run bench:config-import`: configuration as code at the document's limits. Builds a
// document of 1,000 currencies, 10,000 items and 10,000 purchases (4 lines each), signs in as the
// demo operator, creates a project and times over HTTP (tRPC, as the dashboard and CLI call it):
// the dry run into the empty project, the import that creates everything, a dry run of the same
// document (no changes), and an import that renames a tenth of every kind. Prints a table;
// writes e2e/load/results/config-import.md.
//   npm run bench:config-import -- [--currencies 1000] [--items 10000] [--purchases 10000]
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { root, signIn, withProduct } from "./lib.mjs";

const { values: args } = parseArgs({
  options: {
    currencies: { type: "string", default: "1000" },
    items: { type: "string", default: "10000" },
    purchases: { type: "string", default: "10000" },
  },
});
const [nc, ni, np] = [Number(args.currencies), Number(args.items), Number(args.purchases)];

function documentOf(renamed = 0) {
  const name = (kind, i) => `${kind} ${i}${i % 10 < renamed ? " (renamed)" : ""}`;
  return {
    version: 1,
    leaderboards: [],
    currencies: Array.from({ length: nc }, (_, i) => ({
      id: `c${i}`,
      name: name("Currency", i),
      initialBalance: 0,
      maxBalance: null,
      clientWritable: true,
    })),
    items: Array.from({ length: ni }, (_, i) => ({ id: `i${i}`, name: name("Item", i), maxStack: null })),
    purchases: Array.from({ length: np }, (_, i) => ({
      id: `p${i}`,
      name: name("Purchase", i),
      costs: [
        { currencyId: `c${i % nc}`, amount: 10 },
        { itemId: `i${i % ni}`, quantity: 1 },
      ],
      rewards: [
        { currencyId: `c${(i + 1) % nc}`, amount: 1 },
        { itemId: `i${(i + 1) % ni}`, quantity: 2 },
      ],
    })),
    identityProviders: [],
  };
}

const report = await withProduct({}, async (product) => {
  const cookie = await signIn(product.baseUrl, product.demo.operatorEmail, product.demo.operatorPassword);
  const call = async (procedure, input) => {
    const body = JSON.stringify(input);
    const t0 = performance.now();
    const res = await fetch(`${product.baseUrl}/api/trpc/${procedure}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie, Origin: product.baseUrl },
      body,
    });
    const json = await res.json();
    const seconds = (performance.now() - t0) / 1000;
    if (!res.ok) throw new Error(`${procedure}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return { data: json.result.data, seconds, bytes: Buffer.byteLength(body) };
  };
  const { data: project } = await call("projects.create", { name: `Import bench ${Date.now()}` });
  const projectId = project.id;
  const rows = [];
  const step = async (label, procedure, document) => {
    const { data, seconds, bytes } = await call(procedure, { projectId, document });
    rows.push({ label, seconds, changes: data.changes, mb: bytes / 1024 / 1024 });
    console.error(`[bench] ${label}: ${seconds.toFixed(2)} s, ${data.changes} changes`);
  };
  await step("dry run into an empty project", "config.dryRun", documentOf());
  await step("import: create everything", "config.import", documentOf());
  await step("dry run of the same document (nothing to do)", "config.dryRun", documentOf());
  await step("import: rename a tenth of every kind", "config.import", documentOf(1));
  return rows;
});

const lines = [
  `npm run bench:config-import — ${new Date().toISOString()}, Node ${process.version}`,
  "",
  `Document: ${nc} currencies, ${ni} items, ${np} purchases (2 costs + 2 rewards each), over HTTP through tRPC, one request at a time.`,
  "",
  "| step | document MB | changes | seconds |",
  "|---|---:|---:|---:|",
  ...report.map((r) => `| ${r.label} | ${r.mb.toFixed(1)} | ${r.changes} | ${r.seconds.toFixed(2)} |`),
];
console.log(lines.join("\n"));
const out = path.join(root, "e2e/load/results");
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, "config-import.md"), `${lines.join("\n")}\n`);
