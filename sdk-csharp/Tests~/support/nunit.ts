import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** One NUnit test method found in the C# sources: `fullName` is what NUnit reports (Namespace.Outer+Inner.Method). */
export type NUnitCase = { fixture: string; method: string; fullName: string; file: string };

/** One `<test-case>` of NUnit 2.6's TestResult.xml. */
export type NUnitResult = {
  name: string;
  executed: boolean;
  result: string; // Success, Failure, Error, Ignored, NotRunnable, Inconclusive, Skipped, Cancelled
  success: boolean;
  time: number;
  message: string;
  stackTrace: string;
};

const TEST_ATTRIBUTES = new Set(["Test", "TestCase", "TestCaseSource", "Theory"]);

export function csFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...csFiles(full));
    else if (entry.isFile() && entry.name.endsWith(".cs")) out.push(full);
  }
  return out.sort();
}

/** The source with comments, strings and character literals blanked out (same length, so offsets still hold). */
export function blankCommentsAndStrings(src: string): string {
  let out = "";
  let i = 0;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  while (i < src.length) {
    const c = src[i];
    const next = src[i + 1];
    if (c === "/" && next === "/") {
      const end = src.indexOf("\n", i);
      const stop = end === -1 ? src.length : end;
      out += blank(src.slice(i, stop));
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end === -1 ? src.length : end + 2;
      out += blank(src.slice(i, stop));
      i = stop;
    } else if (c === '"' || (c === "@" && next === '"') || (c === "$" && (next === '"' || next === "@"))) {
      // Regular, verbatim (@"…", "" escapes) and interpolated strings; an interpolation's own strings end it early, which only blanks less.
      let j = i;
      let verbatim = false;
      while (src[j] !== '"') {
        if (src[j] === "@") verbatim = true;
        j++;
      }
      j++;
      while (j < src.length) {
        if (!verbatim && src[j] === "\\") j += 2;
        else if (src[j] === '"' && verbatim && src[j + 1] === '"') j += 2;
        else if (src[j] === '"') {
          j++;
          break;
        } else j++;
      }
      out += blank(src.slice(i, j));
      i = j;
    } else if (c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== "'" && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      out += blank(src.slice(i, j + 1));
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The names of the attributes at the start of a declaration: `[Test, Category("x")] [Ignore("y")]` → Test, Category, Ignore. */
function leadingAttributes(declaration: string): string[] {
  const names: string[] = [];
  let rest = declaration.trimStart();
  while (rest.startsWith("[")) {
    let depth = 0;
    let end = 0;
    for (; end < rest.length; end++) {
      if (rest[end] === "[") depth++;
      else if (rest[end] === "]" && --depth === 0) break;
    }
    const inner = rest.slice(1, end);
    let level = 0;
    let part = "";
    const parts: string[] = [];
    for (const ch of inner) {
      if (ch === "(") level++;
      if (ch === ")") level--;
      if (ch === "," && level === 0) {
        parts.push(part);
        part = "";
      } else part += ch;
    }
    parts.push(part);
    for (const p of parts) {
      const name = /^\s*(?:\w+\s*:\s*)?([\w.]+)/.exec(p)?.[1];
      if (name) names.push(name.replace(/^.*\./, "").replace(/Attribute$/, ""));
    }
    rest = rest.slice(end + 1).trimStart();
  }
  return names;
}

/**
 * The NUnit test methods of one C# source: methods with [Test], [TestCase], [TestCaseSource] or
 * [Theory], in classes (nested ones as Outer+Inner, as NUnit names them) inside namespaces.
 * A light scanner, not a parser: it tracks braces, and looks at each declaration of a class body
 * (the text since the previous `;`, `{` or `}`).
 */
export function scanNUnitCases(file: string, source = readFileSync(file, "utf8")): NUnitCase[] {
  const code = blankCommentsAndStrings(source);
  type Scope = { kind: "namespace" | "class" | "other"; name: string };
  const stack: Scope[] = [];
  const cases: NUnitCase[] = [];
  let start = 0;
  const names = (kind: Scope["kind"]) => stack.filter((s) => s.kind === kind).map((s) => s.name);
  const inClassBody = () => stack.length > 0 && stack[stack.length - 1]?.kind === "class";
  const consider = (declaration: string) => {
    if (!inClassBody()) return;
    const attributes = leadingAttributes(declaration);
    if (!attributes.some((a) => TEST_ATTRIBUTES.has(a))) return;
    const signature = declaration.slice(declaration.lastIndexOf("]") + 1);
    const method = /(\w+)\s*(?:<[^>]*>)?\s*\(/.exec(signature)?.[1];
    if (!method) return;
    const fixture = names("class").join("+");
    const namespace = names("namespace").join(".");
    cases.push({ fixture, method, fullName: `${namespace ? `${namespace}.` : ""}${fixture}.${method}`, file });
  };
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === "{") {
      const declaration = code.slice(start, i);
      const ns = /\bnamespace\s+([\w.]+)\s*$/.exec(declaration);
      const cls = /\b(?:class|struct)\s+(\w+)(?:\s*<[^>]*>)?(?:\s*:[^{]*)?(?:\s*where[^{]*)?\s*$/.exec(declaration);
      if (ns?.[1]) stack.push({ kind: "namespace", name: ns[1] });
      else if (cls?.[1] && !/\bnew\s*\(/.test(declaration)) stack.push({ kind: "class", name: cls[1] });
      else {
        consider(declaration);
        stack.push({ kind: "other", name: "" });
      }
      start = i + 1;
    } else if (c === "}") {
      stack.pop();
      start = i + 1;
    } else if (c === ";") {
      consider(code.slice(start, i)); // an expression-bodied test: [Test] public void X() => …;
      start = i + 1;
    }
  }
  return cases;
}

export function listNUnitCases(dir: string): NUnitCase[] {
  return csFiles(dir).flatMap((file) => scanNUnitCases(file));
}

function xmlText(s: string): string {
  return s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, inner: string) => inner)
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, "&");
}

/** The `<test-case>` elements of an NUnit 2.6 TestResult.xml (they do not nest). */
export function parseNUnitXml(xml: string): NUnitResult[] {
  const results: NUnitResult[] = [];
  for (const m of xml.matchAll(/<test-case\b([^>]*?)(?:\/>|>([\s\S]*?)<\/test-case>)/g)) {
    const attrs: Record<string, string> = {};
    for (const a of (m[1] ?? "").matchAll(/([\w-]+)="([^"]*)"/g)) attrs[a[1] ?? ""] = xmlText(a[2] ?? "");
    const body = m[2] ?? "";
    const message = /<message>([\s\S]*?)<\/message>/.exec(body)?.[1];
    const stack = /<stack-trace>([\s\S]*?)<\/stack-trace>/.exec(body)?.[1];
    results.push({
      name: attrs.name ?? "",
      executed: attrs.executed === "True",
      result: attrs.result ?? (attrs.success === "True" ? "Success" : "Unknown"),
      success: attrs.success === "True",
      time: Number(attrs.time ?? 0),
      message: message === undefined ? "" : xmlText(message).trim(),
      // NUnit's own reflection frames (how it invoked the test) say nothing about the failure.
      stackTrace:
        stack === undefined
          ? ""
          : xmlText(stack)
              .split("\n")
              .filter((line) => !/\(wrapper managed-to-native\)|System\.Reflection\.RuntimeMethodInfo\.Invoke/.test(line))
              .join("\n")
              .trim(),
    });
  }
  return results;
}

/** Whether a reported test-case name (with `(args)` for a [TestCase]) is of this method. */
export function resultIsOf(result: NUnitResult, c: NUnitCase): boolean {
  const paren = result.name.indexOf("(");
  const name = paren === -1 ? result.name : result.name.slice(0, paren);
  return name === c.fullName || name.endsWith(`.${c.fixture}.${c.method}`);
}

/**
 * What each test printed, from nunit-console's `-labels` output ("***** Full.Name" before each
 * test's own lines).
 */
export function outputByTest(stdout: string): Map<string, string> {
  const byTest = new Map<string, string>();
  let current: string | undefined;
  for (const line of stdout.split("\n")) {
    if (line.startsWith("Tests run: ")) break; // the summary after the last test
    const label = /^\*\*\*\*\* (\S+)/.exec(line);
    if (label?.[1]) {
      current = label[1];
      byTest.set(current, "");
    } else if (current !== undefined) byTest.set(current, `${byTest.get(current)}${line}\n`);
  }
  return byTest;
}

export type ProcessResult = { code: number | null; signal: string | null; output: string; stdout: string; timedOut: boolean; ms: number };

/**
 * Runs a command without blocking this process (the fixture server answers while it runs),
 * killing it after `timeoutMs`. `output` is stdout and stderr interleaved.
 */
export function runProcess(
  command: string,
  args: string[],
  o: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs: number },
): Promise<ProcessResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(o.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const started = Date.now();
  return new Promise((resolve) => {
    let output = "";
    let stdout = "";
    let timedOut = false;
    const child = spawn(command, args, { cwd: o.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d: Buffer) => {
      output += d;
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      output += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, o.timeoutMs);
    let done = false;
    const finish = (code: number | null, signal: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ code, signal, output, stdout, timedOut, ms: Date.now() - started });
    };
    child.on("error", (error) => {
      output += `\n${command}: ${error.message}`;
      finish(null, null); // not started (ENOENT): no close follows
    });
    child.on("close", finish);
  });
}

/** The last `max` characters of a text, marked as cut when it is. */
export function tail(text: string, max = 6000): string {
  return text.length <= max ? text : `[… ${text.length - max} characters before …]\n${text.slice(-max)}`;
}
