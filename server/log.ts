/** The app's loggers: see server/log.mjs (shared with the launcher). */
export { logger, rootLogger, unredactedLogger } from "./log.mjs";
