import { DOM_AX_STATE, READ_WHOLE } from "./dom-ax-script.js";

/** The most mutation records (and input events) an action's watch keeps; past them the whole page counts as changed. */
const MAX_RECORDS = 10_000;
/** The most separate parts of the page re-read after an action; past them the whole page is. */
const MAX_ROOTS = 200;
/** How many levels up a change looks for an element named by its content (a button whose text changed). */
const NAME_LEVELS = 8;

/**
 * The page script that starts watching the page for an action (in the hub's snapshot world of the main frame): a
 * MutationObserver on the document and on the shadow roots and same-origin documents the last read went into, and
 * input and change events (a field's value is no mutation). A document never read is read first, so that what the
 * action changes can be told from what was there. Called as `(ARM_CHANGES)(maxNodes)`; answers `{url, title}`. Both
 * change scripts use the world's reader (`state.scripts.reader`, see world-scripts.ts).
 */
export const ARM_CHANGES = `function (maxNodes) {
  const state = ${DOM_AX_STATE};
  if (state.watch) state.watch.stop();
  if (state.readGeneration === 0) (${READ_WHOLE})(state, false, maxNodes);
  const records = [];
  const targets = new Set();
  const observer = new MutationObserver((list) => {
    for (const record of list) if (records.length < ${MAX_RECORDS}) records.push(record);
  });
  const options = { subtree: true, childList: true, characterData: true, attributes: true };
  observer.observe(document, options);
  for (const root of state.roots) observer.observe(root, options);
  const onInput = (event) => {
    if (targets.size < ${MAX_RECORDS}) targets.add(event.composedPath()[0] ?? event.target);
  };
  addEventListener("input", onInput, true);
  addEventListener("change", onInput, true);
  state.watch = {
    take: () => records.concat(observer.takeRecords()),
    targets,
    stop: () => {
      observer.disconnect();
      removeEventListener("input", onInput, true);
      removeEventListener("change", onInput, true);
      state.watch = null;
    },
  };
  return { url: location.href, title: document.title };
}`;

/**
 * The page script that ends an action's watch and answers what changed, as lines to write. The parts of the page the
 * action touched are read again: nodes added, and elements whose attributes, text or value changed, each lifted to the
 * element named by its content (a button whose text changed), parts inside another dropped. Each node read is `+` (not
 * there at the last read), `~` (its role, name or value differ) or left out (the same); nodes there at the last read
 * and not now (removed, hidden) are `-`. A new document (the action navigated) has no watch: only its URL and title
 * are answered, once it is parsed (or `settleMs` passed).
 *
 * Called as `(TAKE_CHANGES)(maxNodes, maxEntries, settleMs)`, it answers `{url, title, changed?, gone?, truncated?}`:
 * `changed` seven entries per node (`+` or `~`, role, name, value or null, node id, then the name and the value of its
 * nearest ancestor a snapshot shows), `gone` five (role, name, value or null, node id or null, that ancestor's line key).
 */
export const TAKE_CHANGES = `async function (maxNodes, maxEntries, settleMs) {
  const state = ${DOM_AX_STATE};
  if (document.readyState === "loading") {
    await new Promise((resolve) => {
      addEventListener("DOMContentLoaded", resolve, { once: true });
      setTimeout(resolve, settleMs);
    });
  }
  const answer = { url: location.href, title: document.title };
  const watch = state.watch;
  if (!watch) return answer;
  const records = watch.take();
  const targets = [...watch.targets];
  watch.stop();
  if (records.length === 0 && targets.length === 0) return answer;
  const generation = state.readGeneration;
  const isValid = (entry) => entry !== undefined && entry[0] >= generation;
  const parentOf = (node) => node.parentNode ?? node.host ?? (node.nodeType === 9 ? node.defaultView?.frameElement ?? null : null);
  const added = new Set();
  const statuses = [];
  const seen = new Set();
  // The lines as they were before this read: a node gone is written against its parent's old name.
  const previous = new Map();
  const isFresh = (node) => {
    for (let up = node; up; up = parentOf(up)) if (added.has(up)) return true;
    return false;
  };
  const read = state.scripts.reader(state, {
    wantBoxes: false,
    maxNodes,
    onPush: (node, key, index) => {
      const entry = state.lines.get(node);
      if (entry !== undefined) previous.set(node, entry);
      statuses[index] = !isValid(entry) ? "+" : entry[1] === key ? "=" : isFresh(node) ? "+" : "~";
      state.lines.set(node, [generation, key]);
      seen.add(node);
    },
  });
  const FROM_CONTENT = new Set(["button", "link", "heading", "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab",
    "treeitem", "cell", "gridcell", "columnheader", "rowheader", "checkbox", "radio", "switch", "tooltip", "DisclosureTriangle"]);
  const elementOf = (node) =>
    !node ? null : node.nodeType === 1 || node.nodeType === 9 ? node : node.nodeType === 11 ? node.host ?? null : node.parentElement;
  // The outermost element within reach above (or at) the node whose name is its content: its name changed with it.
  const namedAbove = (element) => {
    let named = null;
    for (let up = element, level = 0; up && up.nodeType === 1 && level < ${NAME_LEVELS}; up = parentOf(up), level++) {
      if (FROM_CONTENT.has(read.roleOf(up))) named = up;
    }
    return named;
  };
  const found = new Set();
  const touch = (node, always) => {
    const element = elementOf(node);
    if (!element || !element.isConnected) return;
    const root = namedAbove(element) ?? (always ? element : null);
    if (root) found.add(root);
  };
  const removed = [];
  for (const record of records) {
    if (record.type === "childList") {
      touch(record.target, false);
      for (const node of record.addedNodes) {
        added.add(node);
        touch(node, true);
      }
      for (const node of record.removedNodes) removed.push([node, record.target]);
    } else touch(record.target, true);
  }
  for (const target of targets) touch(target, true);
  const inAnother = (node) => {
    for (let up = parentOf(node); up; up = parentOf(up)) if (found.has(up)) return true;
    return false;
  };
  const roots = records.length >= ${MAX_RECORDS} || found.size > ${MAX_ROOTS} ? [document] : [...found].filter((root) => !inAnother(root));
  for (const root of roots) {
    if (root.nodeType === 9) read.walkDocument(-1, root);
    else read.walk(-1, root, root.parentElement?.closest("select") != null);
  }
  const { nodes, truncated } = read.answer();
  const field = (at, offset) => nodes[at * 5 + offset];
  const isLifted = (at) => (field(at, 1) === "generic" || field(at, 1) === "none") && field(at, 2) === "";
  const changed = [];
  for (let at = 0; at < nodes.length / 5 && changed.length < maxEntries * 7; at++) {
    if (statuses[at] === "=") continue;
    let parent = field(at, 0);
    while (parent !== -1 && isLifted(parent)) parent = field(parent, 0);
    const [parentName, parentValue] = parent === -1 ? ["", null] : [field(parent, 2), field(parent, 3)];
    changed.push(statuses[at], field(at, 1), field(at, 2), field(at, 3), field(at, 4), parentName, parentValue);
  }
  const gone = [];
  const lineBefore = (node) => previous.get(node) ?? state.lines.get(node);
  const isShown = (node) => isValid(lineBefore(node)) && !/^(generic|none)\\u0001\\u0001/.test(lineBefore(node)[1]);
  const goneNode = (node, parent) => {
    const entry = state.lines.get(node);
    if (!isValid(entry) || seen.has(node)) return;
    previous.set(node, entry);
    state.lines.delete(node);
    if (gone.length >= maxEntries * 5) return;
    let above = parent;
    while (above && !isShown(above)) above = parentOf(above);
    const [role, name, value] = entry[1].split("\\u0001");
    gone.push(role, name, value === "" ? null : value, state.ids.get(node) ?? null, above ? lineBefore(above)[1] : "");
  };
  const goneUnder = (top, parent) => {
    const walker = (top.ownerDocument ?? top).createTreeWalker(top, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.currentNode, count = 0; node && count < maxNodes; node = walker.nextNode(), count++) {
      goneNode(node, node === top ? parent : node.parentNode);
    }
  };
  // A read cut short at maxNodes did not see the rest: it is not gone.
  if (!truncated) for (const root of roots) goneUnder(root, parentOf(root));
  for (const [node, parent] of removed) if (!node.isConnected) goneUnder(node, parent);
  const isCut = truncated || changed.length >= maxEntries * 7 || gone.length >= maxEntries * 5;
  return { ...answer, changed, gone, ...(isCut ? { truncated: true } : {}) };
}`;
