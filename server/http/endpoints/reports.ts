import { ZPlayerParams } from "../../services/players/schemas";
import { ZReportAccepted, ZReportBody } from "../../services/reports/schemas";
import { endpoint } from "../endpoint";

export const reportPlayerEndpoint = endpoint({
  method: "POST",
  path: "/players/{id}/report",
  auth: "player",
  params: ZPlayerParams,
  body: ZReportBody,
  doc: {
    operationId: "reportPlayer",
    tags: ["players"],
    summary: "Report another player of the project to its moderators",
    description:
      "`reason` is one of the project's report reasons (default `cheating`, `abuse`, `offensive_name`, `spam`, `other`; operators " +
      "edit the list); another is 400 VALIDATION_ERROR whose `details.reasons` lists the valid ones. `note` is at most 500 " +
      "characters. The report waits in the dashboard's moderation queue; nothing happens to the reported player until an " +
      "operator acts. One open report per reporter and reported player: reporting the same player again while the report is " +
      "open updates its reason and note and answers the same id (and counts against no limit). New reports have three limits, " +
      "each a sliding hour: 10 per reporter (`details.scope` `player-reports`), 30 per client address in the project whoever " +
      "the reporters are (IPv6 per /64; `player-reports-address`), and, for a reporter whose account is under 24 hours old, 20 " +
      "from such new accounts against one player (`player-reports-target`). A refusal is 429 RATE_LIMITED with the exact " +
      "`Retry-After` and the rate-limit headers of the scope that refused it. The address is kept only as a keyed hash; a " +
      "server key acting for a player records none. " +
      "Reporting oneself (`me` or one's own id) is 400 CANNOT_REPORT_SELF; an unknown id or another project's player is 404 " +
      "PLAYER_NOT_FOUND. Refusals store nothing.",
    ok: { status: 202, description: "Accepted: the report is open in the moderation queue.", schema: ZReportAccepted },
    errors: ["CANNOT_REPORT_SELF", "PLAYER_NOT_FOUND"],
  },
});

export const reportEndpoints = [reportPlayerEndpoint];
