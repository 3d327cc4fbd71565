import type { AnyEndpoint } from "../endpoint";
import { authEndpoints } from "./auth";
import { playerDataEndpoints } from "./player-data";
import { saveEndpoints } from "./saves";

/** Every /api/v1 endpoint, per resource, in the order the document lists them. */
export const API_RESOURCES: ReadonlyArray<readonly AnyEndpoint[]> = [authEndpoints, playerDataEndpoints, saveEndpoints];
