import { router } from "./init";
import { membersRouter } from "./routers/members";
import { auditRouter, playersRouter } from "./routers/players";
import { projectsRouter } from "./routers/projects";

export const appRouter = router({ projects: projectsRouter, players: playersRouter, audit: auditRouter, members: membersRouter });
export type AppRouter = typeof appRouter;
