/** The operator password rules (server/password-policy.ts and the schemas' 8–128), said before the first refusal. */
export const PASSWORD_RULES = "8 to 128 characters, not a commonly used password, and not your e-mail address or its name part.";
