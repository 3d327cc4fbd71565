import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { hashPassword } from "@/server/passwords";
import { baseUrl } from "../support/api";
import { operatorSignIn } from "../support/operator-sign-in";

/**
 * Where next-auth sends an operator after signing in (its redirect callback, which the sign-in
 * form navigates to): a path on this site, never another host — including the forms a browser
 * turns into another host (tabs and newlines dropped, `\` read as `/`).
 */
const PASSWORD = "a long operator passphrase 9";
let email: string;

beforeAll(async () => {
  email = `redirect-${randomBytes(4).toString("hex")}@studio.test`;
  await prisma().operator.create({ data: { email, name: email, passwordHash: await hashPassword(PASSWORD) } });
});

describe("the sign-in callbackUrl", () => {
  it.each(["/\t/evil.com", "/\n/evil.com", "/\\evil.com", "//evil.com", "/%09/evil.com", "https://evil.com/projects"])(
    "L2: a callbackUrl of %j stays on this site after sign-in (the dashboard's /projects)",
    async (callbackUrl) => {
      const answer = await operatorSignIn(baseUrl(), { email, password: PASSWORD, callbackUrl });
      expect(answer.session).not.toBeNull();
      expect(answer.url).toBe(`${new URL(baseUrl()).origin}/projects`);
    },
  );

  it("L2: a callbackUrl that is a path on this site is kept", async () => {
    const answer = await operatorSignIn(baseUrl(), { email, password: PASSWORD, callbackUrl: "/tokens?x=1" });
    expect(answer.url).toBe(`${new URL(baseUrl()).origin}/tokens?x=1`);
  });
});
