import { Ajv, type ValidateFunction } from "ajv";
import type { EvalGrading, EvalItemKind } from "../db/schema";

/**
 * Machine grading of one item. Multiple choice: the right choice id. Short answer: the answer
 * contains any golden keyword, case-insensitively (after trimming and collapsing spaces).
 * Structured: the JSON answer deeply equals the expected value, or satisfies the pack's JSON Schema
 * (checkJsonSchema below). All or nothing: an item earns its points or none.
 */
export function gradeItem(item: { kind: EvalItemKind; answer: string; grading: EvalGrading | null }, response: unknown): boolean {
  switch (item.kind) {
    case "MULTIPLE_CHOICE":
      return typeof response === "string" && response === item.answer;
    case "SHORT_ANSWER": {
      if (typeof response !== "string" || !item.grading || !("keywords" in item.grading)) return false;
      const text = normalise(response);
      return item.grading.keywords.some((k) => normalise(k).length > 0 && text.includes(normalise(k)));
    }
    case "STRUCTURED": {
      if (!item.grading) return false;
      if ("expected" in item.grading) return deepEqual(response, item.grading.expected);
      if ("schema" in item.grading) return checkJsonSchema(item.grading.schema, response).length === 0;
      return false;
    }
  }
}

const normalise = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();

/** JSON deep equality: same types, same array order, same object keys in any order. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  const bk = Object.keys(bo);
  return ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && deepEqual(ao[k], bo[k]));
}

/**
 * A publisher's JSON Schema, checked by Ajv (the standard validator, draft 2020-12 keywords in its
 * default draft-07 dialect) in strict mode: an unknown keyword or a malformed schema is refused when
 * the pack is published, so a schema that cannot grade is never accepted. Compiled validators are
 * kept by schema text: a pack's schema is compiled once per process, not per answer.
 */
const ajv = new Ajv({ strict: true, allErrors: false, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 500;

function validatorFor(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema as object);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, validate);
  }
  return validate;
}

/** Why a publisher's schema cannot grade answers (empty: it can), each problem prefixed with `path`. */
export function schemaProblems(schema: unknown, path = "$"): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [`${path} must be a JSON Schema object`];
  try {
    validatorFor(schema);
    return [];
  } catch (error) {
    return [`${path} is not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/** The problems of `value` against `schema` (empty: valid), as "<path> <message>" lines. */
function checkJsonSchema(schema: unknown, value: unknown): string[] {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch {
    return ["the schema cannot be used"];
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `$${e.instancePath} ${e.message ?? "is not valid"}`);
}
