export type FakeServiceAccount = {
  type: "service_account";
  client_email: string;
  private_key_id: string;
  private_key: string;
  publicKeyPem: string;
};

/** ProductPurchase fields the fake answers with (https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.products#ProductPurchase). */
export type FakeProductPurchase = {
  productId: string;
  /** Defaults to the fake's package: another one makes Google's purchaseTokenDoesNotMatchPackageName. */
  packageName?: string;
  purchaseState?: 0 | 1 | 2;
  consumptionState?: 0 | 1;
  acknowledgementState?: 0 | 1;
  /** 0 test, 1 promo, 2 rewarded; left out for an ordinary purchase. */
  purchaseType?: 0 | 1 | 2;
  /** null: a purchase without an order id (left out of the answer). */
  orderId?: string | null;
  purchaseTimeMillis?: number;
  regionCode?: string;
  quantity?: number;
  developerPayload?: string;
  obfuscatedExternalAccountId?: string;
};

export type FakeGooglePlay = {
  url: string;
  tokenUrl: string;
  requests: Array<{ method: string; path: string }>;
  setPurchase(purchaseToken: string, fields: FakeProductPurchase): void;
  voidPurchase(
    purchaseToken: string,
    fields?: { voidedReason?: number; voidedSource?: number; voidedTimeMillis?: number; voidedQuantity?: number },
  ): void;
  failNext(n: number, what: number | { status: number; reason: string } | "timeout", scope?: "api" | "token"): void;
  revokeAccessTokens(): void;
  purchase(purchaseToken: string): (FakeProductPurchase & { packageName: string }) | undefined;
  tokenHash(purchaseToken: string): string;
  close(): Promise<void>;
};

export function makeServiceAccount(): FakeServiceAccount;
export function pubsubPush(
  notification: unknown,
  options?: { messageId?: string; subscription?: string },
): {
  message: {
    attributes: Record<string, string>;
    data: string;
    messageId: string;
    message_id: string;
    publishTime: string;
    publish_time: string;
  };
  subscription: string;
};
export function startFakeGooglePlay(options: {
  publicKeyPem: string;
  packageName: string;
  clientEmail?: string;
  voidedPageSize?: number;
  accessTokenSeconds?: number;
  /** The loopback port to listen on; 0 (the default): a free one. */
  port?: number;
}): Promise<FakeGooglePlay>;
