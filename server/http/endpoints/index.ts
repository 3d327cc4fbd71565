import type { AnyEndpoint } from "../endpoint";
import { authEndpoints } from "./auth";
import { configEndpoints } from "./config";
import { economyEndpoints } from "./economy";
import { leaderboardEndpoints } from "./leaderboards";
import { playerDataEndpoints } from "./player-data";
import { playerEndpoints } from "./players";
import { reportEndpoints } from "./reports";
import { saveEndpoints } from "./saves";

/** Every /api/v1 endpoint, per resource, in the order the document lists them. */
export const API_RESOURCES: ReadonlyArray<readonly AnyEndpoint[]> = [
  authEndpoints,
  playerEndpoints,
  reportEndpoints,
  playerDataEndpoints,
  saveEndpoints,
  leaderboardEndpoints,
  economyEndpoints,
  configEndpoints,
];
