#!/usr/bin/env node
// `node sdk-csharp/Tools~/generate-models.mjs` writes sdk-csharp/Runtime/Generated/Models.g.cs: the C# SDK's
// models and their JSON mapping, written out explicitly (IL2CPP strips what reflection-based JSON needs),
// from the contract the server serves (server/openapi/openapi.snapshot.json).
// `node sdk-csharp/Tools~/generate-models.mjs --check` writes nothing: exits 1 (naming the parts that differ
// and the command to regenerate) when the committed file is not what the current snapshot generates, 0 when it is.
//
// The generator fails loudly, never skips: a schema the table below names that the document lacks, a type
// it cannot map (oneOf, allOf, an unknown keyword or format, an enum without a constants class), a schema
// an operation answers with or takes that the table does not name, or a C# name collision stops it with
// the reason, so a contract change is noticed here and not in a game.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(import.meta.dirname, "../..");
const DOCUMENT = "server/openapi/openapi.snapshot.json";
const OUTPUT = "sdk-csharp/Runtime/Generated/Models.g.cs";
const COMMAND = "node sdk-csharp/Tools~/generate-models.mjs";

// ---------------------------------------------------------------------------------------------------
// The table: C# class -> the contract's schemas (a class may merge several; a field missing from some is optional).
// A class over several schemas has the union of their fields; a field missing from some is optional.

/** Response models: `public sealed partial class`, `internal static X FromJson(JsonNode)`. */
const MODELS = [
  { name: "SessionAnswer", access: "internal", schemas: ["Session"] },
  { name: "PlayerProfile", schemas: ["OwnProfile", "PublicProfile"] },
  // The export is the whole document as raw JSON (`Json`) plus the fields listed here.
  { name: "PlayerExport", schemas: ["PlayerExport"], rawWhole: "Json", only: ["exportedAt"] },
  { name: "DataRecord", schemas: ["PlayerDataRecord"] },
  { name: "SaveRecord", schemas: ["Save", "SaveMetadata"] },
  { name: "LeaderboardPage", schemas: ["LeaderboardPage"] },
  { name: "LeaderboardRewardTier", schemas: ["LeaderboardRewardTier"] },
  { name: "LeaderboardEntry", schemas: ["LeaderboardEntry", "SubmitScoreResult", "LeaderboardPlayerEntry"] },
  { name: "CurrencyBalance", schemas: ["CurrencyBalance"] },
  { name: "CurrencyChange", schemas: ["CurrencyChange"] },
  { name: "InventoryEntry", schemas: ["InventoryEntry"] },
  { name: "PurchaseResult", schemas: ["PurchaseResult"] },
  { name: "EconomyTransaction", schemas: ["EconomyTransaction"] },
  { name: "EconomyTransactionPage", schemas: ["EconomyTransactionPage"] },
  { name: "ReceiptResult", schemas: ["ReceiptResult"] },
  { name: "SteamOrder", schemas: ["SteamOrder"] },
  { name: "RemoteConfig", schemas: ["RemoteConfig"] },
  { name: "ReportAccepted", schemas: ["ReportAccepted"] },
];

/**
 * Request bodies (C# class = schema name): `internal sealed class`, `internal JsonNode ToJson()`.
 * A body that is a oneOf of objects (ReceiptBody: one shape per store) becomes one class with the
 * union of their fields, a field required only when every shape requires it; the hand-written
 * API (`Receipt`'s factories) sets the fields of one shape.
 */
const BODIES = [
  "AnonymousBody",
  "RegisterBody",
  "LoginBody",
  "PasswordResetBody",
  "PasswordResetConfirmBody",
  "VerifyEmailBody",
  "IdpBody",
  "RefreshBody",
  "PatchProfileBody",
  "DeleteAccountBody",
  "PatchPlayerDataBody",
  "PutPlayerDataBody",
  "PutSaveBody",
  "SubmitScoreBody",
  "CurrencyAmountBody",
  "PurchaseBody",
  "ReceiptBody",
  "SteamOrderBody",
  "ReportPlayerBody",
];

/**
 * Enums are strings in the models, plus a constants class per value set, named here after the field
 * whose values it takes. Every enum met elsewhere must have the same values as one of these.
 */
const ENUMS = [
  { name: "Visibility", from: ["PlayerDataRecord", "visibility"] },
  { name: "SortOrder", from: ["LeaderboardPage", "sortOrder"] },
  { name: "TransactionKind", from: ["EconomyTransaction", "kind"] },
  { name: "Store", from: ["ReceiptResult", "store"] },
  { name: "StoreEnvironment", from: ["ReceiptResult", "environment"] },
  { name: "ReceiptStatus", from: ["ReceiptResult", "status"] },
];

/**
 * Names of nested classes (inline objects) where the default (the field in PascalCase, singular for
 * an array's items) would collide with a member: C# forbids a nested type named like a member of its
 * parent or like one of its own members. A new collision stops the generator and asks for a name here.
 */
const NESTED_NAMES = {
  "PurchaseResult.balances": "BalanceEntry", // its items have a `balance` field
  "PurchaseResult.inventory": "InventoryItem", // the parent has an `Inventory` property
  "EconomyTransaction.source": "RewardSource", // the parent has a `Source` property
  "PatchPlayerDataBody.set": "SetOp",
  "ReceiptResult.grant": "ReceiptGrant", // the parent has a `Grant` property
  "ReceiptResult.ReceiptGrant.balances": "BalanceEntry", // as PurchaseResult's
  "ReceiptResult.ReceiptGrant.inventory": "InventoryItem", // the parent has an `Inventory` property
};

/**
 * Objects of an answer read as a Dictionary (key -> value) instead of raw JSON text: the fields a game
 * reads by key. Every other object without properties stays raw JSON text (metadata, values).
 */
const MAPS_IN_ANSWERS = new Set(["RemoteConfig.values", "RemoteConfig.assignments"]);

/** Component schemas deliberately without a class, and why. Webhook schemas (Webhook*) are skipped. */
const NOT_MODELLED = {
  Accepted: "an empty 202 answer; the client ignores its body",
  Error: "the client reads errors by hand; its code enum becomes ErrorCodes",
  JsonValue: "any JSON value: a string of raw JSON in the models",
};

// ---------------------------------------------------------------------------------------------------

class GeneratorError extends Error {}
const fail = (message) => {
  throw new GeneratorError(message);
};

const KNOWN_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "items",
  "enum",
  "const",
  "format",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "default",
  "description",
  "example",
  "examples",
  "anyOf",
  "$ref",
  "title",
]);
const STRING_FORMATS = new Set(["uuid", "email", "date", "uri"]);

function pascal(name) {
  const parts = String(name)
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  const id = parts
    .map((p) => (p === p.toUpperCase() ? p.charAt(0) + p.slice(1).toLowerCase() : p.charAt(0).toUpperCase() + p.slice(1)))
    .join("");
  if (!/^[A-Z][A-Za-z0-9]*$/.test(id)) fail(`"${name}" has no C# name (PascalCase "${id}" is not an identifier)`);
  return id;
}

function singular(word) {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|us)$/.test(word)) return word;
  if (/s$/.test(word)) return word.slice(0, -1);
  return word;
}

const refName = (ref) => {
  const m = /^#\/components\/schemas\/(.+)$/.exec(ref);
  if (!m) fail(`$ref ${ref} is not a component schema`);
  return m[1];
};

/** Stable text of a schema without the keywords that do not change its shape (for comparing union members). */
function shapeOf(schema) {
  const ignore = new Set([
    "description",
    "example",
    "examples",
    "title",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "default",
  ]);
  const walk = (s) => {
    if (Array.isArray(s)) return s.map(walk);
    if (s === null || typeof s !== "object") return s;
    const out = {};
    for (const key of Object.keys(s).sort()) if (!ignore.has(key)) out[key] = walk(s[key]);
    return out;
  };
  return JSON.stringify(walk(schema));
}

function xmlEscape(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Lines of XML already (escape descriptions with xmlEscape first). */
function docComment(indent, lines) {
  const text = lines.filter((l) => l !== undefined && l !== null && l !== "").join("\n");
  if (!text) return [];
  const body = text.split(/\r?\n/).map((l) => `${indent}/// ${l}`.trimEnd());
  return [`${indent}/// <summary>`, ...body, `${indent}/// </summary>`];
}

const csString = (s) => `"${String(s).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

// ---------------------------------------------------------------------------------------------------
// From the document to an intermediate form.
//
// A type is { t, nullable } with t one of: string, long, double, bool, date, raw (any JSON value),
// rawObject (an object of JSON values), enum (+ name), list (+ of), map (+ of; bodies only),
// class (+ name: a table class), nested (+ schema, + cls once named).

function generate(doc) {
  const schemas = doc?.components?.schemas ?? fail(`${DOCUMENT} has no components.schemas`);
  const schemaOf = (name, by) => schemas[name] ?? fail(`schema ${name} (named by ${by}) is missing from ${DOCUMENT}`);

  // Every schema a class of the table stands for.
  const classOfSchema = new Map();
  for (const model of MODELS) {
    for (const name of model.schemas) {
      schemaOf(name, `the table's ${model.name}`);
      if (classOfSchema.has(name)) fail(`schema ${name} is in two classes of the table (${classOfSchema.get(name)}, ${model.name})`);
      classOfSchema.set(name, model.name);
    }
  }
  for (const name of BODIES) schemaOf(name, "the table's bodies");
  for (const name of Object.keys(NOT_MODELLED)) schemaOf(name, "NOT_MODELLED");

  // Every component schema is mapped, skipped on purpose, or a webhook's.
  for (const name of Object.keys(schemas)) {
    if (name.startsWith("Webhook")) continue;
    if (!classOfSchema.has(name) && !BODIES.includes(name) && !(name in NOT_MODELLED))
      fail(`schema ${name} of ${DOCUMENT} is not in the table: add it to MODELS or BODIES (or NOT_MODELLED with the reason)`);
  }

  // Enum constants classes.
  const enums = ENUMS.map(({ name, from: [schemaName, field] }) => {
    const prop = schemaOf(schemaName, `ENUMS ${name}`).properties?.[field] ?? fail(`ENUMS ${name}: ${schemaName} has no field ${field}`);
    if (!Array.isArray(prop.enum) || prop.type !== "string") fail(`ENUMS ${name}: ${schemaName}.${field} is not a string enum`);
    return { name, values: prop.enum, description: prop.description, source: `${schemaName}.${field}` };
  });
  const enumFor = (values, where) => {
    const key = JSON.stringify([...values].sort());
    const found = enums.find((e) => JSON.stringify([...e.values].sort()) === key);
    return found ?? fail(`${where}: enum ${JSON.stringify(values)} has no constants class: add it to ENUMS`);
  };

  function mapType(schema, where, inBody) {
    if (
      schema === true ||
      (schema && typeof schema === "object" && Object.keys(schema).every((k) => k === "description" || k === "example"))
    )
      return { t: "raw", nullable: false };
    if (!schema || typeof schema !== "object") fail(`${where}: cannot map schema ${JSON.stringify(schema)}`);
    for (const key of Object.keys(schema)) if (!KNOWN_KEYWORDS.has(key)) fail(`${where}: cannot map keyword "${key}"`);
    if (schema.$ref) {
      const name = refName(schema.$ref);
      schemaOf(name, where);
      if (name === "JsonValue") return { t: "raw", nullable: false };
      if (inBody) fail(`${where}: a body refers to schema ${name}; bodies are mapped inline only`);
      const cls = classOfSchema.get(name) ?? fail(`${where}: refers to schema ${name}, which the table does not map`);
      return { t: "class", name: cls, nullable: false };
    }
    if (schema.anyOf) {
      const others = schema.anyOf.filter((s) => !(s && s.type === "null" && Object.keys(s).length === 1));
      if (others.length !== 1 || schema.anyOf.length !== 2) fail(`${where}: anyOf other than "one schema or null" cannot be mapped`);
      if (schema.type) fail(`${where}: anyOf beside type cannot be mapped`);
      return { ...mapType(others[0], where, inBody), nullable: true };
    }
    let type = schema.type;
    let nullable = false;
    if (Array.isArray(type)) {
      const rest = type.filter((t) => t !== "null");
      if (rest.length !== 1) fail(`${where}: type ${JSON.stringify(type)} cannot be mapped`);
      nullable = rest.length !== type.length;
      type = rest[0];
    }
    if (schema.format && !(type === "string" && (schema.format === "date-time" || STRING_FORMATS.has(schema.format))))
      fail(`${where}: cannot map format "${schema.format}" of type ${type}`);
    switch (type) {
      case "string":
        if (schema.enum) return { t: "enum", name: enumFor(schema.enum, where).name, nullable };
        if (schema.format === "date-time") return { t: "date", nullable };
        return { t: "string", nullable };
      case "integer":
        return { t: "long", nullable };
      case "number":
        return { t: "double", nullable };
      case "boolean":
        return { t: "bool", nullable };
      case "array":
        if (!schema.items) fail(`${where}: an array without items cannot be mapped`);
        return { t: "list", of: mapType(schema.items, `${where}[]`, inBody), nullable };
      case "object": {
        const props = Object.keys(schema.properties ?? {});
        const extra = schema.additionalProperties;
        if (props.length > 0) {
          if (extra !== false && extra !== undefined)
            fail(`${where}: an object with both properties and additionalProperties cannot be mapped`);
          return { t: "nested", schema, nullable };
        }
        if (extra && typeof extra === "object" && !inBody && MAPS_IN_ANSWERS.has(where))
          return { t: "map", of: mapType(extra, `${where}{}`, inBody), nullable };
        if (extra === undefined || extra === true || (typeof extra === "object" && mapType(extra, `${where}{}`, inBody).t === "raw"))
          return { t: "rawObject", nullable };
        if (extra && typeof extra === "object" && inBody) return { t: "map", of: mapType(extra, `${where}{}`, inBody), nullable };
        return fail(`${where}: cannot map an object without properties whose values are ${JSON.stringify(extra)}`);
      }
      // falls through: fail() throws
      default:
        fail(`${where}: cannot map type ${JSON.stringify(type)}`);
    }
  }

  /** A class from one or more object schemas: fields in order of first appearance. */
  function buildClass({ name, path: csPath, members, access, doc, inBody, rawWhole, only }) {
    const fields = new Map();
    for (const { label, schema } of members) {
      if (schema.type !== "object" || !schema.properties) fail(`${label}: not an object with properties`);
      for (const key of Object.keys(schema)) if (!KNOWN_KEYWORDS.has(key)) fail(`${label}: cannot map keyword "${key}"`);
      for (const [json, propSchema] of Object.entries(schema.properties)) {
        if (only && !only.includes(json)) continue;
        const where = `${label}.${json}`;
        const type = mapType(propSchema, where, inBody);
        const required = (schema.required ?? []).includes(json);
        const description = propSchema.description ?? propSchema.anyOf?.find((s) => s.description)?.description;
        const existing = fields.get(json);
        if (existing) {
          const a = { ...existing.type, nullable: false, schema: existing.type.schema && shapeOf(existing.type.schema) };
          const b = { ...type, nullable: false, schema: type.schema && shapeOf(type.schema) };
          if (JSON.stringify(a) !== JSON.stringify(b))
            fail(`${where}: differs in type from ${existing.where}; the union ${name} cannot hold both`);
          existing.type.nullable ||= type.nullable;
          existing.requiredEverywhere &&= required;
          existing.optionalSomewhere ||= !required;
          existing.count++;
          existing.description ??= description;
        } else {
          fields.set(json, { json, where, type, requiredEverywhere: required, optionalSomewhere: !required, count: 1, description });
        }
      }
    }
    if (only)
      for (const json of only)
        if (!fields.has(json)) fail(`${name}: the table lists field ${json}, which ${members.map((m) => m.label).join(", ")} lacks`);

    const cls = { name, path: csPath, access, doc, inBody, rawWhole, fields: [], nested: [] };
    const memberNames = new Set();
    if (rawWhole) memberNames.add(rawWhole);
    for (const f of fields.values()) {
      const present = f.requiredEverywhere && f.count === members.length;
      const cs = pascal(f.json);
      if (memberNames.has(cs)) fail(`${name}: two fields are named ${cs} in C#`);
      memberNames.add(cs);
      cls.fields.push({
        json: f.json,
        cs,
        type: f.type,
        required: present,
        // An array the schema itself may leave out reads as empty; one only another schema of the union has reads as null.
        emptyWhenAbsent: f.type.t === "list" && !present && f.optionalSomewhere,
        description: f.description,
      });
    }
    if (memberNames.has(name.split(".").pop())) fail(`${name}: a member is named like its class`);

    // Nested classes for inline objects.
    for (const field of cls.fields) {
      let t = field.type;
      let isItem = false;
      while (t.t === "list" || t.t === "map") {
        isItem = true;
        t = t.of;
      }
      if (t.t !== "nested") continue;
      const key = `${name}.${field.json}`;
      const simple = NESTED_NAMES[key] ?? (isItem && field.type.t === "list" ? pascal(singular(field.json)) : pascal(field.json));
      if (memberNames.has(simple))
        fail(`${key}: its nested class would be named ${simple}, like a member of ${name}: name it in NESTED_NAMES`);
      if (cls.nested.some((n) => n.simple === simple))
        fail(`${key}: two nested classes of ${name} are named ${simple}: name one in NESTED_NAMES`);
      const nested = buildClass({
        name: `${name}.${simple}`,
        path: `${csPath}.${simple}`,
        members: [{ label: `${field.json} of ${members.map((m) => m.label).join("/")}`, schema: t.schema }],
        access: "public",
        doc:
          t.schema.description ??
          (field.type.t === "list"
            ? `An item of ${name}.${field.cs}.`
            : field.type.t === "map"
              ? `A value of ${name}.${field.cs}.`
              : `The object of ${name}.${field.cs}.`),
        inBody,
      });
      nested.simple = simple;
      if (nested.fields.some((f) => f.cs === simple))
        fail(`${key}: its nested class ${simple} has a member named ${simple}: name it in NESTED_NAMES`);
      t.cls = simple;
      cls.nested.push(nested);
    }
    return cls;
  }

  const models = MODELS.map((model) => {
    const members = model.schemas.map((s) => ({ label: s, schema: schemas[s] }));
    const descriptions = members.map((m) => m.schema.description).filter(Boolean);
    const doc = [`The contract's ${model.schemas.join(" ∪ ")}.`, ...descriptions].join("\n");
    return buildClass({
      name: model.name,
      path: model.name,
      members,
      access: model.access ?? "public",
      doc,
      inBody: false,
      rawWhole: model.rawWhole,
      only: model.only,
    });
  });
  const bodyMembers = (name) => {
    const schema = schemas[name];
    if (!schema.oneOf) return [{ label: name, schema }];
    for (const key of Object.keys(schema))
      if (!["oneOf", "type", "description"].includes(key)) fail(`${name}: cannot map keyword "${key}" beside oneOf`);
    return schema.oneOf.map((member, i) => ({ label: `${name} (shape ${i + 1})`, schema: member }));
  };
  const bodies = BODIES.map((name) =>
    buildClass({
      name,
      path: name,
      members: bodyMembers(name),
      access: "internal",
      doc: schemas[name].description,
      inBody: true,
    }),
  );
  const takenBy = new Map(BODIES.map((name) => [name, []]));

  // Every operation's body and answer is a mapped (or deliberately skipped) schema.
  const operations = [];
  const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
  const refsIn = (schema, out = []) => {
    if (!schema || typeof schema !== "object") return out;
    if (schema.$ref) out.push(refName(schema.$ref));
    for (const s of schema.anyOf ?? []) refsIn(s, out);
    if (schema.items) refsIn(schema.items, out);
    return out;
  };
  for (const [route, item] of Object.entries(doc.paths ?? fail(`${DOCUMENT} has no paths`))) {
    for (const method of Object.keys(item)) {
      if (!METHODS.includes(method)) continue;
      const op = item[method];
      const label = `${method.toUpperCase()} ${route}`;
      operations.push(label);
      const body = op.requestBody?.content?.["application/json"]?.schema;
      if (op.requestBody && !body) fail(`${label}: a request body that is not application/json cannot be mapped`);
      if (body) {
        const names = refsIn(body);
        if (names.length !== 1 || !BODIES.includes(names[0])) fail(`${label}: its body ${JSON.stringify(body)} is not a body of the table`);
        takenBy.get(names[0]).push(label);
      }
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!/^2/.test(status)) continue;
        const schema = response.content?.["application/json"]?.schema;
        if (!schema) continue;
        const names = refsIn(schema);
        if (names.length === 0)
          fail(`${label} ${status}: an inline answer schema cannot be mapped; give it a component schema in the table`);
        for (const n of names)
          if (!classOfSchema.has(n) && !(n in NOT_MODELLED))
            fail(`${label} ${status}: answers with schema ${n}, which the table does not map`);
      }
    }
  }
  if (operations.length === 0) fail(`${DOCUMENT} has no operations`);
  for (const body of bodies) {
    const ops = takenBy.get(body.name);
    if (ops.length === 0) fail(`${body.name}: no operation of ${DOCUMENT} takes this body any more; remove it from BODIES`);
    body.operations = ops;
  }

  // Error codes.
  const codes = schemas.Error?.properties?.error?.properties?.code?.enum ?? fail("Error.error.code has no enum of codes");
  const errorCodes = codes.map((code) => ({ code, cs: pascal(code) }));
  if (new Set(errorCodes.map((c) => c.cs)).size !== errorCodes.length) fail("two error codes have the same C# name");

  return { models, bodies, enums, errorCodes, operations };
}

// ---------------------------------------------------------------------------------------------------
// C# emission. Output is grouped in sections ("// ---- section: Name ----") that --check compares.

function csType(type, fieldIsRequired) {
  const optional = type.nullable || !fieldIsRequired;
  switch (type.t) {
    case "string":
    case "enum":
    case "raw":
    case "rawObject":
      return "string";
    case "long":
      return optional ? "long?" : "long";
    case "double":
      return optional ? "double?" : "double";
    case "bool":
      return optional ? "bool?" : "bool";
    case "date":
      return optional ? "DateTimeOffset?" : "DateTimeOffset";
    case "list":
      return `List<${csType(type.of, true).replace(/\?$/, "")}>`;
    case "map":
      return `Dictionary<string, ${csType(type.of, true).replace(/\?$/, "")}>`;
    case "class":
      return type.name;
    case "nested":
      return type.cls;
    default:
      fail(`no C# type for ${type.t}`);
  }
}

function typeNote(field) {
  const t = field.type;
  const notes = [];
  if (t.t === "enum") notes.push(`One of the <see cref="GameBackend.${t.name}"/> constants (other values may come from a newer server).`);
  if (t.t === "raw") notes.push("Raw JSON text (compact).");
  if (t.t === "rawObject") notes.push("Raw JSON text of an object (compact).");
  if (field.emptyWhenAbsent) notes.push("Empty when the answer has none.");
  else if (!field.required && field.type.nullable) notes.push("May be null; null also when the answer has none.");
  else if (!field.required) notes.push("Null when the answer has none.");
  else if (field.type.nullable) notes.push("May be null.");
  return notes.join(" ");
}

/** The expression reading one field of `node` (a JSON object) in a FromJson. */
function readExpr(field, cls) {
  const t = field.type;
  const args = (extra = "") => `node, C, path, ${csString(field.json)}, ${field.required ? "true" : "false"}${extra}`;
  const nullableRead = !field.required || t.nullable;
  switch (t.t) {
    case "string":
    case "enum":
      return `ModelJson.ReadString(${args(`, ${t.nullable ? "true" : "false"}`)})`;
    case "raw":
      return `ModelJson.ReadRaw(${args()})`;
    case "rawObject":
      return `ModelJson.ReadRawObject(${args(`, ${t.nullable ? "true" : "false"}`)})`;
    case "long":
    case "double":
    case "bool":
    case "date": {
      const name = { long: "Long", double: "Double", bool: "Bool", date: "Date" }[t.t];
      return nullableRead
        ? `ModelJson.Read${name}OrNull(${args(`, ${t.nullable ? "true" : "false"}`)})`
        : `ModelJson.Read${name}(node, C, path, ${csString(field.json)})`;
    }
    case "list":
      return `ModelJson.ReadList(${args(`, ${t.nullable ? "true" : "false"}, ${field.emptyWhenAbsent ? "true" : "false"}, ${itemReader(t.of, cls)}`)})`;
    case "map":
      return `ModelJson.ReadMap(${args(`, ${t.nullable ? "true" : "false"}, ${itemReader(t.of, cls)}`)})`;
    case "class":
    case "nested":
      return `ModelJson.ReadObject(${args(`, ${t.nullable ? "true" : "false"}, ${t.t === "class" ? t.name : t.cls}.FromJson`)})`;
    default:
      fail(`${cls.name}.${field.json}: cannot read ${t.t} from an answer`);
  }
}

function itemReader(type, cls) {
  if (type.nullable) fail(`${cls.name}: lists with null items cannot be mapped`);
  switch (type.t) {
    case "string":
    case "enum":
      return "ModelJson.StringItem";
    case "long":
      return "ModelJson.LongItem";
    case "double":
      return "ModelJson.DoubleItem";
    case "bool":
      return "ModelJson.BoolItem";
    case "date":
      return "ModelJson.DateItem";
    case "raw":
      return "ModelJson.RawItem";
    case "class":
      return `${type.name}.FromJson`;
    case "nested":
      return `${type.cls}.FromJson`;
    default:
      fail(`${cls.name}: cannot read lists of ${type.t}`);
  }
}

function emitModel(cls, indent) {
  const i1 = `${indent}    `;
  const i2 = `${i1}    `;
  const simple = cls.name.split(".").pop();
  const out = [];
  out.push(...docComment(indent, [cls.doc && xmlEscape(cls.doc)]));
  out.push(`${indent}${cls.access} sealed partial class ${simple}`, `${indent}{`);
  if (cls.rawWhole) {
    out.push(...docComment(i1, ["The whole answer as raw JSON text (compact)."]));
    out.push(`${i1}public string ${cls.rawWhole} { get; internal set; }`, "");
  }
  for (const field of cls.fields) {
    out.push(
      ...docComment(i1, [field.description && xmlEscape(field.description), typeNote(field), `JSON: <c>${xmlEscape(field.json)}</c>.`]),
    );
    out.push(`${i1}public ${csType(field.type, field.required)} ${field.cs} { get; internal set; }`, "");
  }
  out.push(`${i1}internal static ${simple} FromJson(JsonNode node)`, `${i1}{`, `${i2}return FromJson(node, "$");`, `${i1}}`, "");
  out.push(`${i1}// path: where the node is in the answer, for error messages (\`$\` is the answer itself).`);
  out.push(`${i1}internal static ${simple} FromJson(JsonNode node, string path)`, `${i1}{`);
  out.push(`${i2}const string C = ${csString(cls.path)};`);
  out.push(`${i2}ModelJson.ExpectObject(node, C, path);`);
  out.push(`${i2}var result = new ${simple}();`);
  if (cls.rawWhole) out.push(`${i2}result.${cls.rawWhole} = node.ToJson();`);
  for (const field of cls.fields) out.push(`${i2}result.${field.cs} = ${readExpr(field, cls)};`);
  out.push(`${i2}return result;`, `${i1}}`);
  if (!cls.name.includes(".")) {
    out.push("");
    out.push(`${i1}internal static List<${simple}> ListFromJson(JsonNode node)`, `${i1}{`);
    out.push(`${i2}return ModelJson.ReadListNode(node, ${csString(`${cls.path}[]`)}, "$", FromJson);`, `${i1}}`);
  }
  for (const nested of cls.nested) out.push("", ...emitModel(nested, i1));
  out.push(`${indent}}`);
  return out;
}

/** Statements writing one field of a body into `node`. */
function writeStatements(field, cls, i2) {
  const t = field.type;
  const label = `name + ".${field.cs}"`;
  const prop = field.cs;
  const key = csString(field.json);
  const valueExpr = (type, v, lbl) => {
    switch (type.t) {
      case "string":
      case "enum":
        return `JsonNode.From(${v})`;
      case "long":
      case "bool":
        return `JsonNode.From(${v})`;
      case "double":
        return `ModelJson.WriteDouble(${v}, ${lbl})`;
      case "raw":
        return `ModelJson.WriteRaw(${v}, ${lbl}, false)`;
      case "rawObject":
        return `ModelJson.WriteRaw(${v}, ${lbl}, true)`;
      case "nested":
        return `${v}.ToJson(${lbl})`;
      default:
        fail(`${cls.name}.${field.json}: cannot write ${type.t} in a body`);
    }
  };
  const isValueType = ["long", "double", "bool"].includes(t.t);
  const out = [];
  if (t.t === "list" || t.t === "map") {
    const of = t.of;
    if (of.nullable || ["list", "map"].includes(of.t)) fail(`${cls.name}.${field.json}: cannot write nested collections`);
    const itemValueType = ["long", "double", "bool"].includes(of.t);
    const nullCheck = (v, lbl) =>
      itemValueType ? [] : [`${i2}        if (${v} == null) throw new ArgumentException(${lbl} + " must not hold null", ${lbl});`];
    if (field.required) out.push(`${i2}if (${prop} == null) throw new ArgumentException(${label} + " is required", ${label});`);
    out.push(`${i2}if (${prop} != null)`, `${i2}{`);
    if (t.t === "list") {
      out.push(`${i2}    var ${field.json}Items = JsonNode.NewArray();`);
      out.push(`${i2}    for (int i = 0; i < ${prop}.Count; i++)`, `${i2}    {`);
      const lbl = `${label} + "[" + i.ToString(CultureInfo.InvariantCulture) + "]"`;
      out.push(...nullCheck(`${prop}[i]`, lbl));
      out.push(`${i2}        ${field.json}Items.Add(${valueExpr(of, `${prop}[i]`, lbl)});`, `${i2}    }`);
      out.push(`${i2}    node.Set(${key}, ${field.json}Items);`);
    } else {
      out.push(`${i2}    var ${field.json}Members = JsonNode.NewObject();`);
      out.push(`${i2}    foreach (var pair in ${prop})`, `${i2}    {`);
      const lbl = `${label} + "[\\"" + pair.Key + "\\"]"`;
      out.push(...nullCheck("pair.Value", lbl));
      out.push(`${i2}        ${field.json}Members.Set(pair.Key, ${valueExpr(of, "pair.Value", lbl)});`, `${i2}    }`);
      out.push(`${i2}    node.Set(${key}, ${field.json}Members);`);
    }
    out.push(`${i2}}`);
    return out;
  }
  if (field.required && t.nullable) {
    // Written even when null (null means something, e.g. PatchProfileBody.DisplayName clears the name).
    if (isValueType) out.push(`${i2}node.Set(${key}, ${prop}.HasValue ? ${valueExpr(t, `${prop}.Value`, label)} : JsonNode.Null);`);
    else if (t.t === "raw" || t.t === "rawObject")
      out.push(`${i2}node.Set(${key}, ${prop} == null ? JsonNode.Null : ${valueExpr(t, prop, label)});`);
    else if (t.t === "nested") out.push(`${i2}node.Set(${key}, ${prop} == null ? JsonNode.Null : ${valueExpr(t, prop, label)});`);
    else out.push(`${i2}node.Set(${key}, ${valueExpr(t, prop, label)});`);
    return out;
  }
  if (field.required) {
    if (isValueType) out.push(`${i2}node.Set(${key}, ${valueExpr(t, prop, label)});`);
    else {
      // (WriteRaw refuses null itself.)
      if (t.t !== "raw" && t.t !== "rawObject")
        out.push(`${i2}if (${prop} == null) throw new ArgumentException(${label} + " is required", ${label});`);
      out.push(`${i2}node.Set(${key}, ${valueExpr(t, prop, label)});`);
    }
    return out;
  }
  if (isValueType) out.push(`${i2}if (${prop}.HasValue) node.Set(${key}, ${valueExpr(t, `${prop}.Value`, label)});`);
  else out.push(`${i2}if (${prop} != null) node.Set(${key}, ${valueExpr(t, prop, label)});`);
  return out;
}

function emitBody(cls, indent) {
  const i1 = `${indent}    `;
  const i2 = `${i1}    `;
  const simple = cls.name.split(".").pop();
  const nested = cls.name.includes(".");
  const out = [];
  const takes = cls.operations ? `The body of ${cls.operations.map((op) => `<c>${xmlEscape(op)}</c>`).join(", ")}.` : undefined;
  out.push(...docComment(indent, [takes, cls.doc && xmlEscape(cls.doc)]));
  out.push(`${indent}${nested ? "internal" : cls.access} sealed class ${simple}`, `${indent}{`);
  for (const field of cls.fields) {
    const notes = [];
    if (field.type.t === "raw") notes.push("Raw JSON text, parsed when the body is written (ArgumentException when malformed).");
    if (field.type.t === "rawObject")
      notes.push("Raw JSON text of an object, parsed when the body is written (ArgumentException when malformed or not an object).");
    if (field.type.t === "enum") notes.push(`One of the <see cref="GameBackend.${field.type.name}"/> constants.`);
    if (field.required && field.type.nullable) notes.push("Required: written even when null.");
    else if (field.required) notes.push("Required.");
    else notes.push("Optional: left out when null.");
    out.push(...docComment(i1, [field.description && xmlEscape(field.description), notes.join(" ")]));
    out.push(`${i1}public ${csType(field.type, field.required)} ${field.cs} { get; set; }`, "");
  }
  if (!nested) out.push(`${i1}internal JsonNode ToJson()`, `${i1}{`, `${i2}return ToJson(${csString(simple)});`, `${i1}}`, "");
  out.push(`${i1}// name: the body's name in error messages.`);
  out.push(`${i1}internal JsonNode ToJson(string name)`, `${i1}{`);
  out.push(`${i2}var node = JsonNode.NewObject();`);
  for (const field of cls.fields) out.push(...writeStatements(field, cls, i2));
  out.push(`${i2}return node;`, `${i1}}`);
  for (const n of cls.nested) out.push("", ...emitBody(n, i1));
  out.push(`${indent}}`);
  return out;
}

function emitEnum(e) {
  const out = [...docComment("    ", [`The values of ${e.source} (a string in the models).`, e.description && xmlEscape(e.description)])];
  out.push(`    public static class ${e.name}`, "    {");
  for (const value of e.values) out.push(`        public const string ${pascal(value)} = ${csString(value)};`);
  out.push("    }");
  return out;
}

const HELPERS = String.raw`    /// <summary>The generated models' JSON reading and writing (no reflection).</summary>
    internal static class ModelJson
    {
        internal static JsonException Invalid(string cls, string path, string field, string problem)
        {
            return new JsonException("Invalid " + cls + " in the answer: " + (field == null ? "" : "field \"" + field + "\" ") + problem + " (at " + path + (field == null ? "" : "." + field) + ")");
        }

        internal static string KindName(JsonNode node)
        {
            switch (node.Kind)
            {
                case JsonKind.Null: return "null";
                case JsonKind.Boolean: return "a boolean";
                case JsonKind.Number: return "a number";
                case JsonKind.String: return "a string";
                case JsonKind.Array: return "an array";
                default: return "an object";
            }
        }

        internal static void ExpectObject(JsonNode node, string cls, string path)
        {
            if (node == null) throw Invalid(cls, path, null, "is missing");
            if (node.Kind != JsonKind.Object) throw Invalid(cls, path, null, "should be an object, got " + KindName(node));
        }

        /// <summary>The member, or null when it is absent or JSON null (and may be); throws when it must be there.</summary>
        static JsonNode Member(JsonNode node, string cls, string path, string field, bool required, bool nullable)
        {
            JsonNode value;
            if (!node.TryGet(field, out value))
            {
                if (required) throw Invalid(cls, path, field, "is missing");
                return null;
            }
            if (value.IsNull)
            {
                // A field the contract leaves optional is read as absent when it is null.
                if (!nullable && required) throw Invalid(cls, path, field, "should not be null");
                return null;
            }
            return value;
        }

        static JsonNode Expect(JsonNode value, JsonKind kind, string cls, string path, string field, string expected)
        {
            if (value.Kind != kind) throw Invalid(cls, path, field, "should be " + expected + ", got " + KindName(value));
            return value;
        }

        internal static string ReadString(JsonNode node, string cls, string path, string field, bool required, bool nullable)
        {
            var value = Member(node, cls, path, field, required, nullable);
            return value == null ? null : Expect(value, JsonKind.String, cls, path, field, "a string").AsString();
        }

        internal static string ReadRaw(JsonNode node, string cls, string path, string field, bool required)
        {
            JsonNode value;
            if (!node.TryGet(field, out value))
            {
                if (required) throw Invalid(cls, path, field, "is missing");
                return null;
            }
            return value.ToJson();
        }

        internal static string ReadRawObject(JsonNode node, string cls, string path, string field, bool required, bool nullable)
        {
            var value = Member(node, cls, path, field, required, nullable);
            return value == null ? null : Expect(value, JsonKind.Object, cls, path, field, "an object").ToJson();
        }

        static long AsLong(JsonNode value, string cls, string path, string field)
        {
            Expect(value, JsonKind.Number, cls, path, field, "an integer");
            try
            {
                return value.AsLong();
            }
            catch (JsonException)
            {
                throw Invalid(cls, path, field, "should be an integer, got " + value.RawNumber);
            }
        }

        internal static long ReadLong(JsonNode node, string cls, string path, string field)
        {
            return AsLong(Member(node, cls, path, field, true, false), cls, path, field);
        }

        internal static long? ReadLongOrNull(JsonNode node, string cls, string path, string field, bool required, bool nullable)
        {
            var value = Member(node, cls, path, field, required, nullable);
            if (value == null) return null;
            return AsLong(value, cls, path, field);
        }

        internal static double ReadDouble(JsonNode node, string cls, string path, string field)
        {
            return Expect(Member(node, cls, path, field, true, false), JsonKind.Number, cls, path, field, "a number").AsDouble();
        }

        internal static double? ReadDoubleOrNull(JsonNode node, string cls, string path, string field, bool required, bool nullable)
        {
            var value = Member(node, cls, path, field, required, nullable);
            if (value == null) return null;
            return Expect(value, JsonKind.Number, cls, path, field, "a number").AsDouble();
        }

        internal static bool ReadBool(JsonNode node, string cls, string path, string field)
        {
            return Expect(Member(node, cls, path, field, true, false), JsonKind.Boolean, cls, path, field, "a boolean").AsBool();
        }

        internal static bool? ReadBoolOrNull(JsonNode node, string cls, string path, string field, bool required, bool nullable)
        {
            var value = Member(node, cls, path, field, required, nullable);
            if (value == null) return null;
            return Expect(value, JsonKind.Boolean, cls, path, field, "a boolean").AsBool();
        }

        static DateTimeOffset AsDate(JsonNode value, string cls, string path, string field)
        {
            var text = Expect(value, JsonKind.String, cls, path, field, "a date-time string").AsString();
            DateTimeOffset result;
            if (!TryParseDate(text, out result)) throw Invalid(cls, path, field, "should be an RFC 3339 date-time, got \"" + text + "\"");
            return result;
        }

        internal static DateTimeOffset ReadDate(JsonNode node, string cls, string path, string field)
        {
            return AsDate(Member(node, cls, path, field, true, false), cls, path, field);
        }

        internal static DateTimeOffset? ReadDateOrNull(JsonNode node, string cls, string path, string field, bool required, bool nullable)
        {
            var value = Member(node, cls, path, field, required, nullable);
            if (value == null) return null;
            return AsDate(value, cls, path, field);
        }

        internal static T ReadObject<T>(JsonNode node, string cls, string path, string field, bool required, bool nullable, Func<JsonNode, string, T> read) where T : class
        {
            var value = Member(node, cls, path, field, required, nullable);
            return value == null ? null : read(value, path + "." + field);
        }

        internal static List<T> ReadList<T>(JsonNode node, string cls, string path, string field, bool required, bool nullable, bool emptyWhenAbsent, Func<JsonNode, string, T> read)
        {
            var value = Member(node, cls, path, field, required, nullable);
            if (value == null) return emptyWhenAbsent ? new List<T>() : null;
            Expect(value, JsonKind.Array, cls, path, field, "an array");
            var list = new List<T>(value.Count);
            var itemsPath = path + "." + field;
            for (int i = 0; i < value.Count; i++) list.Add(read(value[i], itemsPath + "[" + i.ToString(CultureInfo.InvariantCulture) + "]"));
            return list;
        }

        internal static Dictionary<string, T> ReadMap<T>(JsonNode node, string cls, string path, string field, bool required, bool nullable, Func<JsonNode, string, T> read)
        {
            var value = Member(node, cls, path, field, required, nullable);
            if (value == null) return null;
            Expect(value, JsonKind.Object, cls, path, field, "an object");
            var map = new Dictionary<string, T>();
            var membersPath = path + "." + field;
            foreach (var member in value.Members) map[member.Key] = read(member.Value, membersPath + "[\"" + member.Key + "\"]");
            return map;
        }

        internal static List<T> ReadListNode<T>(JsonNode node, string cls, string path, Func<JsonNode, string, T> read)
        {
            if (node == null) throw Invalid(cls, path, null, "is missing");
            if (node.Kind != JsonKind.Array) throw Invalid(cls, path, null, "should be an array, got " + KindName(node));
            var list = new List<T>(node.Count);
            for (int i = 0; i < node.Count; i++) list.Add(read(node[i], path + "[" + i.ToString(CultureInfo.InvariantCulture) + "]"));
            return list;
        }

        static JsonNode Item(JsonNode item, JsonKind kind, string path, string expected)
        {
            if (item.Kind != kind) throw new JsonException("Invalid item in the answer: should be " + expected + ", got " + KindName(item) + " (at " + path + ")");
            return item;
        }

        internal static string StringItem(JsonNode item, string path) { return Item(item, JsonKind.String, path, "a string").AsString(); }

        internal static double DoubleItem(JsonNode item, string path) { return Item(item, JsonKind.Number, path, "a number").AsDouble(); }

        internal static bool BoolItem(JsonNode item, string path) { return Item(item, JsonKind.Boolean, path, "a boolean").AsBool(); }

        internal static string RawItem(JsonNode item, string path) { return item.ToJson(); }

        internal static long LongItem(JsonNode item, string path)
        {
            Item(item, JsonKind.Number, path, "an integer");
            try
            {
                return item.AsLong();
            }
            catch (JsonException)
            {
                throw new JsonException("Invalid item in the answer: should be an integer, got " + item.RawNumber + " (at " + path + ")");
            }
        }

        internal static DateTimeOffset DateItem(JsonNode item, string path)
        {
            var text = Item(item, JsonKind.String, path, "a date-time string").AsString();
            DateTimeOffset result;
            if (!TryParseDate(text, out result)) throw new JsonException("Invalid item in the answer: should be an RFC 3339 date-time, got \"" + text + "\" (at " + path + ")");
            return result;
        }

        /// <summary>RFC 3339 date-time: yyyy-MM-ddTHH:mm:ss[.fraction](Z|+hh:mm|-hh:mm); the offset is kept, fractions beyond 100 ns are cut.</summary>
        internal static bool TryParseDate(string s, out DateTimeOffset value)
        {
            value = default(DateTimeOffset);
            int year, month, day, hour, minute, second;
            if (s == null || s.Length < 20) return false;
            if (!Digits(s, 0, 4, out year) || s[4] != '-' || !Digits(s, 5, 2, out month) || s[7] != '-' || !Digits(s, 8, 2, out day)) return false;
            if ((s[10] != 'T' && s[10] != 't') || !Digits(s, 11, 2, out hour) || s[13] != ':' || !Digits(s, 14, 2, out minute) || s[16] != ':' || !Digits(s, 17, 2, out second)) return false;
            int i = 19;
            long fractionTicks = 0;
            if (s[i] == '.')
            {
                i++;
                int start = i;
                long scale = TimeSpan.TicksPerSecond / 10;
                while (i < s.Length && s[i] >= '0' && s[i] <= '9')
                {
                    fractionTicks += (s[i] - '0') * scale;
                    scale /= 10;
                    i++;
                }
                if (i == start) return false;
            }
            if (i >= s.Length) return false;
            TimeSpan offset;
            if (s[i] == 'Z' || s[i] == 'z')
            {
                offset = TimeSpan.Zero;
                i++;
            }
            else if ((s[i] == '+' || s[i] == '-') && i + 6 == s.Length && s[i + 3] == ':')
            {
                int offsetHours, offsetMinutes;
                if (!Digits(s, i + 1, 2, out offsetHours) || !Digits(s, i + 4, 2, out offsetMinutes) || offsetMinutes > 59) return false;
                offset = new TimeSpan(offsetHours, offsetMinutes, 0);
                if (s[i] == '-') offset = offset.Negate();
                i += 6;
            }
            else return false;
            if (i != s.Length) return false;
            try
            {
                value = new DateTimeOffset(year, month, day, hour, minute, second, offset).AddTicks(fractionTicks);
                return true;
            }
            catch (ArgumentException)
            {
                return false; // out of range: month 13, second 60, an offset beyond 14 hours, …
            }
        }

        static bool Digits(string s, int start, int count, out int value)
        {
            value = 0;
            for (int i = start; i < start + count; i++)
            {
                char c = s[i];
                if (c < '0' || c > '9') return false;
                value = value * 10 + (c - '0');
            }
            return true;
        }

        internal static JsonNode WriteRaw(string json, string name, bool objectOnly)
        {
            if (json == null) throw new ArgumentException(name + " is required", name);
            JsonNode node;
            try
            {
                node = JsonNode.Parse(json);
            }
            catch (JsonException e)
            {
                throw new ArgumentException(name + " is not valid JSON: " + e.Message, name, e);
            }
            if (objectOnly && node.Kind != JsonKind.Object) throw new ArgumentException(name + " should be a JSON object, got " + KindName(node), name);
            return node;
        }

        internal static JsonNode WriteDouble(double value, string name)
        {
            if (double.IsNaN(value) || double.IsInfinity(value)) throw new ArgumentException(name + " should be a finite number", name);
            return JsonNode.From(value);
        }
    }`;

function emit(ir, doc) {
  const sections = [];
  const section = (name, lines) => sections.push({ name, lines });
  for (const m of ir.models) section(m.name, emitModel(m, "    "));
  for (const b of ir.bodies) section(b.name, emitBody(b, "    "));
  for (const e of ir.enums) section(e.name, emitEnum(e));
  section("ErrorCodes", [
    ...docComment("    ", [
      "The contract's error codes (the Error schema's enum), for comparing with GameApiException.Code.",
      "The client adds the codes it raises itself (NetworkError, UnexpectedResponse) in its own part.",
    ]),
    "    public static partial class ErrorCodes",
    "    {",
    ...ir.errorCodes.map((c) => `        public const string ${c.cs} = ${csString(c.code)};`),
    "    }",
  ]);
  section("ApiOperations", [
    ...docComment("    ", ["Every operation of the contract: method and path template, in the document's order."]),
    "    internal static class ApiOperations",
    "    {",
    "        public static readonly string[] All =",
    "        {",
    ...ir.operations.map((op) => `            ${csString(op)},`),
    "        };",
    "    }",
  ]);
  section("ModelJson", HELPERS.split("\n"));

  const header = [
    "// <auto-generated>",
    `// Generated from ${DOCUMENT} (${doc.info?.title ?? "the contract"} ${doc.info?.version ?? ""}) by \`${COMMAND}\`.`.replace(
      / \)/,
      ")",
    ),
    `// Do not edit: change the contract (or the table in sdk-csharp/Tools~/generate-models.mjs) and run the command again.`,
    `// \`${COMMAND} --check\` fails when this file is not what the current document generates.`,
    "// </auto-generated>",
    "using System;",
    "using System.Collections.Generic;",
    "using System.Globalization;",
    "using GameBackend.Json;",
    "",
    "namespace GameBackend",
    "{",
  ];
  const body = [];
  sections.forEach((s, index) => {
    if (index > 0) body.push("");
    body.push(`    // ---- section: ${s.name} ----`, ...s.lines);
  });
  return `${[...header, ...body, "}"].join("\n")}\n`;
}

/** The parts of two generated files that differ, by section name. */
function diffSections(expected, actual) {
  const split = (text) => {
    const map = new Map();
    let name = "(header)";
    map.set(name, []);
    for (const line of text.split("\n")) {
      const m = /^ {4}\/\/ ---- section: (.+) ----$/.exec(line);
      if (m) {
        name = m[1];
        map.set(name, []);
      }
      map.get(name).push(line);
    }
    return map;
  };
  const a = split(expected);
  const b = split(actual);
  const parts = [];
  for (const [name, lines] of a) {
    if (!b.has(name)) parts.push(`${name}: missing from the committed file`);
    else if (b.get(name).join("\n") !== lines.join("\n")) {
      const other = b.get(name);
      let n = 0;
      while (n < lines.length && lines[n] === other[n]) n++;
      parts.push(`${name}: differs (generated: ${JSON.stringify(lines[n] ?? "")}, committed: ${JSON.stringify(other[n] ?? "")})`);
    }
  }
  for (const name of b.keys()) if (!a.has(name)) parts.push(`${name}: in the committed file, not generated any more`);
  return parts;
}

export function generateModels(documentText) {
  const doc = JSON.parse(documentText);
  return emit(generate(doc), doc);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const output = path.join(root, OUTPUT);
  let text;
  try {
    text = generateModels(readFileSync(path.join(root, DOCUMENT), "utf8"));
  } catch (error) {
    if (!(error instanceof GeneratorError)) throw error;
    console.error(`generate-models: ${error.message}`);
    console.error(`The C# models cannot be generated from ${DOCUMENT}; change the table in sdk-csharp/Tools~/generate-models.mjs.`);
    process.exit(2);
  }
  if (check) {
    const committed = existsSync(output) ? readFileSync(output, "utf8") : null;
    if (committed === text) {
      console.log(`${OUTPUT} is current with ${DOCUMENT}.`);
      process.exit(0);
    }
    console.error(`${OUTPUT} is not what ${DOCUMENT} generates:`);
    if (committed === null) console.error("  the file is missing");
    else for (const part of diffSections(text, committed)) console.error(`  ${part}`);
    console.error(`Run \`${COMMAND}\` and commit the result.`);
    process.exit(1);
  }
  mkdirSync(path.dirname(output), { recursive: true });
  writeFileSync(output, text);
  console.log(`wrote ${OUTPUT}`);
}
