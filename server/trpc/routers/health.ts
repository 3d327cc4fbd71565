import { instanceHealthAs, projectHealthAs } from "../../services/health";
import { ZInstanceHealthInput, ZProjectHealthInput } from "../../services/health/schemas";
import { input, instanceAdminProcedure, projectProcedure, router } from "../init";

/** The dashboard's health view: a project's (any member) and the instance's (instance admins). */
export const healthRouter = router({
  project: projectProcedure("VIEWER")
    .input(input(ZProjectHealthInput))
    .query(({ ctx, input }) => projectHealthAs(ctx, input)),

  instance: instanceAdminProcedure.input(input(ZInstanceHealthInput)).query(({ ctx, input }) => instanceHealthAs(ctx, input)),
});
