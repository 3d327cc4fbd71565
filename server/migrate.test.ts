import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { get_dmmf } from "@prisma/prisma-schema-wasm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../e2e/support/global-setup";
import { MIGRATIONS_DIR, migrate, readMigrations } from "./migrate";

type Field = {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "enum" | "object";
  type: string;
  isRequired: boolean;
  isList: boolean;
  hasDefaultValue: boolean;
  default?: { name?: string } | string | number | boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
};
type Model = { name: string; dbName: string | null; fields: Field[] };
type Index = { model: string; type: "id" | "unique" | "normal" | "fulltext"; fields: Array<{ name: string }> };
type Dmmf = { datamodel: { models: Model[]; enums: Array<{ name: string; values: Array<{ name: string }> }>; indexes: Index[] } };

const schema = readFileSync(path.resolve(import.meta.dirname, "../prisma/schema.prisma"), "utf8");
const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", schema]] }))) as Dmmf;

const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Int: "integer",
  BigInt: "bigint",
  Float: "double precision",
  Boolean: "boolean",
  DateTime: "timestamp(3) without time zone",
  Json: "jsonb",
  Bytes: "bytea",
  Decimal: "numeric(65,30)",
};
const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Uuid: () => "uuid",
  Timestamptz: (a) => `timestamp(${a[0] ?? 6}) with time zone`,
  Date: () => "date",
  Timestamp: (a) => `timestamp(${a[0] ?? 6}) without time zone`,
  Text: () => "text",
  VarChar: (a) => `character varying(${a[0]})`,
  Integer: () => "integer",
  BigInt: () => "bigint",
  SmallInt: () => "smallint",
  DoublePrecision: () => "double precision",
  JsonB: () => "jsonb",
  Json: () => "json",
};

function expectedType(field: Field): string {
  if (field.kind === "enum") return `"${field.type}"`;
  const base = field.nativeType
    ? (NATIVE_TYPES[field.nativeType[0]]?.(field.nativeType[1]) ?? `?${field.nativeType[0]}`)
    : SCALAR_TYPES[field.type];
  return field.isList ? `${base}[]` : (base ?? `?${field.type}`);
}

const columnOf = (model: Model, name: string) => {
  const f = model.fields.find((x) => x.name === name);
  return f?.dbName ?? name;
};
const tableOf = (model: Model) => model.dbName ?? model.name;

let db: Awaited<ReturnType<typeof createDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe("migration runner", () => {
  it("two instances migrating at once apply each migration exactly once", async () => {
    const [a, b] = await Promise.all([migrate(pool), migrate(pool)]);
    const all = (await readMigrations()).map((m) => m.name);
    expect([...(a ?? []), ...(b ?? [])].sort()).toEqual(all.sort());
    const { rows } = await pool.query(`SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name`);
    expect(rows.map((r) => r.migration_name)).toEqual(all);
    expect(rows.every((r) => r.finished_at !== null && /^[0-9a-f]{64}$/.test(r.checksum))).toBe(true);
  });

  it("does nothing on a second start", async () => {
    expect(await migrate(pool)).toEqual([]);
  });

  it("refuses to start when an applied migration file was edited", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gb-migrations-"));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const first = (await readMigrations(dir))[0];
    if (!first) throw new Error("no migrations");
    writeFileSync(path.join(dir, first.name, "migration.sql"), `${first.sql}\n-- edited\n`);
    await expect(migrate(pool, dir)).rejects.toThrow(/changed after it was applied/);
  });

  it("rolls back a failing migration and records nothing", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gb-migrations-"));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const name = "99990101000000_broken";
    cpSync(path.join(dir, (await readMigrations(dir))[0]?.name ?? ""), path.join(dir, name), { recursive: true });
    writeFileSync(path.join(dir, name, "migration.sql"), `CREATE TABLE "half_done" (id int);\nSELECT * FROM no_such_table;`);
    await expect(migrate(pool, dir)).rejects.toThrow(/99990101000000_broken failed/);
    const { rowCount } = await pool.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'`);
    expect(rowCount).toBe(0);
    const rec = await pool.query(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1`, [name]);
    expect(rec.rowCount).toBe(0);
  });
});

describe("the migrated database matches prisma/schema.prisma", () => {
  it("has exactly the schema's tables", async () => {
    const { rows } = await pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    expect(rows.map((r) => r.table_name).sort()).toEqual(dmmf.datamodel.models.map(tableOf).sort());
  });

  it("has exactly the schema's enums and values", async () => {
    const { rows } = await pool.query<{ name: string; values: string[] }>(
      `SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS values
         FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace ns ON ns.oid = t.typnamespace
        WHERE ns.nspname = 'public' GROUP BY t.typname`,
    );
    const actual = Object.fromEntries(rows.map((r) => [r.name, r.values]));
    const expected = Object.fromEntries(dmmf.datamodel.enums.map((e) => [e.name, e.values.map((v) => v.name)]));
    expect(actual).toEqual(expected);
  });

  for (const model of dmmf.datamodel.models) {
    it(`${model.name}: every column with its type, nullability and default`, async () => {
      const { rows } = await pool.query<{ column_name: string; type: string; not_null: boolean; has_default: boolean }>(
        `SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, a.atthasdef AS has_default
           FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
        [`"${tableOf(model)}"`],
      );
      const actual = Object.fromEntries(rows.map((r) => [r.column_name, { type: r.type, notNull: r.not_null, hasDefault: r.has_default }]));
      const expected = Object.fromEntries(
        model.fields
          .filter((f) => f.kind !== "object")
          .map((f) => {
            // Database-side defaults: now(), autoincrement(), literals. uuid()/cuid() are generated by the client.
            const fn = typeof f.default === "object" && f.default ? f.default.name : undefined;
            const dbDefault = f.hasDefaultValue && fn !== "uuid" && fn !== "cuid" && fn !== "nanoid";
            // Prisma creates list columns nullable (it never writes NULL to them).
            return [f.dbName ?? f.name, { type: expectedType(f), notNull: f.isRequired && !f.isList, hasDefault: dbDefault }];
          }),
      );
      expect(actual).toEqual(expected);
    });
  }

  it("has exactly the schema's primary keys, unique and plain indexes", async () => {
    const { rows } = await pool.query<{ table: string; unique: boolean; primary: boolean; columns: string[] }>(
      `SELECT t.relname AS table, i.indisunique AS unique, i.indisprimary AS primary,
              array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
                    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace ns ON ns.oid = t.relnamespace
        WHERE ns.nspname = 'public' AND t.relname <> '_prisma_migrations'`,
    );
    const actual = rows.map((r) => `${r.table} ${r.primary ? "id" : r.unique ? "unique" : "normal"} (${r.columns.join(",")})`).sort();
    const expected = dmmf.datamodel.indexes
      .map((ix) => {
        const model = dmmf.datamodel.models.find((m) => m.name === ix.model);
        if (!model) throw new Error(ix.model);
        return `${tableOf(model)} ${ix.type} (${ix.fields.map((f) => columnOf(model, f.name)).join(",")})`;
      })
      .sort();
    expect(actual).toEqual(expected);
  });

  it("has exactly the schema's foreign keys with their ON DELETE actions", async () => {
    const { rows } = await pool.query<{ table: string; columns: string[]; ref_table: string; ref_columns: string[]; on_delete: string }>(
      `SELECT c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS ref_table, c.confdeltype AS on_delete,
              array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
              array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS ref_columns
         FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`,
    );
    const ACTION: Record<string, string> = { c: "Cascade", r: "Restrict", n: "SetNull", a: "NoAction", d: "SetDefault" };
    const unquote = (s: string) => s.replace(/"/g, "");
    const actual = rows
      .map(
        (r) => `${unquote(r.table)}(${r.columns.join(",")}) -> ${unquote(r.ref_table)}(${r.ref_columns.join(",")}) ${ACTION[r.on_delete]}`,
      )
      .sort();
    const expected: string[] = [];
    for (const model of dmmf.datamodel.models) {
      for (const f of model.fields) {
        if (f.kind !== "object" || !f.relationFromFields?.length) continue;
        const target = dmmf.datamodel.models.find((m) => m.name === f.type);
        if (!target) throw new Error(f.type);
        const onDelete = f.relationOnDelete ?? (f.isRequired ? "Restrict" : "SetNull");
        expected.push(
          `${tableOf(model)}(${f.relationFromFields.map((n) => columnOf(model, n)).join(",")}) -> ${tableOf(target)}(${(f.relationToFields ?? []).map((n) => columnOf(target, n)).join(",")}) ${onDelete}`,
        );
      }
    }
    expect(actual).toEqual(expected.sort());
  });
});
