import { expect } from "chai";
import type { FixtureServer } from "./fixture-server.js";

/** A tool's answer as an MCP client reads it. */
export interface ToolAnswer {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What the tests need of an MCP client, of either SDK line. */
export interface ToolCaller {
  callTool(request: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/** Calls a tool and answers what the client read. */
export async function call(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

/** A tool's answer as the object it carries; a tool error fails the test with its text. */
export async function result<T>(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const answer = await call(client, name, args);
  if (answer.isError) throw new Error(`${name} failed: ${answer.content[0]?.text}`);
  return answer.structuredContent as T;
}

/** Opens the form fixture, snapshots it, clicks Submit by ref and checks what the page shows; answers the tab. */
export async function driveFormPage(client: ToolCaller, site: FixtureServer): Promise<string> {
  const { target } = await result<{ target: string }>(client, "tabs_open", { url: site.url("form.html") });
  const text = (await call(client, "snapshot", { target })).content[0]?.text ?? "";
  expect(text).to.match(/^- RootWebArea "Form Fixture" \[ref=e\d+\]/);
  const ref = /button "Submit" \[ref=(e\d+)\]/.exec(text)?.[1] as string;
  // The click answers what it changed on the page: the status line's new text, with its ref, and the old one gone.
  const clicked = await result<{ ok: true; changes?: { diff?: string } }>(client, "click", { target, ref });
  expect(clicked).to.have.keys("ok", "changes");
  expect(clicked.changes).to.have.keys("diff");
  expect(clicked.changes?.diff).to.match(/^\+ StaticText "submitted ada@example.com" \[ref=e\d+\]\n- StaticText "idle"$/);
  const read = await result<{ value: string }>(client, "evaluate", { target, expression: "document.querySelector('#status').textContent" });
  expect(read.value).to.equal("submitted ada@example.com");
  return target;
}
