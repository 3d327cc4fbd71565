import type { GameClient } from "@game-backend/client";

/** The SDK's answers as the game uses them (derived from the client, so they follow the SDK). */
export type Profile = Awaited<ReturnType<GameClient["players"]["me"]>>;
export type Currency = Awaited<ReturnType<GameClient["economy"]["currencies"]>>[number];
export type InventoryItem = Awaited<ReturnType<GameClient["economy"]["inventory"]>>[number];
export type BoardPage = Awaited<ReturnType<GameClient["leaderboards"]["page"]>>;
export type BoardEntry = BoardPage["entries"][number];
export type BoardAroundMe = Awaited<ReturnType<GameClient["leaderboards"]["me"]>>;
export type Wallet = { currencies: Currency[]; inventory: InventoryItem[] };
