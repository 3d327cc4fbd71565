"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { toast } from "sonner";
import type { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { OnceSecret } from "@/components/ui/once-secret";
import { Badge, Button, Card, Input, Label, Select, State } from "@/components/ui/primitives";
import { type RefundPolicy, STORE_LABELS, type Store, ZStoreSettingsInput } from "@/server/services/store/schemas";
import { messageOf } from "./errors";
import { when } from "./format";
import { useProject } from "./project-context";

type Settings = RouterOutputs["store"]["settings"]["stores"][number];
type Values = Record<string, string>;

/** The fields of each store: settings (read back) and the credential (write-only). */
const FIELDS: Record<Store, { settings: Array<[key: string, label: string, hint?: string]>; secret: Array<[string, string, "area"?]> }> = {
  apple: {
    settings: [
      ["bundleId", "Bundle id", "com.studio.game"],
      ["appAppleId", "Apple ID of the app", "Required by Apple for production receipts (App Store Connect → App Information)."],
    ],
    secret: [
      ["keyId", "In-App Purchase key id"],
      ["issuerId", "Issuer id"],
      ["privateKey", "Private key (.p8)", "area"],
    ],
  },
  google: {
    settings: [["packageName", "Package name", "com.studio.game"]],
    secret: [["serviceAccount", "Service account key (JSON)", "area"]],
  },
  steam: {
    settings: [["appId", "App id", "480"]],
    secret: [["publisherKey", "Publisher Web API key"]],
  },
};

const ENVIRONMENTS = [
  ["production", "Production only"],
  ["sandbox", "Sandbox only"],
  ["both", "Production and sandbox"],
] as const;

/** The form's text as the service's input, or a sentence saying what is wrong. */
function inputOf(store: Store, v: Values, withSecret: boolean): { input: z.output<typeof ZStoreSettingsInput> } | { problem: string } {
  let secret: Record<string, unknown> | undefined;
  if (withSecret) {
    if (store === "google") {
      try {
        const parsed = JSON.parse(v.serviceAccount ?? "") as { client_email?: unknown; private_key?: unknown };
        secret = { client_email: parsed.client_email, private_key: parsed.private_key };
      } catch {
        return { problem: "Paste the service account's key file (JSON) as Google gave it." };
      }
    } else secret = Object.fromEntries(FIELDS[store].secret.map(([k]) => [k, v[k] ?? ""]));
  }
  const settings =
    store === "apple"
      ? { bundleId: v.bundleId ?? "", appAppleId: v.appAppleId ? Number(v.appAppleId) : null, environments: v.environments || "production" }
      : store === "google"
        ? { packageName: v.packageName ?? "", environments: v.environments || "both" }
        : { appId: v.appId ?? "", sandbox: v.sandbox === "true" };
  const parsed = ZStoreSettingsInput.safeParse({ store, settings, ...(secret ? { secret } : {}) });
  if (!parsed.success) return { problem: [...new Set(parsed.error.issues.map((i) => i.message))].join(" ") };
  return { input: parsed.data };
}

const valuesOf = (s: Settings): Values =>
  Object.fromEntries(Object.entries(s.settings ?? {}).map(([k, v]) => [k, v === null || v === undefined ? "" : String(v)]));

export function StoreSettingsCards({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.store.settings.queryOptions({ projectId }));
  if (settings.isPending) return <State kind="loading">Loading the stores…</State>;
  if (settings.error) return <State kind="error">{messageOf(settings.error)}</State>;
  return (
    <div className="space-y-6">
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
        {settings.data.stores.map((s) => (
          <StoreCard key={s.store} projectId={projectId} settings={s} />
        ))}
      </div>
      <RefundPolicyCard projectId={projectId} policy={settings.data.refundPolicy} />
    </div>
  );
}

function StoreCard({ projectId, settings: s }: { projectId: string; settings: Settings }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation(trpc.store.setSettings.mutationOptions());
  const remove = useMutation(trpc.store.removeSettings.mutationOptions());
  const rotate = useMutation(trpc.store.rotateNotificationToken.mutationOptions());
  const [values, setValues] = useState<Values>(() => valuesOf(s));
  const [replacing, setReplacing] = useState(!s.secretHint);
  const [problem, setProblem] = useState<string | null>(null);
  const [onceUrl, setOnceUrl] = useState<string | null>(null);
  const id = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.store.settings.queryKey({ projectId }) });
  const set = (k: string) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));
  const label = STORE_LABELS[s.store];
  return (
    <Card title={label} actions={s.configured ? <Badge tone="green">configured</Badge> : <Badge>not configured</Badge>}>
      <div className="space-y-3 text-sm" data-testid={`store-card-${s.store}`}>
        {canEdit ? (
          <form
            className="space-y-3"
            noValidate
            onSubmit={async (e) => {
              e.preventDefault();
              const built = inputOf(s.store, values, replacing);
              if ("problem" in built) {
                setProblem(built.problem);
                return;
              }
              setProblem(null);
              try {
                await save.mutateAsync({ projectId, input: built.input });
                toast.success(`${label} settings saved.`);
                // The credential is never shown again: the form forgets it.
                setValues((v) => Object.fromEntries(Object.entries(v).filter(([k]) => !FIELDS[s.store].secret.some(([sk]) => sk === k))));
                setReplacing(false);
                await refresh();
              } catch (error) {
                setProblem(messageOf(error));
              }
            }}
          >
            {FIELDS[s.store].settings.map(([k, text, hint]) => (
              <div key={k}>
                <Label htmlFor={`${id}-${k}`}>{text}</Label>
                <Input id={`${id}-${k}`} value={values[k] ?? ""} onChange={set(k)} placeholder={hint?.includes(" ") ? undefined : hint} />
                {hint?.includes(" ") && <p className="mt-1 text-xs text-zinc-500">{hint}</p>}
              </div>
            ))}
            {s.store === "steam" ? (
              <div>
                <Label htmlFor={`${id}-sandbox`}>Steam API</Label>
                <Select id={`${id}-sandbox`} value={values.sandbox ?? "false"} onChange={set("sandbox")}>
                  <option value="false">ISteamMicroTxn (real money)</option>
                  <option value="true">ISteamMicroTxnSandbox (no money moves)</option>
                </Select>
              </div>
            ) : (
              <div>
                <Label htmlFor={`${id}-env`}>Receipts accepted from</Label>
                <Select
                  id={`${id}-env`}
                  value={values.environments || (s.store === "apple" ? "production" : "both")}
                  onChange={set("environments")}
                >
                  {ENVIRONMENTS.map(([v, t]) => (
                    <option key={v} value={v}>
                      {t}
                    </option>
                  ))}
                </Select>
                <p className="mt-1 text-xs text-zinc-500">Sandbox purchases are granted but never counted as revenue.</p>
              </div>
            )}
            <fieldset className="rounded-md border border-zinc-200 p-3">
              <legend className="px-1 font-medium">Credential (write-only)</legend>
              {s.secretHint && (
                <p className="mb-2" data-testid={`store-secret-hint-${s.store}`}>
                  Set: {s.secretHint}
                  {s.secretUpdatedAt ? `, ${when(s.secretUpdatedAt)}` : ""}
                </p>
              )}
              {replacing ? (
                FIELDS[s.store].secret.map(([k, text, area]) => (
                  <div key={k} className="mb-2">
                    <Label htmlFor={`${id}-${k}`}>{text}</Label>
                    {area ? (
                      <textarea
                        id={`${id}-${k}`}
                        className="h-24 w-full rounded-md border border-zinc-300 bg-white px-3 py-2 font-mono text-xs"
                        value={values[k] ?? ""}
                        onChange={set(k)}
                        autoComplete="off"
                        spellCheck={false}
                      />
                    ) : (
                      <Input id={`${id}-${k}`} value={values[k] ?? ""} onChange={set(k)} autoComplete="off" spellCheck={false} />
                    )}
                  </div>
                ))
              ) : (
                <Button variant="secondary" onClick={() => setReplacing(true)}>
                  Replace credential
                </Button>
              )}
              {!s.secretHint && !replacing && <p className="text-zinc-500">None yet.</p>}
              <p className="mt-1 text-xs text-zinc-500">Kept encrypted and never shown again; only the hint above is.</p>
            </fieldset>
            {problem && (
              <p role="alert" className="text-red-700">
                {problem}
              </p>
            )}
            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={save.isPending}>
                Save {label}
              </Button>
              {s.configured && (
                <ConfirmDialog
                  trigger={<Button variant="secondary">Remove</Button>}
                  title={`Forget the ${label} account?`}
                  description={`Its settings and credential are deleted: new ${label} receipts are refused until it is set again. Sales already made stay.`}
                  confirmLabel="Remove"
                  onConfirm={async () => {
                    try {
                      await remove.mutateAsync({ projectId, store: s.store });
                      toast.success(`${label} removed.`);
                      setValues({});
                      await refresh();
                    } catch (error) {
                      toast.error(messageOf(error));
                      throw error;
                    }
                  }}
                />
              )}
            </div>
          </form>
        ) : (
          <dl className="space-y-1">
            {FIELDS[s.store].settings.map(([k, text]) => (
              <div key={k}>
                <dt className="text-zinc-500">{text}</dt>
                <dd>{values[k] || "—"}</dd>
              </div>
            ))}
            <div>
              <dt className="text-zinc-500">Credential</dt>
              <dd>{s.secretHint ? `${s.secretHint}${s.secretUpdatedAt ? `, set ${when(s.secretUpdatedAt)}` : ""}` : "none"}</dd>
            </div>
          </dl>
        )}
        {s.notificationUrl && (
          <div className="border-t border-zinc-100 pt-3">
            <p className="font-medium">Notification URL</p>
            {s.store === "apple" ? (
              <p className="text-xs text-zinc-600">
                Paste it in App Store Connect → App Information → App Store Server Notifications (Version 2), for production and sandbox.
              </p>
            ) : (
              <p className="text-xs text-zinc-600">
                The push endpoint of your Pub/Sub subscription for Real-time developer notifications. It carries a token shown once:{" "}
                {s.notificationTokenSet ? "one is set; rotate it to see a new URL (the old one stops working)." : "create one to see it."}
              </p>
            )}
            {s.store === "apple" && <code className="mt-1 block break-all rounded bg-zinc-50 px-2 py-1 text-xs">{s.notificationUrl}</code>}
            {s.store === "google" && canEdit && s.configured && (
              <Button
                variant="secondary"
                className="mt-2"
                onClick={async () => {
                  try {
                    const { notificationUrl } = await rotate.mutateAsync({ projectId, store: "google" });
                    setOnceUrl(notificationUrl);
                    await refresh();
                  } catch (error) {
                    toast.error(messageOf(error));
                  }
                }}
              >
                {s.notificationTokenSet ? "Rotate token" : "Create token"}
              </Button>
            )}
            {onceUrl && (
              <OnceSecret
                secret={onceUrl}
                noun="notification URL"
                testId="google-notification-url"
                stored="its token is stored as a hash"
                onDone={() => setOnceUrl(null)}
              />
            )}
          </div>
        )}
      </div>
    </Card>
  );
}

const POLICIES: Array<[RefundPolicy, string, string]> = [
  [
    "clamp",
    "Take back what is left",
    "A refund takes back what the purchase granted, no more than the player still holds; what they already spent is recorded on the purchase as not taken back. Balances never go below zero.",
  ],
  [
    "ban",
    "Take back what is left, and ban",
    "The same, and a player who already spent some of it is banned (you can lift the ban on their page).",
  ],
];

function RefundPolicyCard({ projectId, policy }: { projectId: string; policy: RefundPolicy }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const set = useMutation(trpc.store.setRefundPolicy.mutationOptions());
  return (
    <Card title="Refund policy">
      <fieldset className="space-y-2 text-sm" disabled={!canEdit || set.isPending}>
        <legend className="mb-1 text-zinc-600">When a store (or an operator) refunds a purchase:</legend>
        {POLICIES.map(([value, title, sentence]) => (
          <label key={value} className="flex items-start gap-2">
            <input
              type="radio"
              name="refund-policy"
              className="mt-1"
              checked={policy === value}
              onChange={async () => {
                try {
                  await set.mutateAsync({ projectId, policy: value });
                  toast.success("Refund policy saved.");
                  await queryClient.invalidateQueries({ queryKey: trpc.store.settings.queryKey({ projectId }) });
                } catch (error) {
                  toast.error(messageOf(error));
                }
              }}
            />
            <span>
              <span className="font-medium">{title}.</span> {sentence}
            </span>
          </label>
        ))}
      </fieldset>
    </Card>
  );
}
