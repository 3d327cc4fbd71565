import { z } from "zod";
import {
  createWebhookEndpointAs,
  deleteWebhookEndpointAs,
  getWebhookDeliveryAs,
  getWebhookEndpointAs,
  listWebhookDeliveriesAs,
  listWebhookEndpointsAs,
  replayWebhookEventsAs,
  resendWebhookDeliveryAs,
  rotateWebhookSecretAs,
  sendWebhookTestAs,
  updateWebhookEndpointAs,
} from "../../services/webhooks/endpoints";
import {
  ZDeliveryFilter,
  ZReplayRange,
  ZRotateSecret,
  ZWebhookEndpointInput,
  ZWebhookEndpointPatch,
} from "../../services/webhooks/schemas";
import { input, projectProcedure, router } from "../init";

const ZProjectId = z.string().uuid();
const ZEndpointRef = z.strictObject({ projectId: ZProjectId, endpointId: z.string().uuid() });
const ZDeliveryRef = z.strictObject({ projectId: ZProjectId, deliveryId: z.string().uuid() });

/** A project's webhook endpoints and their deliveries: viewers read, admins change (the services decide and audit). */
export const webhooksRouter = router({
  list: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => listWebhookEndpointsAs(ctx, input)),

  get: projectProcedure("VIEWER")
    .input(input(ZEndpointRef))
    .query(({ ctx, input }) => getWebhookEndpointAs(ctx, input)),

  create: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, endpoint: ZWebhookEndpointInput })))
    .mutation(({ ctx, input }) => createWebhookEndpointAs(ctx, input)),

  update: projectProcedure("ADMIN")
    .input(input(ZEndpointRef.extend({ patch: ZWebhookEndpointPatch })))
    .mutation(({ ctx, input }) => updateWebhookEndpointAs(ctx, input)),

  delete: projectProcedure("ADMIN")
    .input(input(ZEndpointRef))
    .mutation(({ ctx, input }) => deleteWebhookEndpointAs(ctx, input)),

  rotateSecret: projectProcedure("ADMIN")
    .input(input(ZEndpointRef.extend(ZRotateSecret.shape)))
    .mutation(({ ctx, input }) => rotateWebhookSecretAs(ctx, input)),

  sendTest: projectProcedure("ADMIN")
    .input(input(ZEndpointRef))
    .mutation(({ ctx, input }) => sendWebhookTestAs(ctx, input)),

  deliveries: projectProcedure("VIEWER")
    .input(input(ZEndpointRef.extend(ZDeliveryFilter.shape)))
    .query(({ ctx, input }) => listWebhookDeliveriesAs(ctx, input)),

  delivery: projectProcedure("VIEWER")
    .input(input(ZDeliveryRef))
    .query(({ ctx, input }) => getWebhookDeliveryAs(ctx, input)),

  resend: projectProcedure("ADMIN")
    .input(input(ZDeliveryRef))
    .mutation(({ ctx, input }) => resendWebhookDeliveryAs(ctx, input)),

  replay: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, endpointId: z.string().uuid(), range: ZReplayRange })))
    .mutation(({ ctx, input }) => replayWebhookEventsAs(ctx, { projectId: input.projectId, endpointId: input.endpointId, ...input.range })),
});
