import { EVENT_TYPES, type EventType } from "@/server/services/webhooks/events";
import { EVENT_PAYLOADS } from "@/server/services/webhooks/payloads";

/**
 * The payload is what the OpenAPI document's `webhooks` says (it is generated from
 * EVENT_PAYLOADS): it parses, and it has no field the schema does not name — so a field the code
 * sends but the document lacks fails as surely as a missing one.
 */
export function documented(type: string, data: unknown): boolean {
  if (!(EVENT_TYPES as readonly string[]).includes(type)) return false;
  const schema = EVENT_PAYLOADS[type as EventType];
  if (!schema.safeParse(data).success) return false;
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return !shape || Object.keys(data as object).every((k) => Object.hasOwn(shape, k));
}
