export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Tracing first: the pg and ioredis instrumentations patch those modules as they are loaded.
  const { startTracing } = await import("./server/telemetry");
  startTracing();
  const { bootstrap } = await import("./server/bootstrap");
  await bootstrap();
}
