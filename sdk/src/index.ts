export { createClient, type GameClient, type WriteOptions } from "./client.js";
export {
  type ClientErrorCode,
  type ConflictCopy,
  type DataConflictError,
  type ErrorCode,
  GameApiError,
  type SaveConflictError,
  SessionEndedError,
  type VersionConflict,
  VersionConflictError,
} from "./errors.js";
export { memoryStorage, type Session, type SessionStorage } from "./session.js";
export type { CallOptions, ClientOptions, RetryOptions } from "./transport.js";
export type {
  ApiErrorCode,
  CurrencyBalance,
  CurrencyChange,
  EconomyTransaction,
  EconomyTransactionPage,
  InventoryEntry,
  JsonValue,
  LeaderboardEntry,
  LeaderboardPage,
  LeaderboardPlayerEntry,
  OwnProfile,
  PlayerDataRecord,
  PlayerExport,
  PublicProfile,
  PurchaseResult,
  Save,
  SaveMetadata,
  SubmitScoreResult,
  Visibility,
} from "./types.js";
