import AjvModule, { type ValidateFunction } from "ajv";
import { loadOpenRpc } from "../../src/rpc/params-validator.js";

const Ajv = AjvModule.default;

interface Document {
  methods: { name: string; result: { schema: object } }[];
  "x-notifications": { name: string; params: object }[];
  components: object;
}

const doc = loadOpenRpc() as unknown as Document;
const ajv = new Ajv({ strict: false, allErrors: true });
const results = new Map<string, ValidateFunction>();
const notifications = new Map<string, ValidateFunction>();
for (const method of doc.methods) results.set(method.name, ajv.compile({ ...method.result.schema, components: doc.components }));
for (const note of doc["x-notifications"]) notifications.set(note.name, ajv.compile({ ...note.params, components: doc.components }));

/** What the hub sent that the OpenRPC document does not allow, since the last take(). */
const violations: string[] = [];

/** Checks a result the hub answered against its method's result schema in the document. */
export function checkResult(method: string, result: unknown): void {
  const validate = results.get(method);
  if (validate && !validate(result))
    violations.push(
      `the result of ${method} is not as the document says: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(result).slice(0, 300)}`,
    );
}

/** Checks a notification the hub sent against the document's x-notifications. */
export function checkNotification(method: string, params: unknown): void {
  const validate = notifications.get(method);
  if (!validate) violations.push(`the hub sent a notification ${method} that the document does not list`);
  else if (!validate(params))
    violations.push(
      `the params of notification ${method} are not as the document says: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(params).slice(0, 300)}`,
    );
}

/** The violations seen since the last call, which forgets them. */
export function takeViolations(): string[] {
  return violations.splice(0);
}
