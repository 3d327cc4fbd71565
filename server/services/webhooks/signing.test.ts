import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, newSecret, signatureHeaders, signingSecrets } from "./signing";

const body = JSON.stringify({ id: "msg_1", type: "webhook.test", data: { hello: "wörld" } });
const now = () => Math.floor(Date.now() / 1000);

describe("webhook signing", () => {
  it("a new secret is whsec_ with 32 random bytes in base64", () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  it("the standardwebhooks library verifies a signed delivery", () => {
    const secret = newSecret();
    const headers = signatureHeaders({ id: "msg_abc", timestamp: now(), body, secrets: [secret] });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("the library refuses a changed body and another secret", () => {
    const secret = newSecret();
    const headers = signatureHeaders({ id: "msg_abc", timestamp: now(), body, secrets: [secret] });
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it("two secrets give two signatures and each verifies alone (rotation overlap)", () => {
    const current = newSecret();
    const previous = newSecret();
    const headers = signatureHeaders({ id: "msg_rot", timestamp: now(), body, secrets: [current, previous] });
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
  });

  it("a secret encrypted at rest decrypts to itself and its stored form does not contain it", () => {
    const secret = newSecret();
    const stored = encryptSecret(secret);
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(encryptSecret(secret)).not.toBe(stored);
    expect(decryptSecret(stored)).toBe(secret);
  });

  it("a tampered stored secret does not decrypt", () => {
    const stored = encryptSecret(newSecret());
    const parts = stored.split(":");
    const data = Buffer.from(parts[3] ?? "", "base64url");
    data[0] = (data[0] ?? 0) ^ 1;
    expect(() => decryptSecret([parts[0], parts[1], parts[2], data.toString("base64url")].join(":"))).toThrow();
  });

  it("the previous secret signs only while its overlap lasts", () => {
    const current = newSecret();
    const previous = newSecret();
    const endpoint = (until: Date) => ({
      secret: encryptSecret(current),
      previousSecret: encryptSecret(previous),
      previousSecretUntil: until,
    });
    expect(signingSecrets(endpoint(new Date(Date.now() + 60_000)))).toEqual([current, previous]);
    expect(signingSecrets(endpoint(new Date(Date.now() - 1)))).toEqual([current]);
  });
});
