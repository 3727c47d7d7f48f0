/**
 * Rewrites domain code from the status-named HttpError helpers to `fail(code, message, extra?)`
 * (lib/service/errors.ts), which carries a catalogue code and no status; the router derives the
 * status from ERROR_CATALOGUE. Idempotent: a second run finds nothing to rewrite, so it can be run
 * again after merging code written against the old helpers.
 *
 *   npx tsx scripts/codemods/domain-errors.ts          rewrite lib/service
 *   npx tsx scripts/codemods/domain-errors.ts --check  list what it would rewrite, exit 1 if anything
 *
 * What it rewrites, in lib/service outside the router's own layer (router.ts, http/, auth/actor.ts)
 * and tests:
 *   badRequest(m[, code])          -> fail(code ?? "VALIDATION_FAILED", m)
 *   unauthorized([m[, code]])      -> fail(code ?? "UNAUTHENTICATED", m ?? <the helper's default>)
 *   forbidden(m[, code])           -> fail(code ?? "FORBIDDEN", m)
 *   notFound(what)                 -> fail("NOT_FOUND", `${what} not found`)
 *   conflict(code, m[, extra])     -> fail(code, m, extra)
 *   new HttpError(s, m, code[, x]) -> fail(code, m, x), only when the router would answer s for
 *                                     every code the argument can hold (checked with the type checker);
 *                                     calls with headers (a fifth argument) stay.
 *   HttpError as a type or in instanceof -> DomainError
 * and fixes the imports. A code the catalogue lists under several statuses answers with the status
 * its route declares: such rewrites are printed, to be checked against the routes' `errors`.
 */
import { writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { ERROR_CATALOGUE, statusesOf, type ErrorCode } from "../../lib/api/schemas/errors";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const SERVICE = join(ROOT, "lib/service");
const ERRORS_MODULE = join(SERVICE, "errors.ts");
const HTTP_ERRORS_MODULE = join(SERVICE, "http/errors.ts");
const HELPERS = ["badRequest", "unauthorized", "forbidden", "notFound", "conflict"] as const;
const DEFAULT_CODE: Record<string, ErrorCode> = {
  badRequest: "VALIDATION_FAILED",
  unauthorized: "UNAUTHENTICATED",
  forbidden: "FORBIDDEN",
};
const UNAUTHORIZED_MESSAGE = '"a valid API key or session is required"';

const check = process.argv.includes("--check");

function inScope(file: string): boolean {
  const rel = relative(SERVICE, file).split(sep).join("/");
  if (rel.startsWith("..") || !rel.endsWith(".ts") || rel.endsWith(".test.ts") || rel.endsWith(".d.ts")) return false;
  if (rel === "router.ts" || rel === "errors.ts" || rel.startsWith("http/") || rel === "auth/actor.ts") return false;
  if (rel.startsWith("testing/")) return false;
  return true;
}

const configPath = join(ROOT, "tsconfig.json");
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, ROOT);
const program = ts.createProgram({ rootNames: config.fileNames.filter(inScope), options: config.options });
const checker = program.getTypeChecker();

/** The codes an expression can hold (a literal, or a union of literals by its type); null if not only codes. */
function codesOf(node: ts.Expression): ErrorCode[] | null {
  if (ts.isStringLiteralLike(node)) return node.text in ERROR_CATALOGUE ? [node.text as ErrorCode] : null;
  const type = checker.getTypeAtLocation(node);
  const parts = type.isUnion() ? type.types : [type];
  const codes: ErrorCode[] = [];
  for (const part of parts) {
    if (!part.isStringLiteral() || !(part.value in ERROR_CATALOGUE)) return null;
    codes.push(part.value as ErrorCode);
  }
  return codes.length ? codes : null;
}

/** The module a call or identifier resolves to, so a local function named `conflict` is left alone. */
function declaredIn(node: ts.Node): string | null {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.declarations?.[0];
  return declaration ? declaration.getSourceFile().fileName : null;
}
const isHttpErrors = (node: ts.Node) => declaredIn(node) === HTTP_ERRORS_MODULE.split(sep).join("/");

interface Edit {
  start: number;
  end: number;
  text: string;
}

const notes: string[] = [];
let changedFiles = 0;
let rewrites = 0;

for (const sourceFile of program.getSourceFiles()) {
  const file = sourceFile.fileName;
  if (!inScope(file)) continue;
  const text = sourceFile.text;
  const edits: Edit[] = [];
  const src = (node: ts.Node) => text.slice(node.getStart(sourceFile), node.getEnd());
  const where = (node: ts.Node) =>
    `${relative(ROOT, file)}:${sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1}`;
  let usesFail = false;
  let usesDomainError = false;

  const failCall = (node: ts.Node, code: string, messages: string, extra?: string) => {
    edits.push({
      start: node.getStart(sourceFile),
      end: node.getEnd(),
      text: `fail(${code}, ${messages}${extra ? `, ${extra}` : ""})`,
    });
    usesFail = true;
    rewrites++;
  };

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const name = node.expression.text;
      const args = node.arguments.map(src);
      if ((HELPERS as readonly string[]).includes(name) && isHttpErrors(node.expression)) {
        if (name === "notFound") {
          const what = node.arguments[0]!;
          const message = ts.isStringLiteral(what)
            ? JSON.stringify(`${what.text} not found`)
            : ts.isNoSubstitutionTemplateLiteral(what) || ts.isTemplateExpression(what)
              ? `${args[0]!.slice(0, -1)} not found\``
              : `\`\${${args[0]}} not found\``;
          failCall(node, '"NOT_FOUND"', message);
        } else if (name === "conflict") {
          failCall(node, args[0]!, args[1]!, args[2]);
        } else if (name === "unauthorized") {
          failCall(node, args[1] ?? JSON.stringify(DEFAULT_CODE[name]), args[0] ?? UNAUTHORIZED_MESSAGE);
        } else {
          failCall(node, args[1] ?? JSON.stringify(DEFAULT_CODE[name]), args[0]!);
        }
        const code = name === "conflict" ? node.arguments[0] : node.arguments[1];
        const codes = code ? codesOf(code) : null;
        for (const c of codes ?? []) {
          if (statusesOf(c).length > 1) notes.push(`${where(node)}: ${c} (was ${name}); its route must declare it`);
        }
        return;
      }
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "HttpError") {
      const args = node.arguments ?? [];
      const status = args[0] && ts.isNumericLiteral(args[0]) ? Number(args[0].text) : null;
      const codes = args[2] ? codesOf(args[2]) : null;
      if (status !== null && codes && args.length <= 4 && isHttpErrors(node.expression)) {
        const single = codes.every((c) => statusesOf(c).length === 1 && statusesOf(c)[0] === status);
        const declaredOnRoute = codes.every((c) => statusesOf(c).includes(status));
        if (single || declaredOnRoute) {
          if (!single)
            notes.push(`${where(node)}: ${codes.join("|")} (was ${status}); its route must declare ${status}`);
          failCall(node, src(args[2]!), src(args[1]!), args[3] ? src(args[3]) : undefined);
          return;
        }
      }
      if (isHttpErrors(node.expression))
        notes.push(`${where(node)}: new HttpError left as it is (status not derivable)`);
    }
    // HttpError as a type, or on the right of instanceof: a domain error is a DomainError.
    if (
      ts.isIdentifier(node) &&
      node.text === "HttpError" &&
      ((ts.isTypeReferenceNode(node.parent) && node.parent.typeName === node) ||
        (ts.isBinaryExpression(node.parent) &&
          node.parent.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword &&
          node.parent.right === node)) &&
      isHttpErrors(node)
    ) {
      edits.push({ start: node.getStart(sourceFile), end: node.getEnd(), text: "DomainError" });
      usesDomainError = true;
      rewrites++;
      return;
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sourceFile, visit);
  if (!edits.length) continue;

  // Apply from the end, so earlier offsets stay valid; then fix the imports on the new text.
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  out = fixImports(out, file, { fail: usesFail, DomainError: usesDomainError });
  changedFiles++;
  if (check) console.log(`would rewrite ${relative(ROOT, file)} (${edits.length})`);
  else writeFileSync(file, out);
}

/** Drops old helper names no longer used from the http/errors import, and imports fail/DomainError. */
function fixImports(source: string, file: string, wanted: { fail: boolean; DomainError: boolean }): string {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const fromDir = dirname(file);
  const specifierOf = (target: string) => {
    const rel = relative(fromDir, target.replace(/\.ts$/, "")).split(sep).join("/");
    return rel.startsWith(".") ? rel : `./${rel}`;
  };
  const identifiersUsed = new Set<string>();
  const collect = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) return;
    if (ts.isIdentifier(node)) identifiersUsed.add(node.text);
    ts.forEachChild(node, collect);
  };
  collect(parsed);

  let out = source;
  const edits: Edit[] = [];
  let errorsImport: ts.ImportDeclaration | null = null;
  for (const statement of parsed.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const spec = statement.moduleSpecifier.text;
    const target = spec.startsWith(".") ? join(fromDir, spec) : spec.replace(/^@\//, `${ROOT}/`);
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    if (`${target}.ts` === ERRORS_MODULE) errorsImport = statement;
    if (`${target}.ts` !== HTTP_ERRORS_MODULE) continue;
    const kept = bindings.elements.filter((e) => identifiersUsed.has(e.name.text)).map((e) => e.getText(parsed));
    edits.push({
      start: statement.getStart(parsed),
      end: statement.getEnd(),
      text: kept.length ? `import { ${kept.join(", ")} } from "${spec}";` : "",
    });
  }
  const names = (["fail", "DomainError"] as const).filter((n) => wanted[n] || identifiersUsed.has(n));
  if (errorsImport) {
    const bindings = errorsImport.importClause!.namedBindings as ts.NamedImports;
    const present = bindings.elements.map((e) => e.name.text);
    const all = [...present, ...names.filter((n) => !present.includes(n))];
    edits.push({
      start: errorsImport.getStart(parsed),
      end: errorsImport.getEnd(),
      text: `import { ${all.join(", ")} } from "${(errorsImport.moduleSpecifier as ts.StringLiteral).text}";`,
    });
  } else if (names.length) {
    const imports = parsed.statements.filter(ts.isImportDeclaration);
    const at = imports.length ? imports[imports.length - 1]!.getEnd() : 0;
    const line = `import { ${names.join(", ")} } from "${specifierOf(ERRORS_MODULE)}";`;
    edits.push({ start: at, end: at, text: imports.length ? `\n${line}` : `${line}\n` });
  }
  edits.sort((a, b) => b.start - a.start);
  for (const edit of edits) {
    let end = edit.end;
    // An import that became empty takes its line with it.
    if (edit.text === "" && out[end] === "\n") end++;
    out = out.slice(0, edit.start) + edit.text + out.slice(end);
  }
  return out;
}

for (const note of notes) console.log(`note: ${note}`);
console.log(
  `${check ? "would rewrite" : "rewrote"} ${rewrites} call(s) in ${changedFiles} file(s); run npx prettier --write lib/service after it`,
);
if (check && changedFiles > 0) process.exitCode = 1;
