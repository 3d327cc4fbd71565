import { router } from "./init";
import { accountRouter, operatorsRouter } from "./routers/account";
import { configRouter } from "./routers/config";
import { economyRouter } from "./routers/economy";
import { emailRouter } from "./routers/email";
import { healthRouter } from "./routers/health";
import { leaderboardsRouter } from "./routers/leaderboards";
import { membersRouter } from "./routers/members";
import { moderationRouter } from "./routers/moderation";
import { auditRouter, playersRouter } from "./routers/players";
import { projectsRouter } from "./routers/projects";
import { providersRouter } from "./routers/providers";
import { remoteConfigRouter } from "./routers/remote-config";
import { storeRouter } from "./routers/store";
import { tokensRouter } from "./routers/tokens";
import { webhooksRouter } from "./routers/webhooks";

export const appRouter = router({
  projects: projectsRouter,
  health: healthRouter,
  players: playersRouter,
  audit: auditRouter,
  members: membersRouter,
  providers: providersRouter,
  leaderboards: leaderboardsRouter,
  economy: economyRouter,
  email: emailRouter,
  config: configRouter,
  tokens: tokensRouter,
  webhooks: webhooksRouter,
  store: storeRouter,
  moderation: moderationRouter,
  remoteConfig: remoteConfigRouter,
  account: accountRouter,
  operators: operatorsRouter,
});
export type AppRouter = typeof appRouter;
