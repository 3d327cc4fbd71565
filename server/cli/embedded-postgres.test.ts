import { expect, it } from "vitest";
import { sharedBuffersMb } from "./embedded-postgres.mjs";

const GB = 2 ** 30;

it("shared_buffers is a quarter of the machine's memory, at least 128 MB and at most 1,024 MB", () => {
  expect(sharedBuffersMb(0.25 * GB, undefined)).toBe(128);
  expect(sharedBuffersMb(2 * GB, undefined)).toBe(512);
  expect(sharedBuffersMb(24 * GB, undefined)).toBe(1024);
});

it("EMBEDDED_POSTGRES_SHARED_BUFFERS_MB overrides the computed value, also below 128 MB", () => {
  expect(sharedBuffersMb(24 * GB, 64)).toBe(64);
});
