/** The app's loggers: see server/log.mjs (shared with the launcher). */
export { lineWriter, logger, rootLogger } from "./log.mjs";
