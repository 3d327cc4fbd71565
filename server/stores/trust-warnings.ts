import { ZEnv } from "../env-schema.mjs";

type StoreTrust = {
  STORE_APPLE_ROOT_CERTIFICATES?: string | undefined;
  STORE_GOOGLE_API_URL: string;
  STORE_GOOGLE_TOKEN_URL: string;
  STORE_STEAM_API_URL: string;
};

const SETTINGS = ["STORE_GOOGLE_API_URL", "STORE_GOOGLE_TOKEN_URL", "STORE_STEAM_API_URL"] as const;

/**
 * What the server says at start when it trusts something other than the real stores: another
 * Apple root (tests and `npm run stores:local` set one: whoever holds its key signs purchases
 * the server grants) or another Google or Steam address. Never refused — the test suite runs
 * production builds with them — but never silent: a production server must not run so by accident.
 */
export function storeTrustWarnings(config: StoreTrust): string[] {
  const warnings: string[] = [];
  if (config.STORE_APPLE_ROOT_CERTIFICATES !== undefined) {
    warnings.push(
      `STORE_APPLE_ROOT_CERTIFICATES is set: App Store receipts are trusted when they chain to ${config.STORE_APPLE_ROOT_CERTIFICATES} ` +
        "instead of Apple's root; whoever holds that root's keys can forge purchases. A production server must not set it.",
    );
  }
  for (const name of SETTINGS) {
    const standard = ZEnv.shape[name].parse(undefined);
    if (config[name] !== standard) {
      warnings.push(`${name} is ${config[name]}, not ${standard}: purchases are checked with it. A production server must not set it.`);
    }
  }
  return warnings;
}
