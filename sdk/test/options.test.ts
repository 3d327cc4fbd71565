import { createClient } from "@game-backend/client";
import { describe, expect, it } from "vitest";

/** createClient refuses options that would otherwise fail later, as a NETWORK_ERROR or a 401, far from the mistake. */
const apiKey = "gb_client_example";
const baseUrl = "https://game.example.com";

function refusal(options: Partial<Parameters<typeof createClient>[0]>): unknown {
  try {
    createClient({ baseUrl, apiKey, ...options });
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("baseUrl", () => {
  it.each(["game.example.com", "localhost:3000", "//game.example.com"])(
    "%s (no scheme) throws a TypeError saying it has no scheme",
    (url) => {
      const error = refusal({ baseUrl: url });
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(
        `createClient: baseUrl "${url}" is not an absolute http(s) URL (it has no scheme), e.g. "https://game.example.com".`,
      );
    },
  );

  it.each([
    "ftp://game.example.com",
    "https://game.example.com/?project=1",
    "https://game.example.com/#top",
    "https://game example.com",
    "https://",
  ])("%s throws a TypeError saying it is not an absolute http(s) URL", (url) => {
    const error = refusal({ baseUrl: url });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      `createClient: baseUrl "${url}" is not an absolute http(s) URL, e.g. "https://game.example.com".`,
    );
  });

  it.each(["http://127.0.0.1:3000", "https://game.example.com/", "https://example.com/game", "HTTPS://GAME.EXAMPLE.COM"])(
    "%s is accepted",
    (url) => {
      expect(refusal({ baseUrl: url })).toBeUndefined();
    },
  );
});

describe("apiKey", () => {
  it("a key with a trailing newline (read from a file) throws a TypeError saying so", () => {
    const error = refusal({ apiKey: "gb_client_example\n" });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("createClient: apiKey ends with a newline.");
  });

  it.each([" gb_client_example", "gb_client_ example", "gb_client_example\t", "gb_client_\u0000example"])(
    "%j throws a TypeError naming whitespace or a control character",
    (key) => {
      const error = refusal({ apiKey: key });
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe("createClient: apiKey has whitespace or a control character.");
    },
  );

  it("an empty key throws a TypeError saying it is empty", () => {
    const error = refusal({ apiKey: "" });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("createClient: apiKey is empty.");
  });
});

describe("numbers", () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])("deadlineMs %s throws a TypeError: it must be above 0", (value) => {
    const error = refusal({ deadlineMs: value });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`createClient: deadlineMs must be a finite number above 0, not ${value}.`);
  });

  it.each([
    ["retry.retries", { retry: { retries: -1 } }],
    ["retry.baseDelayMs", { retry: { baseDelayMs: Number.NaN } }],
    ["retry.maxDelayMs", { retry: { maxDelayMs: -5 } }],
    ["refreshMarginSeconds", { refreshMarginSeconds: -30 }],
  ])("a negative or non-finite %s throws a TypeError naming it", (name, options) => {
    const error = refusal(options);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(
      new RegExp(`^createClient: ${name.replace(".", "\\.")} must be a finite number, 0 or more, not `),
    );
  });

  it("zero retries, zero delays and a zero refresh margin are accepted", () => {
    expect(refusal({ retry: { retries: 0, baseDelayMs: 0, maxDelayMs: 0 }, refreshMarginSeconds: 0, deadlineMs: 1 })).toBeUndefined();
  });
});
