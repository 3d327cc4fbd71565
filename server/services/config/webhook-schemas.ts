import { z } from "zod";
import { MAX_ENDPOINTS_PER_PROJECT, ZWebhookDescription, ZWebhookEventTypes, ZWebhookUrl } from "../webhooks/schemas";

/**
 * Webhook endpoints in the configuration document, keyed by URL (one endpoint per URL in a
 * project). Never a secret: an endpoint the import creates gets a new secret that nobody is
 * shown; rotate it in the dashboard or with `npm run admin -- webhooks rotate` to obtain one.
 * The list is optional (documents exported before webhooks existed stay valid): absent, the
 * project's endpoints are left alone; present, it is the whole set, as every other list.
 */
export const ZConfigWebhook = z.strictObject({
  url: ZWebhookUrl,
  description: ZWebhookDescription,
  eventTypes: ZWebhookEventTypes,
  enabled: z
    .boolean()
    .meta({ description: "A disabled endpoint gets no deliveries; enabling one that was disabled as failing re-enables it." }),
});
export type ConfigWebhook = z.infer<typeof ZConfigWebhook>;

export const ZConfigWebhooks = z
  .array(ZConfigWebhook)
  .max(MAX_ENDPOINTS_PER_PROJECT)
  .optional()
  .meta({ description: "Webhook endpoints by URL, without secrets. Absent: the project's endpoints are left as they are." });

/** The same URL twice in the document (the key). */
export function duplicateUrlIssues(list: ConfigWebhook[] | undefined): Array<{ path: PropertyKey[]; message: string }> {
  const seen = new Set<string>();
  const issues: Array<{ path: PropertyKey[]; message: string }> = [];
  (list ?? []).forEach((w, i) => {
    if (seen.has(w.url)) issues.push({ path: ["webhooks", i, "url"], message: `The URL "${w.url}" is listed twice.` });
    seen.add(w.url);
  });
  return issues;
}
