#!/usr/bin/env node
// `npm run admin -- <command>`: the operator API from scripts, over HTTP with an operator access
// token (create one on the dashboard's "Access tokens" page). Plain Node ESM on @trpc/client; no
// password ever. Prints JSON to stdout; on failure prints {"error": {...}} to stderr and exits 1
// (2 for a usage error). Configuration: GB_URL and GB_TOKEN, or --url and --token.
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { parseEnv, ZAdminEnv } from "../env-schema.mjs";

/**
 * The operator API as the dashboard calls it: a procedure renamed or an input changed fails the type check here.
 * @typedef {import("@trpc/client").TRPCClient<import("../trpc/router").AppRouter>} Api
 * @typedef {ReturnType<typeof parseCommandLine>["values"]} Options the parsed command-line options
 * @typedef {import("@trpc/server").inferRouterInputs<import("../trpc/router").AppRouter>["webhooks"]["create"]["endpoint"]["eventTypes"]} EventTypes
 */

const USAGE = `Usage: npm run admin -- <command> [options]   (GB_URL / --url, GB_TOKEN / --token)

  projects list
  projects create --name <name>
  keys list --project <id>
  keys create --project <id> --kind client|server --name <name>
  keys rotate --project <id> --key <id> [--overlap-hours <0–720, default 24>]
                                                      (prints the new key; the old one works until the overlap ends)
  keys revoke --project <id> --key <id>
  players search --project <id> [--query <text>] [--banned any|banned|active] [--limit <n>] [--offset <n>]
  players show --project <id> --player <id>
  players ban --project <id> --player <id> --reason <text> [--until <ISO time>]
  players unban --project <id> --player <id>
  leaderboards list --project <id>
  leaderboards entries --project <id> --board <id> [--period <period>] [--limit <n>] [--offset <n>]
  leaderboards remove-entry --project <id> --board <id> --player <id> [--period <period>]
  plan set --project <id> --plan free|pro|enterprise [--limit <requests per window>]   (instance-admin token)
  config export --project <id> [--out <file>]
  config import --project <id> --file <file> [--dry-run] [--expect-diff <hash>]
                                                      (currencies, items, purchases, store products, leaderboards, identity
                                                      providers, webhooks; no secrets, no store accounts or credentials)
  webhooks list --project <id>
  webhooks create --project <id> --endpoint-url <https url> --events <type,type,…> [--description <text>] [--disabled]
                                                      (prints the signing secret: the only time it is shown)
  webhooks update --project <id> --endpoint <id> [--endpoint-url <url>] [--events <types>] [--description <text>] [--enable | --disable]
  webhooks delete --project <id> --endpoint <id>
  webhooks rotate --project <id> --endpoint <id> [--overlap-hours <0–168, default 24>]
                                                      (prints the new secret; the old one signs too until the overlap ends)
  webhooks deliveries --project <id> --endpoint <id> [--status pending|succeeded|failed] [--event <type>] [--limit <n>] [--cursor <id>]
  webhooks resend --project <id> --delivery <id>
  webhooks replay --project <id> --endpoint <id> --from <ISO time> --to <ISO time>   (events in [from, to))
  webhooks test --project <id> --endpoint <id>

  Event types: player.created player.signed_in player.deleted player.banned player.unbanned
  player.email_linked purchase.completed currency.changed item.granted item.revoked
  store.purchase_granted store.purchase_refunded leaderboard.score_submitted leaderboard.period_closed config.imported`;

class UsageError extends Error {}

/** @param {unknown} error */
function fail(error) {
  if (error instanceof UsageError) {
    process.stderr.write(`${JSON.stringify({ error: { code: "USAGE", message: error.message, usage: USAGE } })}\n`);
    process.exit(2);
  }
  /** @type {{ appCode?: string, code?: string, httpStatus?: number, details?: unknown } | undefined} */
  const data = error instanceof TRPCClientError ? error.data : undefined;
  const out = data
    ? {
        code: data.appCode ?? data.code,
        message: error instanceof Error ? error.message : "",
        httpStatus: data.httpStatus,
        details: data.details ?? {},
      }
    : { code: "CLIENT_ERROR", message: error instanceof Error ? error.message : String(error) };
  process.stderr.write(`${JSON.stringify({ error: out })}\n`);
  process.exit(1);
}

/**
 * @param {Options} values
 * @param {keyof Options} name
 */
function required(values, name) {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required.`);
  return value;
}

/** The command line: options by name (a typo in a name below fails the type check). */
const parseCommandLine = () =>
  parseArgs({
    allowPositionals: true,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      project: { type: "string" },
      name: { type: "string" },
      kind: { type: "string" },
      plan: { type: "string" },
      limit: { type: "string" },
      out: { type: "string" },
      file: { type: "string" },
      "dry-run": { type: "boolean", default: false },
      "expect-diff": { type: "string" },
      endpoint: { type: "string" },
      "endpoint-url": { type: "string" },
      delivery: { type: "string" },
      events: { type: "string" },
      event: { type: "string" },
      description: { type: "string" },
      disabled: { type: "boolean", default: false },
      enable: { type: "boolean", default: false },
      disable: { type: "boolean", default: false },
      "overlap-hours": { type: "string" },
      key: { type: "string" },
      player: { type: "string" },
      board: { type: "string" },
      period: { type: "string" },
      query: { type: "string" },
      banned: { type: "string" },
      reason: { type: "string" },
      until: { type: "string" },
      offset: { type: "string" },
      status: { type: "string" },
      cursor: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });

async function main() {
  const { values, positionals } = parseCommandLine();
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const env = parseEnv(ZAdminEnv, process.env);
  const url = values.url ?? env.GB_URL;
  const token = values.token ?? env.GB_TOKEN;
  if (!url) throw new UsageError("Set GB_URL or pass --url (the server's base URL, e.g. http://localhost:3000).");
  if (!token) throw new UsageError("Set GB_TOKEN or pass --token (an operator access token, gbo_…).");
  /** @type {Api} */
  const api = createTRPCClient({
    links: [httpLink({ url: `${url.replace(/\/+$/, "")}/api/trpc`, headers: { Authorization: `Bearer ${token}` } })],
  });
  const command = positionals.slice(0, 2).join(" ");
  const print = (/** @type {unknown} */ value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

  switch (command) {
    case "projects list":
      return print(await api.projects.list.query());
    case "projects create":
      return print(await api.projects.create.mutate({ name: required(values, "name") }));
    case "keys create": {
      const kind = required(values, "kind").toUpperCase();
      if (kind !== "CLIENT" && kind !== "SERVER") throw new UsageError("--kind is client or server.");
      return print(await api.projects.createKey.mutate({ projectId: required(values, "project"), kind, name: required(values, "name") }));
    }
    case "plan set": {
      const plan = required(values, "plan").toUpperCase();
      if (plan !== "FREE" && plan !== "PRO" && plan !== "ENTERPRISE") throw new UsageError("--plan is free, pro or enterprise.");
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      if (limit !== undefined && !Number.isInteger(limit)) throw new UsageError("--limit is a whole number.");
      return print(
        await api.projects.setPlan.mutate({
          projectId: required(values, "project"),
          plan,
          ...(limit === undefined ? {} : { customRateLimit: limit }),
        }),
      );
    }
    case "config export": {
      const document = await api.config.export.query({ projectId: required(values, "project") });
      if (!values.out) return print(document);
      writeFileSync(values.out, `${JSON.stringify(document, null, 2)}\n`);
      return print({ written: values.out });
    }
    case "config import": {
      const file = required(values, "file");
      let document;
      try {
        document = JSON.parse(readFileSync(file, "utf8"));
      } catch (error) {
        throw new UsageError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const input = { projectId: required(values, "project"), document };
      if (values["dry-run"]) return print(await api.config.dryRun.mutate(input));
      return print(await api.config.import.mutate(values["expect-diff"] ? { ...input, expectDiffHash: values["expect-diff"] } : input));
    }
    default:
      if (positionals[0] === "webhooks") return print(await webhooks(api, positionals[1], values));
      if (positionals[0] === "keys") return print(await keys(api, positionals[1], values));
      if (positionals[0] === "players") return print(await players(api, positionals[1], values));
      if (positionals[0] === "leaderboards") return print(await leaderboards(api, positionals[1], values));
      throw new UsageError(`Unknown command "${positionals.join(" ")}".`);
  }
}

/**
 * The event types of `--events` as given: the server checks them (its VALIDATION_ERROR names a wrong one).
 * @param {string} text
 */
const eventList = (text) =>
  /** @type {EventTypes} */ (
    text
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean)
  );

/**
 * @param {Options} values
 * @param {keyof Options} name
 */
function wholeNumber(values, name) {
  const value = values[name];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} is a whole number.`);
  return n;
}

/**
 * `webhooks <verb>`: the dashboard's procedures; secrets are printed only by create and rotate.
 * @param {Api} api
 * @param {string | undefined} verb
 * @param {Options} values
 */
async function webhooks(api, verb, values) {
  const projectId = required(values, "project");
  const endpoint = () => ({ projectId, endpointId: required(values, "endpoint") });
  switch (verb) {
    case "list":
      return api.webhooks.list.query({ projectId });
    case "create":
      return api.webhooks.create.mutate({
        projectId,
        endpoint: {
          url: required(values, "endpoint-url"),
          eventTypes: eventList(required(values, "events")),
          ...(values.description === undefined ? {} : { description: values.description }),
          enabled: !values.disabled,
        },
      });
    case "update": {
      if (values.enable && values.disable) throw new UsageError("--enable or --disable, not both.");
      const patch = {
        ...(values["endpoint-url"] === undefined ? {} : { url: values["endpoint-url"] }),
        ...(values.events === undefined ? {} : { eventTypes: eventList(values.events) }),
        ...(values.description === undefined ? {} : { description: values.description }),
        ...(values.enable ? { enabled: true } : values.disable ? { enabled: false } : {}),
      };
      if (Object.keys(patch).length === 0)
        throw new UsageError("Nothing to change: give --endpoint-url, --events, --description, --enable or --disable.");
      return api.webhooks.update.mutate({ ...endpoint(), patch });
    }
    case "delete":
      await api.webhooks.delete.mutate(endpoint());
      return { deleted: values.endpoint };
    case "rotate": {
      const overlapHours = wholeNumber(values, "overlap-hours");
      return api.webhooks.rotateSecret.mutate({ ...endpoint(), ...(overlapHours === undefined ? {} : { overlapHours }) });
    }
    case "deliveries": {
      const status = typeof values.status === "string" ? values.status.toUpperCase() : undefined;
      if (status !== undefined && status !== "PENDING" && status !== "SUCCEEDED" && status !== "FAILED")
        throw new UsageError("--status is pending, succeeded or failed.");
      const limit = wholeNumber(values, "limit");
      return api.webhooks.deliveries.query({
        ...endpoint(),
        ...(status ? { status } : {}),
        ...(values.event ? { eventType: /** @type {EventTypes[number]} */ (values.event) } : {}),
        ...(values.cursor ? { cursor: values.cursor } : {}),
        ...(limit === undefined ? {} : { limit }),
      });
    }
    case "resend":
      return api.webhooks.resend.mutate({ projectId, deliveryId: required(values, "delivery") });
    case "replay":
      return api.webhooks.replay.mutate({ ...endpoint(), range: { from: required(values, "from"), to: required(values, "to") } });
    case "test":
      return api.webhooks.sendTest.mutate(endpoint());
    default:
      throw new UsageError(`Unknown command "webhooks ${verb ?? ""}".`);
  }
}

/**
 * `keys <verb>` (create is above): keys are printed only by create and rotate.
 * @param {Api} api
 * @param {string | undefined} verb
 * @param {Options} values
 */
async function keys(api, verb, values) {
  const projectId = required(values, "project");
  switch (verb) {
    case "list":
      return api.projects.keys.query({ projectId });
    case "rotate": {
      const overlapHours = wholeNumber(values, "overlap-hours");
      return api.projects.rotateKey.mutate({
        projectId,
        keyId: required(values, "key"),
        ...(overlapHours === undefined ? {} : { overlapHours }),
      });
    }
    case "revoke":
      await api.projects.revokeKey.mutate({ projectId, keyId: required(values, "key") });
      return { revoked: values.key };
    default:
      throw new UsageError(`Unknown command "keys ${verb ?? ""}".`);
  }
}

/**
 * `players <verb>`: search, one player's page, bans.
 * @param {Api} api
 * @param {string | undefined} verb
 * @param {Options} values
 */
async function players(api, verb, values) {
  const projectId = required(values, "project");
  const player = () => ({ projectId, playerId: required(values, "player") });
  switch (verb) {
    case "search": {
      const banned = values.banned ?? "any";
      if (banned !== "any" && banned !== "banned" && banned !== "active") throw new UsageError("--banned is any, banned or active.");
      const limit = wholeNumber(values, "limit");
      const offset = wholeNumber(values, "offset");
      return api.players.search.query({
        projectId,
        query: values.query ?? "",
        banned,
        ...(limit === undefined ? {} : { limit }),
        ...(offset === undefined ? {} : { offset }),
      });
    }
    case "show":
      return api.players.get.query(player());
    case "ban":
      return api.players.ban.mutate({ ...player(), reason: required(values, "reason"), ...(values.until ? { until: values.until } : {}) });
    case "unban":
      return api.players.unban.mutate(player());
    default:
      throw new UsageError(`Unknown command "players ${verb ?? ""}".`);
  }
}

/**
 * `leaderboards <verb>`: boards, a page of entries, removing one entry.
 * @param {Api} api
 * @param {string | undefined} verb
 * @param {Options} values
 */
async function leaderboards(api, verb, values) {
  const projectId = required(values, "project");
  switch (verb) {
    case "list":
      return api.leaderboards.list.query({ projectId });
    case "entries": {
      const limit = wholeNumber(values, "limit");
      const offset = wholeNumber(values, "offset");
      return api.leaderboards.entries.query({
        projectId,
        id: required(values, "board"),
        ...(values.period ? { period: values.period } : {}),
        ...(limit === undefined ? {} : { limit }),
        ...(offset === undefined ? {} : { offset }),
      });
    }
    case "remove-entry":
      await api.leaderboards.removeEntry.mutate({
        projectId,
        id: required(values, "board"),
        playerId: required(values, "player"),
        ...(values.period ? { period: values.period } : {}),
      });
      return { removed: { board: values.board, player: values.player } };
    default:
      throw new UsageError(`Unknown command "leaderboards ${verb ?? ""}".`);
  }
}

main().catch(fail);
