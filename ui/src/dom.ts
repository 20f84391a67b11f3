// A tiny element helper: build elements with attributes and children, without innerHTML (all text goes in as text nodes).

/** An attribute value: `true` sets an empty attribute, `false`, `null` and `undefined` leave it out. */
export type AttrValue = string | number | boolean | null | undefined;

/** What h() puts inside an element: nodes as they are, strings and numbers as text; null, undefined and false are skipped. */
export type Child = Node | string | number | null | undefined | false;

/**
 * Makes an element: `h("a", { href: "#/", class: "back" }, "Overview")`.
 * Attributes are set with setAttribute (so `class`, `for`, `aria-*` and `data-*` are written as in HTML).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, AttrValue> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttrs(element, attrs);
  append(element, children);
  return element;
}

/** Sets (or, for false, null and undefined, removes) the given attributes of an element. */
export function setAttrs(element: Element, attrs: Record<string, AttrValue>): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) element.removeAttribute(name);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
}

/** Appends children to an element: nodes as they are, strings and numbers as text nodes. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside an element with the given children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Sets an element's text only when it changed (so screen readers and selection are not disturbed for nothing). */
export function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** The element with this id, or an error naming it: for the elements index.html is known to have. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id}`);
  return element as T;
}

/** The first element under root matching a selector, or an error: for elements a view made itself. */
export function query<T extends Element = HTMLElement>(root: ParentNode, selector: string): T {
  const element = root.querySelector(selector);
  if (!element) throw new Error(`no ${selector}`);
  return element as T;
}
