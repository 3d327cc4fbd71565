import { experimentResultsAs, ZExperimentResultsInput } from "../../services/remote-config/results";
import { input, projectProcedure, router } from "../init";

/** An experiment's results per variant for a metric, with confidence intervals. Viewers read. */
export const experimentResultsRouter = router({
  get: projectProcedure("VIEWER")
    .input(input(ZExperimentResultsInput))
    .query(({ ctx, input }) => experimentResultsAs(ctx, input)),
});
