import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { AppError } from "@/server/errors";
import type { SessionOperator } from "@/server/identity/operator";
import { operatorForSession, startOperatorSession } from "@/server/identity/operator-sessions";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { auditOperatorsAs, listAuditAs } from "@/server/services/audit-reads";
import { runCommand, system } from "@/server/services/command";
import { applyImportAs, dryRunImportAs, exportConfigAs } from "@/server/services/config";
import { economyAnalyticsAs } from "@/server/services/economy/analytics";
import {
  adjustPlayerAs,
  createCurrencyAs,
  createItemAs,
  createPurchaseAs,
  deleteCurrencyAs,
  deleteItemAs,
  deletePurchaseAs,
  updateCurrencyAs,
  updateItemAs,
  updatePurchaseAs,
} from "@/server/services/economy/commands";
import {
  currencyTotalsAs,
  holdersAboveAs,
  listCurrenciesAs,
  listItemsAs,
  listPurchasesAs,
  playerHoldingsAs,
  playerLedgerAs,
} from "@/server/services/economy/operator";
import { getEmailSettingsAs, listEmailsAs, openEmailAs, setEmailSettingsAs } from "@/server/services/email";
import { exportAs } from "@/server/services/exports";
import { instanceHealthAs, projectHealthAs } from "@/server/services/health";
import { identityProvidersAs, removeIdentityProviderAs, saveIdentityProviderAs } from "@/server/services/identity-providers";
import {
  createBoardAs,
  deleteBoardAs,
  removeEntryAs,
  resetBoardAs,
  setScoreAs,
  updateBoardAs,
} from "@/server/services/leaderboards/commands";
import {
  boardAs,
  boardEntriesAs,
  listBoardsAs,
  listPeriodsAs,
  searchEntriesAs,
  topLeaderboardsAs,
} from "@/server/services/leaderboards/operator";
import { addMemberAs, listMembersAs, removeMemberAs, revokeInviteAs, setMemberRoleAs } from "@/server/services/members";
import {
  accountActivityAs,
  changePasswordAs,
  createTokenAs,
  endSessionAs,
  listOperatorsAs,
  listSessionsAs,
  listTokensAs,
  removeOperatorAs,
  revokeTokenAs,
  setOperatorCanCreateProjectsAs,
  setOperatorDisabledAs,
  signOutEverywhereAs,
  upsertOperator,
} from "@/server/services/operators";
import { playerDetailAs, playerSaveAs } from "@/server/services/players/admin";
import { banPlayersAs, grantPlayersAs } from "@/server/services/players/bulk";
import {
  banPlayerAs,
  deletePlayerAs,
  exportPlayerAs,
  playerDataAs,
  resendVerificationAs,
  revokePlayerSessionsAs,
  sendResetCodeAs,
  setDisplayNameAs,
  setPlayerDataAs,
  unbanPlayerAs,
} from "@/server/services/players/commands";
import { countPlayersAs, searchPlayersAs } from "@/server/services/players/search";
import {
  createApiKeyAs,
  createProjectAs,
  deleteProjectAs,
  listApiKeysAs,
  listProjectsAs,
  projectAs,
  renameProjectAs,
  revokeApiKeyAs,
  setDataSettingsAs,
  setPlanAs,
} from "@/server/services/projects/commands";
import {
  countAudienceAs,
  createOverrideAs,
  deleteAudienceAs,
  deleteKeyAs,
  deleteOverrideAs,
  listAudiencesAs,
  listExperimentsAs,
  listKeysAs,
  resolveForPlayerAs,
  setExperimentStatusAs,
  updateOverrideAs,
  upsertAudienceAs,
  upsertExperimentAs,
  upsertKeyAs,
} from "@/server/services/remote-config/operator";
import {
  banFromQueueAs,
  dismissReportsAs,
  moderationPlayerAs,
  moderationQueueAs,
  removeReportedEntriesAs,
  reportReasonsAs,
  setReportReasonsAs,
  warnPlayerAs,
} from "@/server/services/reports/operator";
import { createStoreProductAs, deleteStoreProductAs, updateStoreProductAs } from "@/server/services/store/products";
import { listStoreProductsAs, listStorePurchasesAs, storePurchaseAs, storeRevenueAs } from "@/server/services/store/purchases";
import { refundByHandAs } from "@/server/services/store/refunds";
import {
  listStoreSettingsAs,
  removeStoreSettingsAs,
  rotateNotificationTokenAs,
  setRefundPolicyAs,
  setStoreSettingsAs,
} from "@/server/services/store/settings";
import {
  createWebhookEndpointAs,
  deleteWebhookEndpointAs,
  getWebhookDeliveryAs,
  getWebhookEndpointAs,
  listWebhookDeliveriesAs,
  listWebhookEndpointsAs,
  replayWebhookEventsAs,
  resendWebhookDeliveryAs,
  rotateWebhookSecretAs,
  sendWebhookTestAs,
  updateWebhookEndpointAs,
} from "@/server/services/webhooks/endpoints";
import { makeProject } from "../support/fixtures";
import { root } from "../support/launch.mjs";
import { ctx, newOperator, refusalCode } from "../support/operators";

/**
 * Operator commands are services that authorize, run, audit and invalidate themselves
 * (server/services/command.ts): called directly — as a CLI, a job or this test would, without
 * tRPC — they answer an operator without the role exactly as the dashboard does.
 */

type Ctx = ReturnType<typeof ctx>;
type Fixture = { projectId: string; viewerId: string };
const PROJECT_NOT_FOUND = "NOT_FOUND (Project not found.)";

/** How a service answered: its refusal's code; a NOT_FOUND names its message (a missing row is not a hidden project). */
async function answer(call: (c: Ctx) => Promise<unknown>, c: Ctx): Promise<string> {
  try {
    await call(c); // a service that throws before returning its promise is refused here too
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return error.code === "NOT_FOUND" ? `NOT_FOUND (${error.message})` : error.code;
  }
  return "answered";
}

const playerId = "00000000-0000-7000-8000-000000000001";
const missingId = "00000000-0000-7000-8000-0000000000ff";

/** Every project command service (admin or owner), called with an input it would accept from its role. */
function projectCommands({ projectId, viewerId }: Fixture): Record<string, (c: Ctx) => Promise<unknown>> {
  const id = "gems";
  const board = { projectId, id: "weekly" };
  const document = { version: 1 as const, currencies: [], items: [], purchases: [], leaderboards: [], identityProviders: [] };
  const bulk = { projectId, playerIds: [playerId], batch: missingId, reason: "support" };
  const endpoint = { projectId, endpointId: missingId };
  return {
    createCurrencyAs: (c) =>
      createCurrencyAs(c, { projectId, currency: { id, name: "Gems", initialBalance: 0, maxBalance: null } as never }),
    updateCurrencyAs: (c) => updateCurrencyAs(c, { projectId, id, patch: { name: "G" } }),
    deleteCurrencyAs: (c) => deleteCurrencyAs(c, { projectId, id }),
    createItemAs: (c) => createItemAs(c, { projectId, item: { id, name: "Sword" } as never }),
    updateItemAs: (c) => updateItemAs(c, { projectId, id, patch: { name: "S" } }),
    deleteItemAs: (c) => deleteItemAs(c, { projectId, id }),
    createPurchaseAs: (c) => createPurchaseAs(c, { projectId, purchase: { id, name: "P", costs: [], rewards: [] } as never }),
    updatePurchaseAs: (c) => updatePurchaseAs(c, { projectId, id, patch: { name: "P2" } }),
    deletePurchaseAs: (c) => deletePurchaseAs(c, { projectId, id }),
    adjustPlayerAs: (c) =>
      adjustPlayerAs(c, { projectId, playerId, direction: "grant", currencies: [{ currencyId: id, amount: 1 }], items: [], reason: "x" }),
    createBoardAs: (c) => createBoardAs(c, { projectId, board: { id: board.id } as never }),
    updateBoardAs: (c) => updateBoardAs(c, { ...board, patch: {} }),
    deleteBoardAs: (c) => deleteBoardAs(c, board),
    resetBoardAs: (c) => resetBoardAs(c, board),
    removeEntryAs: (c) => removeEntryAs(c, { ...board, playerId }),
    setScoreAs: (c) => setScoreAs(c, { ...board, playerId, score: 1, reason: "correction" }),
    banPlayerAs: (c) => banPlayerAs(c, { projectId, playerId, reason: "cheating" }),
    unbanPlayerAs: (c) => unbanPlayerAs(c, { projectId, playerId }),
    revokePlayerSessionsAs: (c) => revokePlayerSessionsAs(c, { projectId, playerId }),
    deletePlayerAs: (c) => deletePlayerAs(c, { projectId, playerId }),
    setPlayerDataAs: (c) => setPlayerDataAs(c, { projectId, playerId, key: "k", value: 1, version: 1 }),
    setDisplayNameAs: (c) => setDisplayNameAs(c, { projectId, playerId, displayName: "Renamed" }),
    exportPlayerAs: (c) => exportPlayerAs(c, { projectId, playerId }),
    sendResetCodeAs: (c) => sendResetCodeAs(c, { projectId, playerId }),
    resendVerificationAs: (c) => resendVerificationAs(c, { projectId, playerId }),
    banPlayersAs: (c) => banPlayersAs(c, bulk),
    grantPlayersAs: (c) => grantPlayersAs(c, { ...bulk, currencies: [{ currencyId: id, amount: 1 }] }),
    renameProjectAs: (c) => renameProjectAs(c, { projectId, name: "Renamed" }),
    setDataSettingsAs: (c) => setDataSettingsAs(c, { projectId, keepLedgerOfDeletedPlayers: true }),
    deleteProjectAs: (c) => deleteProjectAs(c, { projectId, confirmName: "x" }),
    createApiKeyAs: (c) => createApiKeyAs(c, { projectId, kind: "CLIENT", name: "k" }),
    revokeApiKeyAs: (c) => revokeApiKeyAs(c, { projectId, keyId: missingId }),
    dryRunImportAs: (c) => dryRunImportAs(c, { projectId, document }),
    applyImportAs: (c) => applyImportAs(c, { projectId, document }),
    exportAs: (c) => exportAs(c, { projectId, kind: "players", query: {} }),
    addMemberAs: (c) => addMemberAs(c, { projectId, email: "new-member@studio.test", role: "VIEWER" }),
    setMemberRoleAs: (c) => setMemberRoleAs(c, { projectId, operatorId: viewerId, role: "ADMIN" }),
    removeMemberAs: (c) => removeMemberAs(c, { projectId, operatorId: viewerId }),
    revokeInviteAs: (c) => revokeInviteAs(c, { projectId, inviteId: missingId }),
    saveIdentityProviderAs: (c) =>
      saveIdentityProviderAs(c, {
        projectId,
        provider: { id: "studio", issuer: "https://id.example.com", jwksUrl: "https://id.example.com/jwks", audience: "game" },
      }),
    removeIdentityProviderAs: (c) => removeIdentityProviderAs(c, { projectId, id: "studio" }),
    setEmailSettingsAs: (c) =>
      setEmailSettingsAs(c, { projectId, fromName: null, fromAddress: null, requireVerifiedEmail: true, resetUnverifiedEmail: false }),
    createWebhookEndpointAs: (c) =>
      createWebhookEndpointAs(c, { projectId, endpoint: { url: "https://hooks.example.com/in", eventTypes: ["player.created"] } as never }),
    updateWebhookEndpointAs: (c) => updateWebhookEndpointAs(c, { ...endpoint, patch: { enabled: false } }),
    deleteWebhookEndpointAs: (c) => deleteWebhookEndpointAs(c, endpoint),
    rotateWebhookSecretAs: (c) => rotateWebhookSecretAs(c, endpoint),
    resendWebhookDeliveryAs: (c) => resendWebhookDeliveryAs(c, { projectId, deliveryId: missingId }),
    replayWebhookEventsAs: (c) => replayWebhookEventsAs(c, { ...endpoint, from: "2025-01-01T00:00:00Z", to: "2025-01-02T00:00:00Z" }),
    sendWebhookTestAs: (c) => sendWebhookTestAs(c, endpoint),
    createStoreProductAs: (c) =>
      createStoreProductAs(c, {
        projectId,
        product: { id: "gems-500", name: "Gems", rewards: [{ currencyId: id, amount: 1 }], appleProductId: "a.b" },
      }),
    updateStoreProductAs: (c) => updateStoreProductAs(c, { projectId, id: "gems-500", patch: { name: "G" } }),
    deleteStoreProductAs: (c) => deleteStoreProductAs(c, { projectId, id: "gems-500" }),
    refundByHandAs: (c) => refundByHandAs(c, { projectId, receiptId: missingId, reason: "chargeback" }),
    setStoreSettingsAs: (c) =>
      setStoreSettingsAs(c, { projectId, input: { store: "apple", settings: { bundleId: "com.example.game", environments: "sandbox" } } }),
    removeStoreSettingsAs: (c) => removeStoreSettingsAs(c, { projectId, store: "steam" }),
    rotateNotificationTokenAs: (c) => rotateNotificationTokenAs(c, { projectId, store: "google" }),
    setRefundPolicyAs: (c) => setRefundPolicyAs(c, { projectId, policy: "ban" }),
    setReportReasonsAs: (c) => setReportReasonsAs(c, { projectId, reasons: ["cheating"] }),
    dismissReportsAs: (c) => dismissReportsAs(c, { projectId, playerId }),
    warnPlayerAs: (c) => warnPlayerAs(c, { projectId, playerId, reason: "language" }),
    banFromQueueAs: (c) => banFromQueueAs(c, { projectId, playerId, reason: "cheating" }),
    removeReportedEntriesAs: (c) => removeReportedEntriesAs(c, { projectId, playerId }),
    upsertKeyAs: (c) => upsertKeyAs(c, { projectId, key: "shop.discount", type: "number", defaultValue: 0, description: "", reason: "r" }),
    deleteKeyAs: (c) => deleteKeyAs(c, { projectId, key: "shop.discount", reason: "r" }),
    createOverrideAs: (c) =>
      createOverrideAs(c, {
        projectId,
        key: "shop.discount",
        audienceId: null,
        value: 1,
        priority: 0,
        rolloutPercent: 100,
        startsAt: null,
        endsAt: null,
        enabled: true,
        reason: "r",
      }),
    updateOverrideAs: (c) => updateOverrideAs(c, { projectId, id: missingId, value: 2, reason: "r" }),
    deleteOverrideAs: (c) => deleteOverrideAs(c, { projectId, id: missingId, reason: "r" }),
    upsertAudienceAs: (c) =>
      upsertAudienceAs(c, {
        projectId,
        id: "whales",
        name: "Whales",
        description: "",
        rules: { all: [{ field: "hasEmail", eq: true }] },
        reason: "r",
      }),
    deleteAudienceAs: (c) => deleteAudienceAs(c, { projectId, id: "whales", reason: "r" }),
    upsertExperimentAs: (c) =>
      upsertExperimentAs(c, {
        projectId,
        id: "price",
        name: "Price",
        description: "",
        audienceId: null,
        metric: null,
        variants: [
          { id: "a", name: "A", weight: 1, values: {} },
          { id: "b", name: "B", weight: 1, values: {} },
        ],
        reason: "r",
      }),
    setExperimentStatusAs: (c) => setExperimentStatusAs(c, { projectId, id: "price", status: "running", reason: "r" }),
  };
}

/** Every project read service (viewer and up). */
function projectReads({ projectId }: Fixture): Record<string, (c: Ctx) => Promise<unknown>> {
  return {
    projectAs: (c) => projectAs(c, { projectId }),
    listMembersAs: (c) => listMembersAs(c, { projectId }),
    identityProvidersAs: (c) => identityProvidersAs(c, { projectId }),
    getEmailSettingsAs: (c) => getEmailSettingsAs(c, { projectId }),
    listEmailsAs: (c) => listEmailsAs(c, { projectId, limit: 10 }),
    openEmailAs: (c) => openEmailAs(c, { projectId, id: missingId }),
    listWebhookEndpointsAs: (c) => listWebhookEndpointsAs(c, { projectId }),
    getWebhookEndpointAs: (c) => getWebhookEndpointAs(c, { projectId, endpointId: missingId }),
    listWebhookDeliveriesAs: (c) => listWebhookDeliveriesAs(c, { projectId, endpointId: missingId, limit: 10 }),
    getWebhookDeliveryAs: (c) => getWebhookDeliveryAs(c, { projectId, deliveryId: missingId }),
    projectHealthAs: (c) => projectHealthAs(c, { projectId, range: "1h" }),
    // The dashboard's other reads, beside their domains' commands (economy/operator.ts, leaderboards/operator.ts, players/, audit-reads.ts).
    listCurrenciesAs: (c) => listCurrenciesAs(c, { projectId }),
    listItemsAs: (c) => listItemsAs(c, { projectId }),
    listPurchasesAs: (c) => listPurchasesAs(c, { projectId }),
    currencyTotalsAs: (c) => currencyTotalsAs(c, { projectId }),
    holdersAboveAs: (c) => holdersAboveAs(c, { projectId, kind: "currency", id: "coins", max: 0 }),
    playerHoldingsAs: (c) => playerHoldingsAs(c, { projectId, playerId: missingId }),
    playerLedgerAs: (c) => playerLedgerAs(c, { projectId, playerId: missingId, limit: 10 }),
    listBoardsAs: (c) => listBoardsAs(c, { projectId }),
    topLeaderboardsAs: (c) => topLeaderboardsAs(c, { projectId, limit: 5 }),
    boardAs: (c) => boardAs(c, { projectId, id: "missing" }),
    boardEntriesAs: (c) => boardEntriesAs(c, { projectId, id: "missing", offset: 0, limit: 10 }),
    searchEntriesAs: (c) => searchEntriesAs(c, { projectId, id: "missing", query: "a", limit: 10 }),
    listPeriodsAs: (c) => listPeriodsAs(c, { projectId, id: "missing" }),
    searchPlayersAs: (c) => searchPlayersAs(c, { projectId, query: "", banned: "any", email: "any", limit: 10, offset: 0, sort: "newest" }),
    countPlayersAs: (c) => countPlayersAs(c, { projectId, query: "", banned: "any", email: "any" }),
    playerDetailAs: (c) => playerDetailAs(c, { projectId, playerId: missingId }),
    playerSaveAs: (c) => playerSaveAs(c, { projectId, playerId: missingId, key: "slot" }),
    listAuditAs: (c) => listAuditAs(c, { projectId, limit: 10 }),
    auditOperatorsAs: (c) => auditOperatorsAs(c, { projectId }),
    listApiKeysAs: (c) => listApiKeysAs(c, { projectId }),
    playerDataAs: (c) => playerDataAs(c, { projectId, playerId: missingId, key: "k" }),
    exportConfigAs: (c) => exportConfigAs(c, { projectId }),
    listStoreSettingsAs: (c) => listStoreSettingsAs(c, { projectId }),
    listStoreProductsAs: (c) => listStoreProductsAs(c, { projectId }),
    listStorePurchasesAs: (c) => listStorePurchasesAs(c, { projectId, limit: 10 }),
    storePurchaseAs: (c) => storePurchaseAs(c, { projectId, receiptId: missingId }),
    storeRevenueAs: (c) => storeRevenueAs(c, { projectId, days: 30 }),
    economyAnalyticsAs: (c) => economyAnalyticsAs(c, { projectId, days: 30 }),
    moderationQueueAs: (c) => moderationQueueAs(c, { projectId, sort: "newest", limit: 10 }),
    moderationPlayerAs: (c) => moderationPlayerAs(c, { projectId, playerId: missingId }),
    reportReasonsAs: (c) => reportReasonsAs(c, { projectId }),
    listKeysAs: (c) => listKeysAs(c, { projectId }),
    listAudiencesAs: (c) => listAudiencesAs(c, { projectId }),
    countAudienceAs: (c) => countAudienceAs(c, { projectId, rules: { all: [{ field: "hasEmail", eq: true }] } }),
    listExperimentsAs: (c) => listExperimentsAs(c, { projectId }),
    resolveForPlayerAs: (c) => resolveForPlayerAs(c, { projectId, playerId: missingId }),
  };
}

/** Operator services with a rule of their own, each checked by the test named here. */
const CHECKED_ELSEWHERE: Record<string, string> = {
  setPlanAs: "a project's plan is the instance admins'",
  instanceHealthAs: "instance-level services refuse",
  createProjectAs: "creating a project follows the unscoped rule",
  createTokenAs: "a token cannot mint tokens",
  revokeTokenAs: "a token cannot mint tokens",
  changePasswordAs: "account services follow the session rule",
  endSessionAs: "account services follow the session rule",
  signOutEverywhereAs: "account services follow the session rule",
  listSessionsAs: "account services follow the session rule",
  accountActivityAs: "account services follow the session rule",
  listTokensAs: "a token cannot mint tokens",
  listProjectsAs: "creating a project follows the unscoped rule",
  listOperatorsAs: "instance-level services refuse",
  setOperatorDisabledAs: "instance-level services refuse",
  setOperatorCanCreateProjectsAs: "instance-level services refuse",
  removeOperatorAs: "instance-level services refuse",
};

/**
 * Exports of the operator service modules that are not operator services: no caller to check
 * (the CLI's and the seed's, the public invite link's, or helpers taking a project the calling
 * service has authorized).
 */
const NOT_OPERATOR_SERVICES = new Set([
  "upsertOperator",
  "inviteInfoAs",
  "acceptInviteAs",
  "exportConfig",
  "schemaUrl",
  "assertJwksUrlAllowed",
  "upsertIdentityProvider",
  "findIdentityProvider",
  "listIdentityProviders",
  "deleteIdentityProvider",
  "allowsPlainHttp",
  "createEndpoint",
  "updateEndpoint",
  "deleteEndpoint",
  "listEndpoints",
  // The reads the …As wrappers beside them call with a bare project id (the exports, the game API, the config import share them).
  "playerHoldings",
  "playerLedger",
  "currencyTotals",
  "holdersAbove",
  "listBoards",
  "searchEntries",
  "entryOfPlayer",
  "topLeaderboards",
  "toRow",
  "idPrefixRange",
  "playerWhere",
  "searchPlayers",
  "countPlayers",
  "playersExport",
  "playerDetail",
  "deletePlayer",
]);

describe("operator commands called without tRPC", () => {
  it("refuse the signed-out (MISSING_TOKEN), a stranger (NOT_FOUND) and a too-low role (FORBIDDEN), changing and auditing nothing", async () => {
    const { projectId } = await makeProject();
    const [owner, viewer, stranger] = [
      await newOperator("OWNER", projectId),
      await newOperator("VIEWER", projectId),
      await newOperator(null, projectId),
    ];
    const demote = { projectId, operatorId: owner.id, role: "VIEWER" as const };
    expect(await refusalCode(setMemberRoleAs(ctx(null), demote))).toBe("MISSING_TOKEN");
    expect(await refusalCode(setMemberRoleAs(ctx(stranger), demote))).toBe("NOT_FOUND");
    expect(await refusalCode(setMemberRoleAs(ctx(viewer), demote))).toBe("FORBIDDEN");
    expect(await refusalCode(listMembersAs(ctx(stranger), { projectId }))).toBe("NOT_FOUND");
    expect((await prisma().projectMember.findFirstOrThrow({ where: { projectId, operatorId: owner.id } })).role).toBe("OWNER");
    expect(await prisma().auditEntry.count({ where: { projectId } })).toBe(0);
  });

  it("a command an owner runs is audited with the request id, and with the token when one was used", async () => {
    const { projectId } = await makeProject();
    const owner = await newOperator("OWNER", projectId);
    const viaSession = ctx(owner);
    await addMemberAs(viaSession, { projectId, email: `a-${randomBytes(3).toString("hex")}@studio.test`, role: "VIEWER" });
    const token = await createOperatorToken({ operator: owner, name: "cmd", role: "OWNER", projectIds: [projectId], instanceAdmin: false });
    const viaToken = ctx({ ...owner, token: { id: token.id, role: "OWNER", projectIds: [projectId] } });
    await addMemberAs(viaToken, { projectId, email: `b-${randomBytes(3).toString("hex")}@studio.test`, role: "VIEWER" });
    const rows = await prisma().auditEntry.findMany({ where: { projectId }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.action, r.requestId, r.tokenId])).toEqual([
      ["member.invite", viaSession.requestId, null],
      ["member.invite", viaToken.requestId, token.id],
    ]);
  });

  it("a token scoped to another project sees this one as not found, whatever its operator's role here", async () => {
    const { projectId } = await makeProject();
    const other = await makeProject();
    const owner = await newOperator("OWNER", projectId);
    await prisma().projectMember.create({ data: { projectId: other.projectId, operatorId: owner.id, role: "VIEWER" } });
    const token = await createOperatorToken({
      operator: owner,
      name: "other",
      role: "OWNER",
      projectIds: [other.projectId],
      instanceAdmin: false,
    });
    const scoped = ctx({ ...owner, token: { id: token.id, role: "OWNER", projectIds: [other.projectId] } });
    expect(await refusalCode(listMembersAs(scoped, { projectId }))).toBe("NOT_FOUND");
  });

  it("every project command service refuses the signed-out (MISSING_TOKEN), a viewer (FORBIDDEN) and a stranger (NOT_FOUND), and audits nothing", async () => {
    const { projectId } = await makeProject();
    const [viewer, stranger] = [await newOperator("VIEWER", projectId), await newOperator(null, projectId)];
    const commands = projectCommands({ projectId, viewerId: viewer.id });
    const seen: Record<string, string[]> = {};
    for (const [name, call] of Object.entries(commands))
      seen[name] = [await answer(call, ctx(null)), await answer(call, ctx(viewer)), await answer(call, ctx(stranger))];
    expect(seen).toEqual(
      Object.fromEntries(Object.keys(commands).map((name) => [name, ["MISSING_TOKEN", "FORBIDDEN", PROJECT_NOT_FOUND]])),
    );
    expect(await prisma().auditEntry.count({ where: { projectId } })).toBe(0);
  });

  it("every project read service refuses the signed-out (MISSING_TOKEN) and a stranger (NOT_FOUND)", async () => {
    const { projectId } = await makeProject();
    const stranger = await newOperator(null, projectId);
    const reads = projectReads({ projectId, viewerId: stranger.id });
    const seen: Record<string, string[]> = {};
    for (const [name, call] of Object.entries(reads)) seen[name] = [await answer(call, ctx(null)), await answer(call, ctx(stranger))];
    expect(seen).toEqual(Object.fromEntries(Object.keys(reads).map((name) => [name, ["MISSING_TOKEN", PROJECT_NOT_FOUND]])));
  });

  it("a project's plan is the instance admins': its owner is FORBIDDEN, an instance admin's viewer token too", async () => {
    const { projectId } = await makeProject();
    const owner = await newOperator("OWNER", projectId);
    const admin = { ...(await newOperator(null, projectId)), isInstanceAdmin: true };
    expect(await refusalCode(setPlanAs(ctx(owner), { projectId, plan: "PRO" }))).toBe("FORBIDDEN");
    const viewerToken = { ...admin, token: { id: "00000000-0000-7000-8000-000000000002", role: "VIEWER" as const, projectIds: null } };
    expect(await refusalCode(setPlanAs(ctx(viewerToken), { projectId, plan: "PRO" }))).toBe("FORBIDDEN");
    expect((await setPlanAs(ctx(admin), { projectId, plan: "PRO" })).plan).toBe("PRO");
  });

  it("a token cannot mint tokens, and revokes only itself", async () => {
    const { projectId } = await makeProject();
    const owner = await newOperator("OWNER", projectId);
    const spec = { name: "ci", role: "ADMIN" as const, projectIds: null, instanceAdmin: false };
    const first = await createTokenAs({ operator: owner, requestId: "t1" }, spec);
    const second = await createTokenAs({ operator: owner, requestId: "t2" }, spec);
    const viaFirst = { ...owner, token: { id: first.id, role: "ADMIN" as const, projectIds: null } };
    expect(await refusalCode(createTokenAs({ operator: viaFirst, requestId: "t3" }, spec))).toBe("FORBIDDEN");
    expect(await refusalCode(revokeTokenAs({ operator: viaFirst, requestId: "t4" }, { tokenId: second.id }))).toBe("NOT_FOUND");
    expect((await listTokensAs({ operator: viaFirst, requestId: "t-list" })).map((t) => t.id)).toEqual([first.id]);
    await revokeTokenAs({ operator: viaFirst, requestId: "t5" }, { tokenId: first.id });
    const rows = await prisma().auditEntry.findMany({ where: { operatorId: owner.id }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.action, r.requestId])).toEqual([
      ["token.create", "t1"],
      ["token.create", "t2"],
      ["token.revoke", "t5"],
    ]);
  });
  it("creating a project follows the unscoped rule: a project-scoped token and a read-only token are FORBIDDEN, an all-projects admin token creates it", async () => {
    const { projectId } = await makeProject();
    const email = `cmd-${randomBytes(4).toString("hex")}@studio.test`;
    const admin = {
      ...(await upsertOperator({ email, name: email, password: "a long operator passphrase 9", isInstanceAdmin: true })),
      isInstanceAdmin: true,
    };
    const viaToken = async (role: "ADMIN" | "VIEWER", projectIds: string[] | null): Promise<SessionOperator> => {
      const token = await createOperatorToken({ operator: admin, name: "projects", role, projectIds, instanceAdmin: false });
      return { ...admin, token: { id: token.id, role, projectIds } };
    };
    const name = `unscoped-${randomBytes(3).toString("hex")}`;
    expect(await refusalCode(createProjectAs({ operator: await viaToken("ADMIN", [projectId]), requestId: "p1" }, { name }))).toBe(
      "FORBIDDEN",
    );
    expect(await refusalCode(createProjectAs({ operator: await viaToken("VIEWER", null), requestId: "p2" }, { name }))).toBe("FORBIDDEN");
    expect(await prisma().project.count({ where: { name } })).toBe(0);
    const scoped = await listProjectsAs({ operator: await viaToken("ADMIN", [projectId]), requestId: "p-list" });
    expect(scoped.map((p) => p.id)).toEqual([projectId]);
    expect((await createProjectAs({ operator: await viaToken("ADMIN", null), requestId: "p3" }, { name })).name).toBe(name);
  });

  it("account services follow the session rule: with an access token, ending sessions and changing the password are FORBIDDEN and end nothing", async () => {
    const { projectId } = await makeProject();
    const owner = await newOperator("OWNER", projectId);
    const sessionId = await startOperatorSession({ operatorId: owner.id, userAgent: null, ip: null });
    const token = await createOperatorToken({ operator: owner, name: "all", role: "OWNER", projectIds: null, instanceAdmin: false });
    const viaToken = { ...owner, token: { id: token.id, role: "OWNER" as const, projectIds: null } };
    const password = { currentPassword: "a long operator passphrase 9", newPassword: "another long operator passphrase 10" };
    expect(await refusalCode(signOutEverywhereAs({ operator: viaToken, requestId: "s1" }))).toBe("FORBIDDEN");
    expect(await refusalCode(endSessionAs({ operator: viaToken, requestId: "s2" }, { sessionId }))).toBe("FORBIDDEN");
    expect(await refusalCode(changePasswordAs({ operator: viaToken, requestId: "s3" }, password))).toBe("FORBIDDEN");
    expect(await refusalCode(listSessionsAs(ctx(viaToken)))).toBe("FORBIDDEN");
    expect(await refusalCode(accountActivityAs(ctx(viaToken)))).toBe("FORBIDDEN");
    expect(await operatorForSession({ operatorId: owner.id, sessionId })).not.toBeNull();
    expect(await prisma().auditEntry.count({ where: { operatorId: owner.id } })).toBe(0);
    expect(await signOutEverywhereAs({ operator: { ...owner, sessionId }, requestId: "s4" })).toEqual({ ended: 1, revokedTokens: 1 });
  });

  it("instance-level services refuse an operator who is not an instance admin (FORBIDDEN), and instance health an admin's project-scoped token", async () => {
    const { projectId } = await makeProject();
    const owner = await newOperator("OWNER", projectId);
    const other = await newOperator(null, projectId);
    const o = { operatorId: other.id };
    expect(await refusalCode(listOperatorsAs(ctx(owner)))).toBe("FORBIDDEN");
    expect(await refusalCode(setOperatorDisabledAs(ctx(owner), { ...o, disabled: true }))).toBe("FORBIDDEN");
    expect(await refusalCode(setOperatorCanCreateProjectsAs(ctx(owner), { ...o, allowed: true }))).toBe("FORBIDDEN");
    expect(await refusalCode(removeOperatorAs(ctx(owner), o))).toBe("FORBIDDEN");
    expect(await refusalCode(instanceHealthAs(ctx(null), { range: "1h" }))).toBe("MISSING_TOKEN");
    expect(await refusalCode(instanceHealthAs(ctx(owner), { range: "1h" }))).toBe("FORBIDDEN");
    const scoped = { ...owner, isInstanceAdmin: true, token: { id: missingId, role: "OWNER" as const, projectIds: [projectId] } };
    expect(await refusalCode(instanceHealthAs(ctx(scoped), { range: "1h" }))).toBe("FORBIDDEN");
    expect(await prisma().operator.findUniqueOrThrow({ where: { id: other.id }, select: { disabledAt: true } })).toEqual({
      disabledAt: null,
    });
  });
});

describe("the runner's authorization strategies and prepare hook", () => {
  it("a project an operator creates (the creator rule) is audited in the new project as theirs", async () => {
    const email = `cmd-${randomBytes(4).toString("hex")}@studio.test`;
    const admin = {
      ...(await upsertOperator({ email, name: email, password: "a long operator passphrase 9", isInstanceAdmin: true })),
      isInstanceAdmin: true,
    };
    const c = ctx(admin);
    const project = await createProjectAs(c, { name: `created-${randomBytes(3).toString("hex")}` });
    const rows = await prisma().auditEntry.findMany({ where: { projectId: project.id } });
    expect(rows.map((r) => [r.action, r.target, r.operatorId, r.requestId, r.tokenId])).toEqual([
      ["project.create", project.id, admin.id, c.requestId, null],
    ]);
  });

  it("a change by the system is audited with no operator and no token", async () => {
    const { projectId } = await makeProject();
    await runCommand(null, {
      authorization: system(projectId, "system-1"),
      action: "webhook.disabled",
      target: missingId,
      run: async () => 1,
    });
    const rows = await prisma().auditEntry.findMany({ where: { projectId } });
    expect(rows.map((r) => [r.action, r.operatorId, r.requestId, r.tokenId])).toEqual([["webhook.disabled", null, "system-1", null]]);
  });

  it("prepare runs in the transaction before the caller is checked", async () => {
    const { projectId } = await makeProject();
    const prepared = new Error("prepared first");
    const call = runCommand(ctx(null), {
      projectId,
      minimum: "VIEWER",
      prepare: async () => {
        throw prepared;
      },
      action: "test.prepare",
      run: async () => undefined,
    });
    await expect(call).rejects.toBe(prepared);
  });
});

/**
 * A new operator service cannot ship without a refusal test: every function the operator service
 * modules export, and every function named `…As` anywhere under server/services, is in one of
 * the tables above, checked by a test named in CHECKED_ELSEWHERE, or named as not an operator service.
 */
const servicesRoot = path.join(root, "server/services");
const OPERATOR_SERVICE_MODULES = [
  "command.ts",
  "operators.ts",
  "economy/commands.ts",
  "leaderboards/commands.ts",
  "players/commands.ts",
  "players/bulk.ts",
  "projects/commands.ts",
  "members/index.ts",
  "identity-providers/index.ts",
  "webhooks/endpoints.ts",
  "email/index.ts",
  "config/index.ts",
  "exports/index.ts",
  "health/index.ts",
  "economy/operator.ts",
  "leaderboards/operator.ts",
  "players/search.ts",
  "players/admin.ts",
  "audit-reads.ts",
];
/** command.ts is the machinery every service goes through, not a service. */
const MACHINERY = new Set([
  "authorize",
  "runCommand",
  "signedIn",
  "projectRole",
  "accountRule",
  "lockProject",
  "system",
  "player",
  "creator",
  "viewerRead",
  "roleRead",
]);

describe("the refusal tables cover every operator service", () => {
  it("every exported function of an operator service module, and every …As under server/services, has a refusal test", async () => {
    const modules = readdirSync(servicesRoot, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .sort();
    const covered = new Set([
      ...Object.keys(projectCommands({ projectId: "", viewerId: "" })),
      ...Object.keys(projectReads({ projectId: "", viewerId: "" })),
      ...Object.keys(CHECKED_ELSEWHERE),
      ...NOT_OPERATOR_SERVICES,
      ...MACHINERY,
    ]);
    const exported = new Set<string>();
    const uncovered: string[] = [];
    for (const file of modules) {
      const exports = (await import(path.join(servicesRoot, file))) as Record<string, unknown>;
      const fullyClassified = OPERATOR_SERVICE_MODULES.includes(file) || path.basename(file) === "commands.ts";
      for (const [name, value] of Object.entries(exports)) {
        if (typeof value !== "function") continue;
        exported.add(name);
        if ((fullyClassified || name.endsWith("As")) && !covered.has(name)) uncovered.push(`${file}: ${name}`);
      }
    }
    expect(uncovered).toEqual([]);
    expect(modules.filter((file) => path.basename(file) === "commands.ts" && !OPERATOR_SERVICE_MODULES.includes(file))).toEqual([]);
    expect([...covered].filter((name) => !exported.has(name))).toEqual([]); // no stale entries
  });
});
