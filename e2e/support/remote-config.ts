import type { SessionOperator } from "@/server/identity/operator";
import { makeProject, type TestProject } from "./fixtures";
import { caller, newOperator } from "./operators";

/**
 * Remote config's test kit, shared by the files that test it from the game's side and from the
 * operators' side: a project with an owner calling the dashboard's procedures, and a key with an
 * experiment on it.
 */

export type RemoteConfigCalls = ReturnType<typeof caller>["remoteConfig"];

/** A project of its own, its owner, and the owner's remote-config procedures (as the dashboard calls them). */
export async function ownedProject(): Promise<{ project: TestProject; owner: SessionOperator; rc: RemoteConfigCalls }> {
  const project = await makeProject();
  const owner = await newOperator("OWNER", project.projectId);
  return { project, owner, rc: caller(owner).remoteConfig };
}

type Value = number | string;
type Variant = { id: string; name: string; value: Value };
type ExperimentOnKey = { key: string; defaultValue: Value; experiment: { id: string; name: string }; variants: [Variant, Variant] };

/** The price test: a price of 5, or 3 or 7 for the two halves of the players. */
export const PRICE_TEST = {
  key: "price",
  defaultValue: 5,
  experiment: { id: "price-test", name: "Price" },
  variants: [
    { id: "cheap", name: "Cheap", value: 3 },
    { id: "dear", name: "Dear", value: 7 },
  ],
} satisfies ExperimentOnKey;

/** The color test: red, or blue or green for the two halves of the players. */
export const COLOR_TEST = {
  key: "color",
  defaultValue: "red",
  experiment: { id: "color-test", name: "Color" },
  variants: [
    { id: "blue", name: "Blue", value: "blue" },
    { id: "green", name: "Green", value: "green" },
  ],
} satisfies ExperimentOnKey;

/**
 * A key with its default, and an experiment splitting players evenly between two variants that
 * each set the key to a value of their own; started unless `running` is false.
 */
export async function experimentOnKey(
  rc: RemoteConfigCalls,
  o: ExperimentOnKey & { projectId: string; running?: boolean; reason: string },
): Promise<void> {
  const { projectId, key, reason } = o;
  const type = typeof o.defaultValue === "number" ? "number" : "string";
  await rc.upsertKey({ projectId, key, type, defaultValue: o.defaultValue, reason });
  await rc.upsertExperiment({
    projectId,
    ...o.experiment,
    variants: o.variants.map((v) => ({ id: v.id, name: v.name, weight: 1, values: { [key]: v.value } })),
    reason,
  });
  if (o.running !== false) await rc.setExperimentStatus({ projectId, id: o.experiment.id, status: "running", reason });
}
