import type { FakeGooglePlay } from "./fake-google-play.mjs";
import type { FakeSteam } from "./fake-steam.mjs";

export type LocalStoreAccounts = {
  apple: { bundleId: string; appAppleId: number };
  google: { packageName: string };
  steam: { appId: string };
};
export const LOCAL_STORE_ACCOUNTS: Readonly<LocalStoreAccounts>;
export const DEFAULT_PORT: number;

export type LocalStores = {
  helperUrl: string;
  /** STORE_APPLE_ROOT_CERTIFICATES, STORE_GOOGLE_API_URL, STORE_GOOGLE_TOKEN_URL, STORE_STEAM_API_URL, STORE_REFUND_POLL_MINUTES. */
  env: Record<string, string>;
  settings: {
    apple: { bundleId: string; appAppleId: number; environments: "both" };
    google: { packageName: string; environments: "both"; serviceAccountFile: string };
    steam: { appId: string; sandbox: false; publisherKey: string };
  };
  serviceAccount: { client_email: string; private_key: string };
  google: FakeGooglePlay;
  steam: FakeSteam;
  close(): Promise<void>;
};

export function localStoreMaterial(dir: string): unknown;
export function startLocalStores(options: { dir: string; port?: number; accounts?: LocalStoreAccounts }): Promise<LocalStores>;
export function readDemo(dataDir: string): { apiKey: string; baseUrl: string } | undefined;
export function instructions(stores: LocalStores, demo: { apiKey: string; baseUrl: string } | undefined): string;
