import { HubError } from "../errors.js";
import type { ActionScope } from "./act.js";
import type { ElementReference } from "./element-object.js";
import { actionPoint } from "./actionable.js";
import { TabInput } from "./input.js";

// Runs on the element: focuses it and selects what it holds, for text to replace it. Inputs whose value is not
// typed get it set with input and change events. Answers "typed", "set", or why the element takes no text.
const PREPARE_FILL = `function (value) {
  const el = this.nodeType === Node.TEXT_NODE ? this.parentElement : this;
  const tag = el.tagName;
  if (tag === "INPUT") {
    const type = el.type;
    if (["date", "time", "datetime-local", "month", "week", "color", "range"].includes(type)) {
      el.focus();
      el.value = value;
      if (el.value !== value) return "the input of type " + type + " does not take the value " + JSON.stringify(value);
      el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return "set";
    }
    if (!["text", "search", "email", "password", "tel", "url", "number"].includes(type)) return "an input of type " + type + " takes no text";
    el.focus();
    el.select();
    return "typed";
  }
  if (tag === "TEXTAREA") {
    el.focus();
    el.select();
    return "typed";
  }
  if (el.isContentEditable) {
    el.focus();
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return "typed";
  }
  return "a " + tag.toLowerCase() + " element takes no text";
}`;

// Runs on a select: selects the options named by value (else label); answers the values selected or why not. A ref
// may name a text node (a snapshot's StaticText): its element is the one that is not a select.
const SELECT_OPTIONS = `function (values) {
  const el = this.nodeType === Node.TEXT_NODE ? this.parentElement : this;
  if (el.tagName !== "SELECT") return { error: "the element is a " + el.tagName.toLowerCase() + ", not a select" };
  const options = [...el.options];
  const picked = [];
  for (const value of values) {
    const option = options.find((o) => o.value === value) || options.find((o) => o.label === value);
    if (!option) return { error: "no option of the select has the value or label " + JSON.stringify(value) };
    picked.push(option);
  }
  if (!el.multiple && picked.length > 1) return { error: "the select takes one value, not " + picked.length };
  for (const option of options) option.selected = picked.includes(option);
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { selected: options.filter((o) => o.selected).map((o) => o.value) };
}`;

// Why an element can never take text (a select, a checkbox, a div), or "" for a field that can.
const NOT_A_TEXT_FIELD = `function () {
  const el = this.nodeType === Node.TEXT_NODE ? this.parentElement : this;
  if (el.isContentEditable || el.tagName === "TEXTAREA") return "";
  if (el.tagName !== "INPUT") return "a " + el.tagName.toLowerCase() + " element takes no text";
  return ["checkbox", "radio", "file", "submit", "button", "reset", "image", "hidden"].includes(el.type) ? "an input of type " + el.type + " takes no text" : "";
}`;

// Runs on a field of fillForm before any is filled: its kind, and why the value cannot go in it ("" when it can).
// A value an input of a date-like type refuses is found on a detached input of the same type.
const CHECK_FIELD = `function (value) {
  const el = this.nodeType === Node.TEXT_NODE ? this.parentElement : this;
  if (el.tagName === "SELECT") {
    if (typeof value !== "string") return { kind: "select", error: "a select takes an option's value or label, not " + value };
    const has = [...el.options].some((o) => o.value === value || o.label === value);
    return { kind: "select", error: has ? "" : "no option of the select has the value or label " + JSON.stringify(value) };
  }
  if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) {
    const on = value === true || value === "true" ? true : value === false || value === "false" ? false : null;
    if (on === null) return { kind: el.type, error: "a " + el.type + " takes true or false, not " + JSON.stringify(value) };
    if (el.type === "radio" && !on && el.checked) return { kind: "radio", error: "a radio is unchecked by checking another of its group" };
    return { kind: el.type, checked: on, error: "" };
  }
  if (typeof value !== "string") return { kind: "text", error: "a text field takes a string, not " + value };
  if (el.isContentEditable || el.tagName === "TEXTAREA") return { kind: "text", error: "" };
  if (el.tagName !== "INPUT") return { kind: "text", error: "a " + el.tagName.toLowerCase() + " element takes no value" };
  if (["file", "submit", "button", "reset", "image", "hidden"].includes(el.type)) return { kind: "text", error: "an input of type " + el.type + " takes no value" };
  if (["date", "time", "datetime-local", "month", "week", "color", "range"].includes(el.type)) {
    const probe = document.createElement("input");
    probe.type = el.type;
    probe.value = value;
    if (probe.value !== value) return { kind: "text", error: "the input of type " + el.type + " does not take the value " + JSON.stringify(value) };
  }
  return { kind: "text", error: "" };
}`;

const KIND_OF_FIELD = `function () {
  if (this.tagName === "SELECT") return { kind: "select" };
  if (this.tagName === "INPUT" && (this.type === "checkbox" || this.type === "radio")) return { kind: this.type, checked: this.checked };
  return { kind: "text" };
}`;

const VISIBLE_AND_ENABLED = { enabled: true, editable: false, hitTest: false };

/** Replaces the text of an input, textarea or contenteditable element, as `fill` does. */
export async function fillElement(scope: ActionScope, element: ElementReference, value: string): Promise<void> {
  const objectId = await scope.object(element);
  // An element that can never take text is refused at once, not waited for until the budget ends.
  const refusal = await scope.callFunction<string>(objectId, NOT_A_TEXT_FIELD, []);
  if (refusal) throw new HubError("INVALID_PARAMS", `invalid params for ${scope.method}: ${refusal}; fill takes text fields`);
  await actionPoint(scope, objectId, { enabled: true, editable: true, hitTest: false });
  const prepared = await scope.callFunction<string>(objectId, PREPARE_FILL, [value]);
  if (prepared === "set") return;
  if (prepared !== "typed") throw new HubError("INVALID_PARAMS", `invalid params for ${scope.method}: ${prepared}; fill takes text fields`);
  const input = new TabInput(scope.tab, scope.budget);
  if (value === "") await input.press({ modifiers: [], key: { key: "Delete", code: "Delete", keyCode: 46 } });
  else await input.insertText(value);
}

/** Selects options of a select by value or label, as `select` does; answers the values now selected. */
export async function selectOptions(scope: ActionScope, element: ElementReference, values: readonly string[]): Promise<string[]> {
  const objectId = await scope.object(element);
  await actionPoint(scope, objectId, VISIBLE_AND_ENABLED);
  const answer = await scope.callFunction<{ error?: string; selected?: string[] }>(objectId, SELECT_OPTIONS, [values]);
  if (answer.error !== undefined) throw new HubError("INVALID_PARAMS", `invalid params for ${scope.method}: ${answer.error}`);
  return answer.selected ?? [];
}

/**
 * Checks that a field of a form takes `value`, changing nothing: the value the field is then set to (a checkbox's or
 * radio's `"true"` or `"false"` as a boolean), or INVALID_PARAMS saying why not.
 */
export async function checkField(scope: ActionScope, element: ElementReference, value: string | boolean): Promise<string | boolean> {
  const field = await scope.callFunction<{ kind: string; checked?: boolean; error: string }>(await scope.object(element), CHECK_FIELD, [
    value,
  ]);
  if (field.error !== "") throw new HubError("INVALID_PARAMS", field.error);
  return field.checked ?? value;
}

/** Sets one field of a form by its kind: a checkbox or radio by clicking, a select by its options, text by fill. */
export async function setField(scope: ActionScope, element: ElementReference, value: string | boolean): Promise<void> {
  const field = await scope.callFunction<{ kind: string; checked?: boolean }>(await scope.object(element), KIND_OF_FIELD, []);
  if (field.kind === "checkbox" || field.kind === "radio") {
    if (typeof value !== "boolean")
      throw new HubError("INVALID_PARAMS", `a ${field.kind} takes true or false, not ${JSON.stringify(value)}`);
    if (field.checked === value) return;
    if (field.kind === "radio" && !value) throw new HubError("INVALID_PARAMS", "a radio is unchecked by checking another of its group");
    const point = await scope.point(element, { enabled: true, editable: false, hitTest: true });
    return new TabInput(scope.tab, scope.budget).click(point, { button: "left", clickCount: 1, modifiers: [] });
  }
  if (typeof value !== "string") throw new HubError("INVALID_PARAMS", `a ${field.kind} field takes a string, not ${value}`);
  if (field.kind === "select") await selectOptions(scope, element, [value]);
  else await fillElement(scope, element, value);
}
