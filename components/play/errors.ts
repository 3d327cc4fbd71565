import { GameApiError } from "@game-backend/client";

const NAMES: Record<string, string> = { coins: "coins", gems: "gems", potion: "potions", sword: "swords" };

/** A failed call in plain words for the player; the request id (when there is one) helps support find it. */
export function plainError(error: unknown): string {
  if (!(error instanceof GameApiError)) return error instanceof Error ? `Something went wrong: ${error.message}` : "Something went wrong.";
  const d = error.details;
  switch (error.code) {
    case "NETWORK_ERROR":
      return "Can't reach the game server. Check your connection and try again.";
    case "RATE_LIMITED":
      return `Too many requests right now. Try again in ${error.retryAfterSeconds ?? d.retryAfterSeconds ?? "a few"} seconds.`;
    case "SERVICE_UNAVAILABLE":
      return "The game server is busy or restarting. Try again in a moment.";
    case "INSUFFICIENT_FUNDS": {
      const name = NAMES[String(d.currencyId)] ?? String(d.currencyId ?? "currency");
      return `Not enough ${name}: you have ${d.balance ?? 0}, this needs ${d.requested ?? "more"}.`;
    }
    case "INSUFFICIENT_ITEMS":
      return `You don't have enough ${NAMES[String(d.itemId)] ?? "items"} for that.`;
    case "CURRENCY_MAX_EXCEEDED":
      return "Your wallet is full: spend some coins first.";
    case "PURCHASE_NOT_FOUND":
      return "The shop doesn't sell that on this server (an operator can add it on the dashboard's Economy page).";
    case "EMAIL_TAKEN":
      return "That e-mail already has an account. Sign out and sign in with it instead.";
    case "INVALID_CREDENTIALS":
      return "E-mail or password is wrong.";
    case "INVALID_CODE":
      return "That code is wrong, used or expired. Check the e-mail, or ask for a new code.";
    case "EMAIL_NOT_VERIFIED":
      return "Confirm your e-mail address first: enter the code from the e-mail we sent you.";
    case "PLAYER_BANNED":
      return `This account is banned${d.reason ? `: ${d.reason}` : "."}`;
    case "VALIDATION_ERROR": {
      const issues = Array.isArray(d.issues) ? (d.issues as { message?: string }[]) : [];
      return issues[0]?.message ?? "Please check what you entered.";
    }
    case "UNEXPECTED_RESPONSE":
    case "INTERNAL_ERROR":
      return `The game server had a problem${error.requestId ? ` (request ${error.requestId})` : ""}. Try again.`;
    default:
      return error.message;
  }
}

/** True when the error is the API's "this does not exist (yet)" for the given code. */
export function isMissing(error: unknown, code: "KEY_NOT_FOUND" | "SAVE_NOT_FOUND" | "ENTRY_NOT_FOUND"): boolean {
  return error instanceof GameApiError && error.code === code;
}
