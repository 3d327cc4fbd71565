import { router } from "./init";
import { membersRouter } from "./routers/members";
import { auditRouter, playersRouter } from "./routers/players";
import { projectsRouter } from "./routers/projects";
import { providersRouter } from "./routers/providers";

export const appRouter = router({
  projects: projectsRouter,
  players: playersRouter,
  audit: auditRouter,
  members: membersRouter,
  providers: providersRouter,
});
export type AppRouter = typeof appRouter;
