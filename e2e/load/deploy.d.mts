export const ADMIN_DATABASE_URL: string;
export function missingBinaries(): string[];
export function haproxyConfig(o: { port: number; servers: Array<{ name: string; port: number }> }): string;
export function pgbouncerConfig(o: { port: number; dir: string; database: string; defaultPoolSize: number; maxClientConn: number }): string;
export type DeploymentOptions = {
  instances?: number;
  env?: Record<string, string | undefined>;
  instanceEnv?: (index: number) => Record<string, string | undefined>;
  redisUrl?: string;
  databasePoolSize?: number;
  defaultPoolSize?: number;
  maxClientConn?: number;
  jwtSecret?: string;
  /** false: DATABASE_URL without `?pgbouncer=true` (named prepared statements through the pooler; to show why the flag exists). */
  poolerFlag?: boolean;
};
export type DeployedInstance = { name: string; baseUrl: string; port: number; pid: number | undefined; output: () => string };
export type Deployment = {
  baseUrl: string;
  instances: DeployedInstance[];
  pid: number | undefined;
  pids: Array<number | undefined>;
  supportPids: { haproxy: number | undefined; pgbouncer: number | undefined; redis: number | undefined };
  demo: { baseUrl: string; apiKey: string; serverApiKey: string; freeApiKey: string; operatorEmail: string; operatorPassword: string };
  jwtSecret: string;
  database: string;
  store: string;
  databaseUrl: string;
  pooledUrl: string;
  redisUrl: string;
  output: () => string;
  // biome-ignore lint/suspicious/noExplicitAny: rows of any query
  sql: (text: string, values?: unknown[]) => Promise<{ rows: any[]; rowCount: number | null }>;
  stop: () => Promise<void>;
};
export function startDeployment(options?: DeploymentOptions): Promise<Deployment>;
export function withDeployment<T>(options: DeploymentOptions, body: (deployment: Deployment) => Promise<T>): Promise<T>;
export type LoadCounts = { requests: number; statuses: Record<string, number>; errors: number; timeouts: number };
export function mixedLoad(
  baseUrl: string,
  o: {
    key: string;
    sessions: Array<{ accessToken: string }>;
    board: string;
    duration?: number;
    amount?: number;
    connectionsPerRun?: number;
  },
): Promise<LoadCounts & { runs: Array<LoadCounts & { name: string }> }>;
