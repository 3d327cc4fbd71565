import type { components, paths } from "./generated/schema.js";

type Schemas = components["schemas"];

/** Every error code of the contract (the server's one error table), as served in its OpenAPI document. */
export type ApiErrorCode = Schemas["Error"]["error"]["code"];

export type Visibility = Schemas["PlayerDataRecord"]["visibility"];
export type JsonValue = Schemas["JsonValue"];
export type OwnProfile = Schemas["OwnProfile"];
export type PublicProfile = Schemas["PublicProfile"];
export type PlayerExport = Schemas["PlayerExport"];
export type PlayerDataRecord = Schemas["PlayerDataRecord"];
export type SaveMetadata = Schemas["SaveMetadata"];
export type Save = Schemas["Save"];
export type LeaderboardPage = Schemas["LeaderboardPage"];
export type LeaderboardEntry = Schemas["LeaderboardEntry"];
export type LeaderboardPlayerEntry = Schemas["LeaderboardPlayerEntry"];
export type SubmitScoreResult = Schemas["SubmitScoreResult"];
export type CurrencyBalance = Schemas["CurrencyBalance"];
export type CurrencyChange = Schemas["CurrencyChange"];
export type InventoryEntry = Schemas["InventoryEntry"];
export type PurchaseResult = Schemas["PurchaseResult"];
export type EconomyTransaction = Schemas["EconomyTransaction"];
export type EconomyTransactionPage = Schemas["EconomyTransactionPage"];
/** What `economy.validateReceipt` sends: one shape per store, told apart by `store`. */
export type Receipt = Schemas["ReceiptBody"];
export type AppleReceipt = Extract<Receipt, { store: "apple" }>;
export type GooglePlayReceipt = Extract<Receipt, { store: "google" }>;
export type SteamReceipt = Extract<Receipt, { store: "steam" }>;
export type ReceiptResult = Schemas["ReceiptResult"];
export type SteamOrderInput = Schemas["SteamOrderBody"];
export type SteamOrder = Schemas["SteamOrder"];
export type PatchPlayerDataBody = Schemas["PatchPlayerDataBody"];
/** What `config.get()` answers: `values` (key → value), `assignments` (experiment id → variant id) and `version`. */
export type RemoteConfig = SuccessOf<"/config", "get">;
/** `config.get()`'s answer; `stale: true` when the server could not be reached and these are the values kept from its last answer. */
export type ConfigAnswer = RemoteConfig & { stale: boolean };
/** The type `config.value(key, fallback)` answers: `fallback`'s type, widened (a number for `0`). */
export type ConfigValue<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;
/** What `players.report` sends: one of the project's report reasons and an optional note. */
export type ReportInput = BodyOf<"/players/{id}/report", "post">;
/** What `players.report` answers (202). */
export type ReportResult = SuccessOf<"/players/{id}/report", "post">;
/** The server's session answer (what auth calls return on the wire). */
export type SessionResponse = Schemas["Session"];

export type Method = "get" | "post" | "put" | "patch" | "delete";
export type ApiPath = keyof paths;

type Operation<P extends ApiPath, M extends Method> = paths[P][M];
type JsonOf<R> = R extends { content: { "application/json": infer T } } ? T : never;

/** The JSON body an operation takes. */
export type BodyOf<P extends ApiPath, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
/** The path parameters an operation takes. */
export type PathParamsOf<P extends ApiPath, M extends Method> = Operation<P, M> extends { parameters: { path: infer T } } ? T : never;
/** The query parameters an operation takes. */
export type QueryOf<P extends ApiPath, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** What a successful answer of an operation carries: the 200/201/202 JSON, or undefined for a 204. */
export type SuccessOf<P extends ApiPath, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ?
        | (R extends { 200: infer A } ? JsonOf<A> : never)
        | (R extends { 201: infer B } ? JsonOf<B> : never)
        | (R extends { 202: infer C } ? JsonOf<C> : never)
        | (R extends { 204: unknown } ? undefined : never)
    : never;
