// Settings of the embedded Postgres (server/cli/start.mjs) that depend on the machine.

const MB = 2 ** 20;

/**
 * shared_buffers for the embedded Postgres, in MB: the configured value, else a quarter of the
 * machine's memory between 128 MB (Postgres's own default) and 1,024 MB. Postgres's default
 * sizes for the smallest machine; here the mix's working set (~650 MB at the benchmark's volume)
 * did not fit, and every page read from outside it costs a copy from the OS cache
 * (docs/reports/performance.md). The memory is used only as pages are read.
 * @param {number} totalMemoryBytes os.totalmem()
 * @param {number | undefined} configuredMb EMBEDDED_POSTGRES_SHARED_BUFFERS_MB
 * @returns {number}
 */
export function sharedBuffersMb(totalMemoryBytes, configuredMb) {
  if (configuredMb !== undefined) return configuredMb;
  return Math.min(1024, Math.max(128, Math.floor(totalMemoryBytes / 4 / MB)));
}
