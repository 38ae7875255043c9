// What the extension sends, checked against the sidecar's own contract: protocol/schema.json,
// generated from the pydantic params models, which refuse unknown fields (additionalProperties:
// false) and take each field only in its own JSON type. FakeClient checks every request
// through here, so any feature test that makes the extension send a field the sidecar does not
// know, or a value of the wrong type, fails; `sentMethods` tells which requests were checked.
import * as fs from "node:fs";
import * as path from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";

const SCHEMA = path.join(__dirname, "..", "..", "protocol", "schema.json");

interface Contract {
  $defs: Record<string, unknown>;
  methods: Record<string, { kind: string; direction: string; params: { $ref: string } }>;
  initializationOptions: { $ref: string };
}

const contract = JSON.parse(fs.readFileSync(SCHEMA, "utf8")) as Contract;
const ajv = new Ajv2020({ allErrors: true, validateFormats: false });
// the document without its tables (not JSON Schema keywords), under one id
const { methods, initializationOptions, ...document } = contract;
ajv.addSchema(document, "lazy");

const validators = new Map<string, ValidateFunction>();

function validatorOf(method: string): ValidateFunction {
  let v = validators.get(method);
  if (!v) {
    const entry = methods[method];
    if (!entry) throw new Error(`${method} is not a method of protocol/schema.json`);
    const found = ajv.getSchema(`lazy${entry.params.$ref}`);
    if (!found) throw new Error(`no schema for ${method}'s params (${entry.params.$ref})`);
    v = found;
    validators.set(method, v);
  }
  return v;
}

/** The requests the extension sends, by name (what the sidecar receives). */
export const REQUEST_METHODS = Object.entries(methods)
  .filter(([, m]) => m.kind === "request" && m.direction === "client->server")
  .map(([name]) => name)
  .sort();

function problems(validate: ValidateFunction, params: unknown): string[] {
  // what goes on the wire: JSON (undefined fields dropped, as JSON.stringify drops them)
  const sent: unknown = params === undefined ? undefined : JSON.parse(JSON.stringify(params));
  if (validate(sent)) return [];
  return (validate.errors ?? []).map((e) => {
    const extra = e.keyword === "additionalProperties" ? ` “${String(e.params.additionalProperty)}”` : "";
    return `${e.instancePath || "(params)"}: ${e.message ?? e.keyword}${extra}`;
  });
}

/** Each problem of `params` as the sidecar's params model for `method` would see it. */
export function paramsProblems(method: string, params: unknown): string[] {
  return problems(validatorOf(method), params);
}

/** Each problem of initialize's initializationOptions, as the sidecar would see them. */
export function initializationProblems(options: unknown): string[] {
  const validate = ajv.getSchema(`lazy${initializationOptions.$ref}`);
  if (!validate) throw new Error(`no schema for initializationOptions (${initializationOptions.$ref})`);
  return problems(validate, options);
}

/** Every request method some test sent through a FakeClient, with its params checked. */
export const sentMethods = new Set<string>();

/** Throws naming each problem, when `params` is not what the sidecar takes for `method`. */
export function checkSent(method: string, params: unknown): void {
  const problems = paramsProblems(method, params);
  if (problems.length > 0) {
    throw new Error(`the extension sent ${method} params the sidecar refuses: ${problems.join("; ")}\n${JSON.stringify(params)}`);
  }
  sentMethods.add(method);
}
