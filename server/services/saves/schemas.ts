import { z } from "zod";
import { ZJsonValue } from "../json-value";
import { ZKey } from "../player-data/schemas";

export const SAVE_LIMITS = { dataBytes: 1024 * 1024, metaBytes: 2 * 1024, savesPerPlayer: 50 } as const;

const ZMeta = z
  .record(z.string(), ZJsonValue)
  .refine(
    (m) => Buffer.byteLength(JSON.stringify(m), "utf8") <= SAVE_LIMITS.metaBytes,
    `At most ${SAVE_LIMITS.metaBytes} bytes serialised.`,
  )
  .meta({
    description: "A small client object shown in slot pickers (label, playtime, device…), at most 2 KiB.",
    example: { label: "Chapter 3", playtimeSeconds: 5400 },
  });

export const ZSaveMetadata = z
  .object({
    key: z.string(),
    version: z.number().int().min(1),
    sizeBytes: z.number().int().min(0).meta({ description: "Bytes of `data` serialised as JSON (UTF-8)." }),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({
        description: "SHA-256 (hex) of `data` as the server serialised it (JSON.stringify); the stored text is returned unchanged.",
      }),
    meta: z.record(z.string(), ZJsonValue),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "SaveMetadata" });
export type SaveMetadata = z.infer<typeof ZSaveMetadata>;

export const ZSave = ZSaveMetadata.extend({ data: ZJsonValue }).meta({ id: "Save" });
export type Save = z.infer<typeof ZSave>;

export const ZSaveParams = z.strictObject({ key: ZKey });
export const ZPutSaveBody = z.strictObject({ data: ZJsonValue, meta: ZMeta.optional() }).meta({ id: "PutSaveBody" });
