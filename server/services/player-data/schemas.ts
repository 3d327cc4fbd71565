import { z } from "zod";
import { ZJsonValue } from "../json-value";

export const KEY_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
/** Match the pattern but cannot round-trip: `.`/`..` are path segments, `__proto__` a JavaScript accessor. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([".", "..", "__proto__"]);
/** The one key rule, for data paths, data bodies (PATCH set and delete) and save paths. */
export const ZKey = z
  .string()
  .regex(KEY_PATTERN, "Keys match ^[A-Za-z0-9_.-]{1,128}$.")
  .refine((key) => !RESERVED_KEYS.has(key), "The keys `.`, `..` and `__proto__` are reserved.")
  .meta({ description: "Matches `^[A-Za-z0-9_.-]{1,128}$`, except `.`, `..` and `__proto__`.", example: "settings.audio" });
export const ZPlayerRef = z
  .union([z.literal("me"), z.string().uuid()])
  .meta({ description: "A player id, or `me` for the caller.", example: "me" });

export const LIMITS = {
  valueBytes: 1024 * 1024,
  keysPerPlayer: 2_000,
  bytesPerPlayer: 5 * 1024 * 1024,
  opsPerPatch: 100,
} as const;

export const ZVisibility = z.enum(["private", "public", "protected"]).meta({
  description:
    "private: owner reads and writes. public: any player of the project reads, owner writes. protected: owner reads, only a server key writes.",
});
export type Visibility = z.infer<typeof ZVisibility>;

export const ZDataRecord = z
  .object({
    key: z.string(),
    value: ZJsonValue,
    version: z.number().int().min(1),
    visibility: ZVisibility,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "PlayerDataRecord" });
export type DataRecord = z.infer<typeof ZDataRecord>;

export const ZDataParams = z.strictObject({ id: ZPlayerRef });
export const ZDataKeyParams = z.strictObject({ id: ZPlayerRef, key: ZKey });

export const ZPutDataBody = z
  .strictObject({
    value: ZJsonValue,
    visibility: ZVisibility.optional().meta({ description: "Defaults to private on create; unchanged on update." }),
  })
  .meta({ id: "PutPlayerDataBody" });

export const ZPatchDataBody = z
  .strictObject({
    set: z
      .record(
        ZKey,
        z.strictObject({
          value: ZJsonValue,
          visibility: ZVisibility.optional(),
          version: z.number().int().min(0).optional().meta({ description: "Expected current version; 0 = the key must not exist." }),
        }),
      )
      .default({}),
    delete: z.array(ZKey).max(LIMITS.opsPerPatch).default([]),
  })
  .superRefine((body, ctx) => {
    const setKeys = Object.keys(body.set);
    if (setKeys.length + body.delete.length > LIMITS.opsPerPatch) {
      ctx.addIssue({ code: "custom", message: `At most ${LIMITS.opsPerPatch} operations per request.`, path: [] });
    }
    if (setKeys.length + body.delete.length === 0) ctx.addIssue({ code: "custom", message: "Nothing to do.", path: [] });
    for (const key of body.delete)
      if (Object.hasOwn(body.set, key)) ctx.addIssue({ code: "custom", message: `"${key}" is both set and deleted.`, path: ["delete"] });
    if (new Set(body.delete).size !== body.delete.length)
      ctx.addIssue({ code: "custom", message: "Duplicate keys in delete.", path: ["delete"] });
  })
  .meta({ id: "PatchPlayerDataBody" });
export type PatchDataBody = z.infer<typeof ZPatchDataBody>;
