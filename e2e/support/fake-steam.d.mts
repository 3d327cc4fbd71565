export type FakeSteamRequest = {
  method: string;
  path: string;
  /** "ISteamMicroTxn" or "ISteamMicroTxnSandbox". */
  iface: string;
  /** "InitTxn", "QueryTxn", "FinalizeTxn", "GetReport". */
  name: string;
  /** "v3", … */
  version: string;
  /** The form or query parameters, without `key`. */
  params: Record<string, string>;
  /** The publisher key presented, wherever it came in. */
  key: string | string[] | undefined;
  keyIn: "parameter" | "header" | "none";
  contentType: string | null;
};

export type FakeSteamOrder = {
  orderid: string;
  transid: string;
  steamid: string;
  status: string;
  currency: string;
  time: string;
  country: string;
  usstate: string;
  timecreated: string;
  items: { itemid: number; qty: number; amount: number; vat: number; itemstatus: string }[];
};

export type FakeSteam = {
  url: string;
  requests: FakeSteamRequest[];
  approve(orderId: string): void;
  decline(orderId: string): void;
  refund(orderId: string, options?: { chargeback?: boolean }): void;
  failNext(
    n: number,
    status: number | "timeout",
    options?: { call?: "InitTxn" | "QueryTxn" | "FinalizeTxn" | "GetReport"; processed?: boolean },
  ): void;
  order(orderId: string): FakeSteamOrder;
  close(): Promise<void>;
};

export function startFakeSteam(options: {
  apiKey: string;
  appId: string;
  clock?: () => Date;
  transIdStart?: bigint;
  /** The loopback port to listen on; 0 (the default): a free one. */
  port?: number;
}): Promise<FakeSteam>;
