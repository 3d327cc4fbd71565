import { postOnly } from "@/server/http/post-only";
import { receiveGoogleNotification } from "@/server/services/store/notifications";

export const dynamic = "force-dynamic";

/** Google Play real-time developer notifications, pushed by a Pub/Sub subscription to this URL with the project's `?token=`. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = postOnly(({ req, body, params }) =>
  receiveGoogleNotification(params.projectId ?? "", new URL(req.url).searchParams.get("token"), body),
);
