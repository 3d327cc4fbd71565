import { router } from "./init";
import { auditRouter, playersRouter } from "./routers/players";
import { projectsRouter } from "./routers/projects";

export const appRouter = router({ projects: projectsRouter, players: playersRouter, audit: auditRouter });
export type AppRouter = typeof appRouter;
