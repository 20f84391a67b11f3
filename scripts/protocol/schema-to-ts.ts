/** A JSON Schema node as the OpenRPC document writes it: the subset the hub's schemas use. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
  [keyword: string]: unknown;
}

// Keywords that narrow values without changing their TypeScript type.
const VALUE_KEYWORDS = new Set([
  "description",
  "default",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contentEncoding",
  "format",
  "examples",
  "title",
]);
const SHAPE_KEYWORDS = new Set([
  "$ref",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "oneOf",
  "anyOf",
  "allOf",
]);
const PRIMITIVES: Record<string, string> = { string: "string", number: "number", integer: "number", boolean: "boolean", null: "null" };

/** Writes a schema as a TypeScript type; `indent` is the indentation of the line the type starts on. */
export function typeOf(schema: Schema, indent = ""): string {
  for (const [keyword, value] of Object.entries(schema)) {
    if (value !== undefined && !SHAPE_KEYWORDS.has(keyword) && !VALUE_KEYWORDS.has(keyword))
      throw new Error(`schema keyword ${keyword} is not supported by the generator`);
  }
  if (schema.$ref !== undefined) return refName(schema.$ref);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.allOf) return schema.allOf.map((member) => wrap(typeOf(member, indent))).join(" & ");
  const union = schema.oneOf ?? schema.anyOf;
  if (union) return union.map((member) => wrap(typeOf(member, indent))).join(" | ");
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) return schema.properties ? objectOf(schema, indent) : "unknown";
  return types.map((type) => wrap(typeOfType(type, schema, indent))).join(" | ");
}

/** The name a `#/components/schemas/X` reference is generated as. */
export function refName(ref: string): string {
  const match = /^#\/components\/schemas\/([A-Za-z][A-Za-z0-9]*)$/.exec(ref);
  if (!match?.[1]) throw new Error(`reference ${ref} is not to a component schema`);
  return match[1];
}

/** A property name as TypeScript writes it: bare when it can be. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** A TSDoc comment of a description, or nothing. */
export function docOf(description: unknown, indent: string): string {
  if (typeof description !== "string" || description === "") return "";
  const text = description.replaceAll("*/", "*\\/").trim();
  if (!text.includes("\n")) return `${indent}/** ${text} */\n`;
  return `${indent}/**\n${text
    .split("\n")
    .map((line) => `${indent} *${line ? ` ${line}` : ""}`)
    .join("\n")}\n${indent} */\n`;
}

function typeOfType(type: string, schema: Schema, indent: string): string {
  const primitive = PRIMITIVES[type];
  if (primitive) return primitive;
  if (type === "array") return `${wrap(schema.items ? typeOf(schema.items, indent) : "unknown")}[]`;
  if (type === "object") return objectOf(schema, indent);
  throw new Error(`schema type ${type} is not supported by the generator`);
}

function objectOf(schema: Schema, indent: string): string {
  const properties = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  // Listed properties make a closed type (params are checked for unknown names); extra ones only where the schema says.
  const rest =
    extra === false || (extra === undefined && properties.length > 0)
      ? ""
      : extra === undefined || extra === true
        ? "unknown"
        : typeOf(extra, indent);
  if (properties.length === 0) return rest === "" ? "Record<string, never>" : `Record<string, ${rest}>`;
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const lines = properties.map(([name, property]) => {
    return `${docOf(property.description, inner)}${inner}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${typeOf(property, inner)};`;
  });
  if (rest !== "") lines.push(`${inner}[key: string]: ${rest === "unknown" ? "unknown" : `${rest} | undefined`};`);
  return `{\n${lines.join("\n")}\n${indent}}`;
}

// Parenthesizes a union or intersection, so that it can take [] or join another one.
function wrap(type: string): string {
  let depth = 0;
  for (let i = 0; i < type.length; i++) {
    const char = type[i];
    if (char === "{" || char === "(" || char === "<") depth++;
    else if (char === "}" || char === ")" || char === ">") depth--;
    else if (depth === 0 && (char === "|" || char === "&") && type[i - 1] === " ") return `(${type})`;
  }
  return type;
}
