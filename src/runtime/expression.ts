import vm from "node:vm";

/** The code as the hub sends it to Runtime.evaluate, and how to map positions back to the caller's code. */
export interface PreparedExpression {
  expression: string;
  replMode: boolean;
  /** Columns the wrapper adds before the caller's first line. */
  columnOffset: number;
  /** Whether the code went in braces (its syntax errors may then name the closing brace: see syntax-error.ts). */
  isBlock: boolean;
}

const AWAIT = /\bawait\b/;

/**
 * Wraps code for Runtime.evaluate: `{ code }` when isolated so let/const of one call never collide with the next,
 * and an object literal (`{a: 1}`) in parentheses as the DevTools console does; replMode only when the code awaits,
 * since it costs a little on every call.
 */
export function prepareExpression(code: string, isolate: boolean): PreparedExpression {
  const replMode = AWAIT.test(code);
  if (isObjectLiteral(code)) return { expression: `(${code}\n)`, replMode, columnOffset: 1, isBlock: false };
  if (!isolate) return { expression: code, replMode, columnOffset: 0, isBlock: false };
  // The newline keeps a trailing line comment from swallowing the closing brace.
  return { expression: `{${code}\n}`, replMode, columnOffset: 1, isBlock: true };
}

/** Whether code in braces is an object literal rather than a block; parsed locally, never run. */
export function isObjectLiteral(code: string): boolean {
  const trimmed = code.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return false;
  try {
    new vm.Script(`(${trimmed}\n)`);
    return true;
  } catch {
    return false;
  }
}
