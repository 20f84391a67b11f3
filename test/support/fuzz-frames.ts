import {
  ANY_OUTCOME,
  CODES,
  FOREIGN,
  Raw,
  Rng,
  SUCCEEDS,
  expectationOf,
  failsWith,
  toJson,
  type FuzzFrame,
  type MethodSpec,
  type Outcome,
  type Schema,
} from "./fuzz-rules.js";
import {
  UNICODE,
  HUGE_NUMBERS,
  WRONG_TYPES,
  GARBAGE,
  STRAY,
  BAD_UTF8,
  SNIPPETS,
  BLOCKING,
  FUNCTIONS,
  SAFE_URLS,
  REFUSED_URLS,
  NEAR_NAMES,
  HEX,
  CATEGORIES,
  METHOD_WEIGHTS,
  TAB_METHODS_TIMEOUT_MS,
} from "./fuzz-corpus.js";

/** Who the fuzzing connection is: its own tab and client, and tabs it must never reach. */
export interface FuzzTargets {
  own: string;
  ownClientId: string;
  foreign: readonly string[];
}

/** How the generator runs. */
export interface FuzzOptions {
  seed: number;
  targets: FuzzTargets;
  maxBatch: number;
  methods: readonly MethodSpec[];
  /** Bounds on calls with lasting effects: tabs opened, console subscriptions. */
  maxOpenedTabs: number;
  maxSubscriptions: number;
}

/** One JSON value of a frame (a request, usually) and what it may be answered with when it is a well-formed request. */
interface Item {
  text: string;
  intent?: Outcome;
  variant?: string;
}

/** A frame before it is numbered, with the variant of its category that made it. */
type Built = { variant?: string; body: Omit<FuzzFrame, "index" | "category"> };

/** Generates seeded fuzz frames for a live hub, each with the answer it is owed. */
export class FrameGenerator {
  readonly rng: Rng;
  #options: FuzzOptions;
  #methods: ReadonlySet<string>;
  #index = 0;
  #nextId = 1;
  #recentIds: (string | number)[] = [];
  #opened = 0;
  #subscribed = 0;

  constructor(options: FuzzOptions) {
    this.rng = new Rng(options.seed);
    this.#options = options;
    this.#methods = new Set(options.methods.map((method) => method.name));
  }

  /** The next frame. */
  next(): FuzzFrame {
    const category = this.#weighted(CATEGORIES);
    const frame = this.#frameOf(category);
    return { index: this.#index++, category: `${category}${frame.variant ? `/${frame.variant}` : ""}`, ...frame.body };
  }

  #frameOf(category: string): Built {
    const { rng } = this;
    switch (category) {
      case "brokenJson":
        return this.#brokenJson();
      case "binary":
        return this.#binary();
      case "batch":
        return this.#batch();
      case "huge":
        return this.#huge();
      case "deepNesting":
        return rng.chance(0.2) ? { variant: "frame", body: this.#frame(this.#deep()) } : this.#single(this.#deepItem());
      default:
        return this.#single(this.#item(category));
    }
  }

  #single(item: Item): Built {
    return { ...(item.variant ? { variant: item.variant } : {}), body: this.#frame(item.text, [item.intent]) };
  }

  #frame(data: string | Buffer, intents: readonly (Outcome | undefined)[] = []): Omit<FuzzFrame, "index" | "category"> {
    const rules = { maxBatch: this.#options.maxBatch, methods: this.#methods };
    const expect = expectationOf(data, intents, rules);
    const touchesTab = expect.owed.some((owed) => owed.outcome === ANY_OUTCOME) && data.includes(this.#options.targets.own);
    return { data, binary: typeof data !== "string", touchesTab, expect };
  }

  #item(category: string): Item {
    switch (category) {
      case "request":
        return this.#request(this.#anyMethod(), this.#idOrNone());
      case "badParams":
        return this.#badParams(this.#idOrNone());
      case "randomMethod":
        return { text: this.#envelope(this.#idOrNone(), this.#randomMethod(), this.#randomParams()) };
      case "envelope":
        return this.#brokenEnvelope();
      case "unicode":
        return this.#unicodeItem();
      case "hugeNumbers":
        return this.#hugeNumberItem();
      default:
        return { text: this.rng.pick(["1", "null", '"x"', "[]", "{}", "true"]) };
    }
  }

  #weighted<T>(choices: readonly [T, number][]): T {
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.rng.next() * total;
    for (const [choice, weight] of choices) {
      roll -= weight;
      if (roll < 0) return choice;
    }
    return (choices[0] as [T, number])[0];
  }

  #anyMethod(): MethodSpec {
    return this.#weighted(this.#options.methods.map((method) => [method, METHOD_WEIGHTS[method.name] ?? 1]));
  }

  /** A fresh id (a number or a string), now and then a special one (null, 0, huge, unicode), or none: a notification. */
  #idOrNone(): unknown {
    const { rng } = this;
    if (rng.chance(0.12)) return undefined;
    if (rng.chance(0.04))
      return rng.pick<unknown>([null, 0, -1, 1.5, "", this.#unicode(), new Raw(rng.pick(HUGE_NUMBERS)), "x".repeat(rng.int(1000, 20000))]);
    const id = rng.chance(0.5) ? this.#nextId++ : `f${this.#nextId++}`;
    this.#recentIds.push(id);
    if (this.#recentIds.length > 64) this.#recentIds.shift();
    return id;
  }

  #envelope(id: unknown, method: unknown, params?: unknown): string {
    return toJson({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), method, ...(params === undefined ? {} : { params }) });
  }

  /** A request for a real method with valid-looking params; the intent says what the hub may answer. */
  #request(spec: MethodSpec, id: unknown): Item {
    const { params, intent } = this.#validParams(spec);
    return { text: this.#envelope(id, spec.name, params), intent, variant: spec.name };
  }

  #validParams(spec: MethodSpec): { params: Record<string, unknown>; intent: Outcome } {
    const { rng } = this;
    const params: Record<string, unknown> = {};
    for (const param of spec.params) {
      if (param.name !== "target" && (param.required || rng.chance(0.35)))
        params[param.name] = this.#validValue(spec.name, param.name, param.schema);
    }
    if (spec.name === "tabs.open") return this.#tabsOpen(params);
    if (!spec.params.some((param) => param.name === "target")) return { params, intent: spec.name === "ping" ? SUCCEEDS : ANY_OUTCOME };
    const kind = this.#targetKind(spec.name);
    params.target = this.#target(kind);
    if (kind !== "own") return { params, intent: kind === "malformed" ? failsWith(CODES.INVALID_PARAMS) : FOREIGN };
    if (spec.name === "console.subscribe") this.#subscribed++;
    const blocking = typeof params.expression === "string" && BLOCKING.includes(params.expression);
    params.timeoutMs = blocking
      ? rng.int(20, 150)
      : rng.chance(0.05)
        ? rng.int(1, 5)
        : rng.int(TAB_METHODS_TIMEOUT_MS.min, TAB_METHODS_TIMEOUT_MS.max);
    return { params, intent: ANY_OUTCOME };
  }

  /** tabs.open that really opens a (loopback) tab only a bounded number of times; otherwise a refused one. */
  #tabsOpen(params: Record<string, unknown>): { params: Record<string, unknown>; intent: Outcome } {
    const { rng } = this;
    if (this.#opened < this.#options.maxOpenedTabs && rng.chance(0.2)) {
      this.#opened++;
      const url = rng.pick(SAFE_URLS);
      return { params: { url, waitUntil: rng.pick(["none", "load"]), timeoutMs: rng.int(200, 1000) }, intent: ANY_OUTCOME };
    }
    const refused = rng.chance(0.5) ? { url: rng.pick(REFUSED_URLS) } : { clientId: rng.pick(["control", "local", "other"]) };
    return { params: { ...params, ...refused }, intent: failsWith(CODES.FORBIDDEN, CODES.INVALID_PARAMS) };
  }

  #targetKind(method: string): "own" | "foreign" | "malformed" {
    const own =
      method === "tabs.close" || (method === "console.subscribe" && this.#subscribed >= this.#options.maxSubscriptions) ? 0 : 0.15;
    return this.#weighted<"own" | "foreign" | "malformed">([
      ["own", own],
      ["foreign", 0.75],
      ["malformed", 0.1],
    ]);
  }

  /** The own tab, a tab of another client, the own client with another client's tab id (and the reverse), or garbage. */
  #target(kind: "own" | "foreign" | "malformed"): string {
    const { rng } = this;
    const { own, ownClientId, foreign } = this.#options.targets;
    if (kind === "own") return own;
    if (kind === "malformed")
      return rng.pick(["", "nocolon", "a:b:c", ":x", "x:", `${this.#unicode()}:x`, `${"x".repeat(200)}:y`, ` ${own}`, `${own} `]);
    const other = rng.pick(foreign);
    const tabOf = (target: string): string => target.slice(target.indexOf(":") + 1);
    return rng.pick([
      other,
      `${ownClientId}:${tabOf(other)}`,
      `local:${tabOf(own)}`,
      `${ownClientId}:${rng.text(HEX, 32, 32)}`,
      `local:${rng.text(HEX, 1, 40)}`,
    ]);
  }

  #validValue(method: string, name: string, schema: Schema): unknown {
    const { rng } = this;
    switch (name) {
      case "url":
        return method === "agent.run" ? rng.pick(SAFE_URLS) : rng.pick([...SAFE_URLS, ...REFUSED_URLS]);
      case "expression":
        return rng.chance(0.02)
          ? rng.pick(BLOCKING)
          : rng.chance(0.85)
            ? rng.pick(SNIPPETS)
            : rng.text("abc(){}[];=+-*/'\"`.,!?1 \n", 0, 40);
      case "functionDeclaration":
        return rng.pick(FUNCTIONS);
      case "selector":
        return rng.pick(["body", "p", "#nope", "button", "*", ":root", "[", "a[href", "\ud800", "x".repeat(5000)]);
      case "ref":
        return rng.pick(["e1", "e2", "e999999", "x"]);
      case "backendNodeId":
        return rng.pick<unknown>([1, 2, 3, 2147483647, new Raw("18446744073709551616")]);
      case "args":
        return rng.pick<unknown>([[], [1, 2], ["x"], [null, true], [new Raw("1e308"), new Raw("-0")], [{ a: [1] }]]);
      case "id":
        return this.#recentIds.length > 0 && rng.chance(0.8) ? rng.pick(this.#recentIds) : rng.pick<unknown>([0, "nope", 2 ** 31]);
      case "clientId":
        return rng.pick([this.#options.targets.ownClientId, "control", "local", rng.text(HEX, 1, 12)]);
      case "clip":
        return {
          x: rng.pick<unknown>([0, 10, -5, new Raw("1e308")]),
          y: rng.pick([0, 10]),
          width: rng.pick<unknown>([1, 50, 400, new Raw("4.9e-324")]),
          height: rng.chance(0.02) ? new Raw("1e308") : rng.pick([1, 50, 300]),
        };
      case "scale":
        return rng.pick([0.1, 0.5, 1, 1.5]);
      case "maxSize":
      case "maxDepth":
      case "maxWidth":
      case "maxHeight":
        return rng.pick<unknown>([0, 1, 10, 800, new Raw("1e308")]);
      case "timeoutMs":
        return rng.int(TAB_METHODS_TIMEOUT_MS.min, TAB_METHODS_TIMEOUT_MS.max);
      default:
        return this.#fromSchema(schema);
    }
  }

  #fromSchema(schema: Schema): unknown {
    const { rng } = this;
    if (Array.isArray(schema.enum)) return rng.pick(schema.enum);
    if (Array.isArray(schema.oneOf)) return this.#fromSchema(rng.pick(schema.oneOf as Schema[]));
    const items = schema.items as Schema | undefined;
    switch (schema.type) {
      case "boolean":
        return rng.chance(0.5);
      case "integer":
      case "number": {
        const min = typeof schema.minimum === "number" ? schema.minimum : 0;
        return rng.int(min, typeof schema.maximum === "number" ? schema.maximum : min + 100);
      }
      case "string":
        return typeof schema.pattern === "string"
          ? rng.text("abcXYZ019._-", 1, 12)
          : rng.chance(0.2)
            ? this.#unicode()
            : rng.text("abc xyz", 0, 12);
      case "array":
        return items ? Array.from({ length: rng.int(1, 3) }, () => this.#fromSchema(items)) : [];
      case "object":
        return schema.properties
          ? Object.fromEntries(
              Object.entries(schema.properties as Record<string, Schema>).map(([key, value]) => [key, this.#fromSchema(value)]),
            )
          : {};
      default:
        return this.#randomParams();
    }
  }

  /** A real method with params that break its schema: an unknown param, a missing one, a wrong type, or by position. */
  #badParams(id: unknown): Item {
    const { rng } = this;
    const spec = this.#anyMethod();
    const params: Record<string, unknown> = {};
    // Never the own tab for tabs.close: one break that the hub let through would close it for the rest of the run.
    const target = spec.name === "tabs.close" ? this.#target("foreign") : this.#options.targets.own;
    for (const param of spec.params)
      if (param.required || rng.chance(0.3))
        params[param.name] = param.name === "target" ? target : this.#validValue(spec.name, param.name, param.schema);
    const required = spec.params.filter((param) => param.required);
    const breakable = spec.params.filter((param) => this.#wrongValue(param.name, param.schema) !== undefined);
    const how = rng.pick([
      "unknown",
      "array",
      ...(required.length > 0 ? ["missing"] : []),
      ...(breakable.length > 0 ? ["wrongType", "wrongType"] : []),
    ]);
    // defineProperty, so that "__proto__" becomes a member as JSON.parse makes it, not the object's prototype.
    const unknown = rng.pick(["bogus", "__proto__", "constructor", "Target", "timeout", "", this.#unicode()]);
    if (how === "unknown")
      Object.defineProperty(params, unknown, { value: rng.pick(WRONG_TYPES), enumerable: true, writable: true, configurable: true });
    if (how === "missing") delete params[rng.pick(required).name];
    if (how === "wrongType") {
      const param = rng.pick(breakable);
      params[param.name] = this.#wrongValue(param.name, param.schema);
    }
    const sent = how === "array" ? Object.values(params) : params;
    return { text: this.#envelope(id, spec.name, sent), intent: failsWith(CODES.INVALID_PARAMS), variant: `${spec.name}/${how}` };
  }

  /** A value that breaks `schema` (undefined when nothing can). */
  #wrongValue(name: string, schema: Schema): unknown {
    const { rng } = this;
    if (name === "timeoutMs") return rng.pick<unknown>([0, -1, 1.5, "100", 600001, new Raw("1e308"), new Raw("18446744073709551616")]);
    if (schema.pattern) return rng.pick(["", "no colon", "a:b:c", "\ud800:\ud800", `${"x".repeat(300)}:y`, " local:x", 5]);
    if (Array.isArray(schema.enum)) return rng.pick<unknown>(["nope", 1, null, true]);
    const below =
      typeof schema.minimum === "number"
        ? [schema.minimum - 1]
        : typeof schema.exclusiveMinimum === "number"
          ? [schema.exclusiveMinimum]
          : [];
    const above = typeof schema.maximum === "number" ? [schema.maximum + 1] : [];
    const long = typeof schema.maxLength === "number" && schema.maxLength <= 8192 ? ["x".repeat(schema.maxLength + 1)] : [];
    const type = Array.isArray(schema.type) ? "id" : schema.oneOf ? "oneOf" : schema.type;
    const byType: Record<string, unknown[]> = {
      string: [1, true, null, {}, [], ...long],
      integer: ["1", 1.5, true, null, [], {}, ...below, ...above],
      number: ["1", true, null, {}, [], ...below, ...above],
      boolean: ["true", 1, 0, null, [], {}],
      array: [{}, "[]", 1, null, ...(schema.minItems ? [[]] : []), ...((schema.items as Schema | undefined)?.enum ? [["nope"]] : [])],
      object: [[], "x", 1, null, true, ...(schema.required ? [{ x: 0 }] : [])],
      id: [null, 1.5, true, {}, []],
      oneOf: [1, null, true, {}],
    };
    const choices = typeof type === "string" ? byType[type] : undefined;
    return choices ? rng.pick(choices) : undefined;
  }

  #randomMethod(): string {
    const { rng } = this;
    const real = this.rng.pick([...this.#methods]);
    return rng.pick([
      rng.text("abcdefghijklmnopqrstuvwxyz._-/$ ", 1, 40),
      rng.pick(NEAR_NAMES),
      real.toUpperCase(),
      `${real}.`,
      `rpc.${real}`,
      `${real}\u200b`,
      this.#unicode(),
    ]);
  }

  #randomParams(): unknown {
    const { rng } = this;
    return rng.pick<unknown>([
      undefined,
      {},
      [],
      [1, "a"],
      { a: 1 },
      { target: this.#options.targets.own },
      { [this.#unicode()]: this.#unicode() },
    ]);
  }

  /** A request whose envelope has one field of the wrong type, missing, or added. */
  #brokenEnvelope(): Item {
    const { rng } = this;
    // Not tabs.open: a break that leaves a valid request (an added "result" member, say) would open a tab each time.
    const method = rng.pick([...this.#methods].filter((name) => name !== "tabs.open"));
    const request: Record<string, unknown> = {
      jsonrpc: "2.0",
      id: this.#nextId++,
      method,
      params: rng.pick<unknown>([{}, undefined, { x: 1 }]),
    };
    const field = rng.pick(["jsonrpc", "id", "method", "params", "result", "error"]);
    const how = rng.pick(["wrong", "wrong", "missing"]);
    if (how === "missing") delete request[field];
    else request[field] = rng.pick(WRONG_TYPES);
    return { text: toJson(request), variant: `${field}/${how}` };
  }

  #unicode(): string {
    return Array.from({ length: this.rng.int(1, 4) }, () => this.rng.pick(UNICODE)).join(this.rng.pick(["", "x", " "]));
  }

  /** Unicode edge cases as the method, the id, a param name or a param value; lone surrogates escaped or raw. */
  #unicodeItem(): Item {
    const { rng } = this;
    const where = rng.pick(["method", "id", "key", "value"]);
    const text = this.#unicode();
    const raw = rng.chance(0.5) ? new Raw(`"${text.replace(/["\\]/g, "")}"`) : text;
    if (where === "method") return { text: this.#envelope(this.#nextId++, raw), variant: where };
    if (where === "id") return { text: this.#envelope(raw, "ping"), intent: SUCCEEDS, variant: where };
    const spec = this.#anyMethod();
    const { params, intent } = this.#validParams(spec);
    const names = ["expression", "selector", "url", "subscriptionId", "tool", "clientId", "functionDeclaration"].filter((key) =>
      spec.params.some((param) => param.name === key),
    );
    if (where === "key" || names.length === 0)
      return {
        text: this.#envelope(this.#nextId++, spec.name, { ...params, [text]: 1 }),
        intent: failsWith(CODES.INVALID_PARAMS),
        variant: "key",
      };
    const name = rng.pick(names);
    return { text: this.#envelope(this.#nextId++, spec.name, { ...params, [name]: raw }), intent, variant: `${spec.name}/${name}` };
  }

  /** Numbers at the edges of IEEE 754 (1e308, -0, 2**64, 1e309, long digit strings) as ids, numeric params and args. */
  #hugeNumberItem(): Item {
    const { rng } = this;
    const number = new Raw(rng.pick(HUGE_NUMBERS));
    const where = this.#weighted([
      ["id", 3],
      ["param", 3],
      ["args", 1],
      ["cancel", 1],
    ]);
    if (where === "id") return { text: this.#envelope(number, "ping"), intent: SUCCEEDS, variant: where };
    if (where === "cancel") return { text: this.#envelope(this.#nextId++, "cancel", { id: number }), variant: where };
    if (where === "args") {
      const args = Array.from({ length: rng.int(1, 4) }, () => new Raw(rng.pick(HUGE_NUMBERS)));
      const params = { target: this.#options.targets.own, expression: "(...a) => a.map(String)", args, timeoutMs: 300 };
      return { text: this.#envelope(this.#nextId++, "evaluate", params), intent: ANY_OUTCOME, variant: where };
    }
    const spec = rng.pick(
      this.#options.methods.filter((method) => method.params.some((param) => ["integer", "number"].includes(String(param.schema.type)))),
    );
    const { params, intent } = this.#validParams(spec);
    const name = rng.pick(spec.params.filter((param) => ["integer", "number"].includes(String(param.schema.type)))).name;
    return { text: this.#envelope(this.#nextId++, spec.name, { ...params, [name]: number }), intent, variant: `${spec.name}/${name}` };
  }

  /** Arrays or objects nested thousands deep (now and then 100,000). */
  #deep(): string {
    const depth = this.rng.chance(0.02) ? 100_000 : this.rng.int(500, 5_000);
    return this.rng.chance(0.5) ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
  }

  #deepItem(): Item {
    const { rng } = this;
    const deep = new Raw(this.#deep());
    const own = this.#options.targets.own;
    const where = rng.pick(["args", "agent", "params", "id", "method"]);
    if (where === "args")
      return {
        text: this.#envelope(this.#nextId++, "evaluate", { target: own, expression: "(a) => typeof a", args: [deep], timeoutMs: 300 }),
        intent: ANY_OUTCOME,
        variant: where,
      };
    if (where === "agent")
      return {
        text: this.#envelope(this.#nextId++, "agent.run", { target: own, input: "x", model: deep, metadata: { deep } }),
        intent: ANY_OUTCOME,
        variant: where,
      };
    if (where === "params")
      return {
        text: this.#envelope(this.#nextId++, rng.pick([...this.#methods]), { deep }),
        intent: failsWith(CODES.INVALID_PARAMS),
        variant: where,
      };
    return { text: where === "id" ? this.#envelope(deep, "ping") : this.#envelope(this.#nextId++, deep), variant: where };
  }

  /** A request text, or the text of a whole batch, with bytes cut, added or swapped. */
  #brokenJson(): Built {
    const { rng } = this;
    if (rng.chance(0.25)) return { variant: "garbage", body: this.#frame(rng.pick(GARBAGE)) };
    const text = this.#mutable(rng.pick(["request", "badParams", "randomMethod"])).text;
    const at = rng.int(0, Math.max(0, text.length - 1));
    const how = rng.pick(["truncate", "insert", "delete", "replace", "append", "prepend", "double"]);
    const broken = {
      truncate: () => text.slice(0, at),
      insert: () => text.slice(0, at) + rng.pick(STRAY) + text.slice(at),
      delete: () => text.slice(0, at) + text.slice(at + 1),
      replace: () => text.slice(0, at) + rng.pick(STRAY) + text.slice(at + 1),
      append: () => text + rng.pick(["}", ",", "{}", "]", "x", "\u0000", " ", "\n"]),
      prepend: () => rng.pick(["\ufeff", "x", ",", " ", "\u0000"]) + text,
      double: () => text + text,
    }[how];
    return { variant: how, body: this.#frame(broken?.() ?? text) };
  }

  /** Binary frames: random bytes, invalid UTF-8 in or around a request, UTF-16, a BOM, or a plain request sent as binary. */
  /**
   * An item to break or re-encode, never a tabs.open: a broken one can come out valid (a bad timeoutMs of 1.5 with
   * the dot deleted) and open a tab the run's bound on opened tabs does not count.
   */
  #mutable(category: string): Item {
    for (;;) {
      const item = this.#item(category);
      if (!item.text.includes('"tabs.open"')) return item;
    }
  }

  #binary(): Built {
    const { rng } = this;
    const bad = Buffer.from(Array.from({ length: rng.int(1, 3) }, () => rng.pick(BAD_UTF8)).flat());
    const item = this.#mutable("request");
    const how = this.#weighted([
      ["random", 2],
      ["inMethod", 2],
      ["inString", 1],
      ["anywhere", 2],
      ["utf16", 1],
      ["bom", 1],
      ["plain", 1],
    ]);
    const at = rng.int(0, item.text.length);
    const own = this.#options.targets.own;
    const parts: Record<string, () => Buffer> = {
      random: () => Buffer.from(Array.from({ length: rng.int(0, 200) }, () => rng.int(0, 255))),
      inMethod: () => Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${this.#nextId++},"method":"`), bad, Buffer.from('"}')]),
      inString: () =>
        Buffer.concat([
          Buffer.from(
            `{"jsonrpc":"2.0","id":${this.#nextId++},"method":"evaluate","params":{"target":"${own}","timeoutMs":300,"expression":"'`,
          ),
          bad,
          Buffer.from(`'"}}`),
        ]),
      anywhere: () => Buffer.concat([Buffer.from(item.text.slice(0, at)), bad, Buffer.from(item.text.slice(at))]),
      utf16: () => Buffer.from(item.text, "utf16le"),
      bom: () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(item.text)]),
      plain: () => Buffer.from(item.text),
    };
    const data = (parts[how] ?? parts.plain!)();
    return { variant: how, body: this.#frame(data, how === "plain" ? [item.intent] : how === "inString" ? [ANY_OUTCOME] : []) };
  }

  /** Batches: empty, over MAX_BATCH, notifications only, nested, exactly MAX_BATCH, or a mix of everything. */
  #batch(): Built {
    const { rng } = this;
    const { maxBatch } = this.#options;
    const how = this.#weighted([
      ["empty", 1],
      ["overMax", 1],
      ["notifications", 2],
      ["nested", 2],
      ["full", 1],
      ["mixed", 13],
    ]);
    const mixed = (): Item =>
      this.#item(rng.pick(["request", "request", "badParams", "randomMethod", "envelope", "unicode", "hugeNumbers", "other"]));
    const notification = (): Item => ({
      text: this.#envelope(undefined, rng.pick(["ping", "nope", "tabs.list", "cancel"]), rng.pick<unknown>([undefined, {}, { id: 1 }])),
    });
    const count = how === "overMax" ? maxBatch + rng.int(1, 50) : how === "full" ? maxBatch : how === "empty" ? 0 : rng.int(1, 20);
    const items: Item[] = Array.from({ length: count }, () =>
      how === "notifications" ? notification() : how === "overMax" ? { text: this.#envelope(this.#nextId++, "ping") } : mixed(),
    );
    if (how === "nested")
      return {
        variant: how,
        body: this.#frame(`[${rng.chance(0.5) ? "" : `${mixed().text},`}[${items.map((item) => item.text).join(",")}]]`),
      };
    return {
      variant: how,
      body: this.#frame(
        `[${items.map((item) => item.text).join(",")}]`,
        items.map((item) => item.intent),
      ),
    };
  }

  /** Frames of 100 KB to 3 MB: a long expression, method name, id or unknown param, a 5,000-request batch. */
  #huge(): Built {
    const { rng } = this;
    const size = rng.int(100_000, 2_000_000);
    const own = this.#options.targets.own;
    const how = rng.pick(["expression", "method", "id", "param", "batch"]);
    const long = "x".repeat(size);
    const texts: Record<string, () => [string, Outcome | undefined]> = {
      expression: () => [
        this.#envelope(this.#nextId++, "evaluate", { target: own, expression: `'${long}'.length`, maxSize: 100, timeoutMs: 1000 }),
        ANY_OUTCOME,
      ],
      method: () => [this.#envelope(this.#nextId++, long), undefined],
      id: () => [this.#envelope(long.slice(0, 200_000), "ping"), SUCCEEDS],
      param: () => [
        this.#envelope(this.#nextId++, "ping", { [rng.chance(0.5) ? long.slice(0, 1000) : "x"]: long }),
        failsWith(CODES.INVALID_PARAMS),
      ],
      batch: () => [`[${Array.from({ length: 5000 }, () => this.#envelope(this.#nextId++, "ping")).join(",")}]`, undefined],
    };
    const [text, intent] = (texts[how] ?? texts.method!)();
    return { variant: how, body: this.#frame(text, [intent]) };
  }
}
