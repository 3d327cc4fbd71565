import { z } from "zod";
import { passwordProblem } from "../../password-policy";
import { ZDisplayName } from "../profiles/schemas";

export const ZSession = z
  .object({
    playerId: z.string().uuid(),
    accessToken: z.string().meta({ description: "JWT (HS256) for `Authorization: Bearer`." }),
    refreshToken: z.string().meta({ description: "Opaque; exchange at /auth/refresh. Valid 30 days, rotates on every use." }),
    expiresIn: z.number().int().meta({ description: "Seconds until the access token expires." }),
    tokenType: z.literal("Bearer"),
    created: z.boolean().meta({ description: "True when this call created the player." }),
  })
  .meta({ id: "Session" });
export type SessionDto = z.infer<typeof ZSession>;

/**
 * 32–96 random bytes as base64url without padding: 43–128 characters of A–Z a–z 0–9 `-` `_`.
 * Compared as sent (its SHA-256), never decoded.
 */
/**
 * 43 random base64url characters have fewer than 16 different ones with probability ~6e-14: a
 * secret that does is hand-made ("aaaa…", a short word repeated), not random, and refused. A check
 * against obvious mistakes, not a proof of randomness.
 */
const MIN_DISTINCT_SYMBOLS = 16;

export const ZDeviceSecret = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43,128}$/, "43–128 characters of A–Z, a–z, 0–9, '-' and '_' (base64url of 32+ random bytes, no padding).")
  .refine((secret) => new Set(secret).size >= MIN_DISTINCT_SYMBOLS, {
    message: `Too little randomness: at least ${MIN_DISTINCT_SYMBOLS} different characters (a secret from a cryptographic random generator has about 30).`,
  })
  .meta({
    description:
      "A secret the device generated once and keeps (32–96 random bytes, base64url without padding: 43–128 characters). " +
      "Stored only as its SHA-256. Must come from a cryptographic random generator: whoever presents it signs in as its player. " +
      "A secret of fewer than 16 different characters (`aaaa…`, a word repeated) is refused as made by hand.",
    example: "q3Zb1sV0r0cQm8q6mS1m4a2n9Yx7Kp0H2d5Jt8LwXeA",
  });

/** `POST /auth/anonymous` takes no body, `{}`, or `{deviceSecret}`. */
export const ZAnonymousBody = z.strictObject({ deviceSecret: ZDeviceSecret.optional() }).optional().meta({ id: "AnonymousBody" });

const ZEmail = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: "Must be an e-mail address." }));

export const ZRegisterBody = z
  .strictObject({
    email: ZEmail,
    password: z.string().min(8, "At least 8 characters.").max(128, "At most 128 characters."),
    displayName: ZDisplayName.optional(),
  })
  .superRefine((body, ctx) => {
    const problem = passwordProblem(body.password, body.email);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["password"] });
  })
  .meta({
    id: "RegisterBody",
    description:
      "Passwords: 8–128 characters, not one of the ~49,000 most common leaked passwords (case-insensitive), not the e-mail address " +
      "or a password containing its name part (4+ characters), not only spaces (NIST SP 800-63B). Refusals are 400 VALIDATION_ERROR " +
      "with the reason at `body.password`.",
  });

export const ZLoginBody = z
  .strictObject({
    email: ZEmail,
    password: z.string().min(1).max(128),
  })
  .meta({ id: "LoginBody" });

export const ZIdpBody = z
  .strictObject({
    provider: z.string().min(1).max(64).meta({ description: "The id an operator gave the identity provider." }),
    token: z.string().min(1).max(16_384).meta({ description: "The provider's OpenID Connect ID token (a JWT)." }),
  })
  .meta({ id: "IdpBody" });

export const ZRefreshBody = z.strictObject({ refreshToken: z.string().min(1).max(512) }).meta({ id: "RefreshBody" });

const ZCode = z
  .string()
  .trim()
  .regex(/^(\d{6}|[0-9A-Za-z]{4}(-?[0-9A-Za-z]{4}){3})$/, "Six digits, or the 16-character recovery code (XXXX-XXXX-XXXX-XXXX).")
  .meta({
    description:
      "The six-digit code from the e-mail, or the 16-character recovery code (`XXXX-XXXX-XXXX-XXXX`) mailed when too many wrong codes locked guessing.",
    example: "048213",
  });

export const ZPasswordResetBody = z.strictObject({ email: ZEmail }).meta({ id: "PasswordResetBody" });

export const ZPasswordResetConfirmBody = z
  .strictObject({
    email: ZEmail,
    code: ZCode,
    password: z.string().min(8, "At least 8 characters.").max(128, "At most 128 characters."),
  })
  .superRefine((body, ctx) => {
    const problem = passwordProblem(body.password, body.email);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["password"] });
  })
  .meta({ id: "PasswordResetConfirmBody", description: "The new password follows the registration rules." });

export const ZVerifyEmailBody = z.strictObject({ code: ZCode }).meta({ id: "VerifyEmailBody" });

export const ZAccepted = z.strictObject({}).meta({ id: "Accepted", description: "Accepted; the e-mail, if any, is on its way." });
