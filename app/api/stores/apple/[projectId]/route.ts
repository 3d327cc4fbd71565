import { postOnly } from "@/server/http/post-only";
import { receiveAppleNotification } from "@/server/services/store/notifications";

export const dynamic = "force-dynamic";

/** App Store Server Notifications V2 (the project's URL in App Store Connect): `{signedPayload}`, verified like a receipt. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = postOnly(({ body, params }) =>
  receiveAppleNotification(params.projectId ?? "", body),
);
