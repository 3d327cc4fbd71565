import { defineConfig } from "prisma/config";

// The CLI is used for `prisma generate`; migrations are applied by server/db/migrate.ts
// (the schema engine cannot be downloaded everywhere). `prisma migrate deploy` still works
// where the engine exists, because the runner keeps Prisma's _prisma_migrations table.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/postgres" },
});
