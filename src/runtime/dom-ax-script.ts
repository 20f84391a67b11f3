/** How many ids the page script holds before it first drops those of nodes the page let go. */
const PRUNE_IDS_AT = 10_000;

/**
 * The state the hub's page scripts keep in their world, one per document: the id of each node read (a WeakMap, so ids
 * stay the same from one read to the next) and each id's node (held weakly) for refs to resolve; the line each node
 * had when last read (`[generation, key]`, valid from the latest whole read's generation on) for what an action
 * changed; the shadow roots and same-origin documents read, watched during actions; and the running action's watch.
 */
export const DOM_AX_STATE = `(globalThis.__tabwire ??= {
  ids: new WeakMap(), next: 1, byId: new Map(), lines: new WeakMap(), readGeneration: 0, generation: 0, roots: new Set(), watch: null,
})`;

/**
 * The reader the page scripts share, reading the accessibility tree straight from the DOM with roles and names computed
 * as HTML-AAM and accname say, in the vocabulary of Chrome's own tree (`RootWebArea`, `StaticText`, `LabelText`,
 * `Iframe`, `image`, ARIA roles otherwise), so both sources read alike. `(DOM_AX_READER)(state, {wantBoxes, maxNodes,
 * onPush})` answers `{walk, walkDocument, roleOf, answer}`: `walk(parent, node, inSelect)` reads a node's subtree
 * (parent -1 for none), `walkDocument(parent, doc)` a document, `answer()` what they read (see READ_DOM_AX);
 * `onPush(node, key, index)` is told of each node read with its line's key (role, name and value).
 */
export const DOM_AX_READER = `function (state, options) {
  const { wantBoxes, maxNodes, onPush } = options;
  const nodes = [];
  const boxes = [];
  const frames = [];
  const LANDMARK_PARENTS = "article, aside, main, nav, section";
  const INPUT_ROLES = { button: "button", submit: "button", reset: "button", image: "button", file: "button", color: "button",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox" };
  const TAG_ROLES = { ARTICLE: "article", ASIDE: "complementary", BLOCKQUOTE: "blockquote", BUTTON: "button", CAPTION: "caption",
    CODE: "code", DATALIST: "listbox", DD: "definition", DEL: "deletion", DETAILS: "group", DFN: "term", DIALOG: "dialog",
    DL: "list", DT: "term", EM: "emphasis", FIELDSET: "group", FIGURE: "figure", FORM: "form", H1: "heading", H2: "heading",
    H3: "heading", H4: "heading", H5: "heading", H6: "heading", HR: "separator", INS: "insertion", LABEL: "LabelText", LEGEND: "Legend",
    LI: "listitem", MAIN: "main", MARK: "mark", MATH: "math", MENU: "list", METER: "meter", NAV: "navigation", OL: "list",
    OPTGROUP: "group", OPTION: "option", OUTPUT: "status", P: "paragraph", PROGRESS: "progressbar", SEARCH: "search",
    STRONG: "strong", SUB: "subscript", SUMMARY: "DisclosureTriangle", SUP: "superscript", TABLE: "table",
    TEXTAREA: "textbox", TFOOT: "rowgroup", THEAD: "rowgroup", TIME: "time", TR: "row", UL: "list", IFRAME: "Iframe",
    FRAME: "Iframe", VIDEO: "Video", AUDIO: "Audio", CANVAS: "Canvas" };
  const SKIPPED = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "BASE"]);
  const FROM_CONTENT = new Set(["button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "rowheader", "switch", "tab", "tooltip", "treeitem",
    "DisclosureTriangle"]);
  const squash = (text) => text.replace(/\\s+/g, " ").trim();
  const idOf = (node) => {
    let id = state.ids.get(node);
    if (id === undefined) {
      state.ids.set(node, (id = state.next++));
      state.byId.set(id, new WeakRef(node));
      // Ids of nodes the page let go are dropped as the map doubles, not at every read: a walk over every id costs a
      // large page's snapshot a quarter of its time.
      if (state.byId.size > (state.pruneAt ?? 0)) {
        for (const [each, held] of state.byId) if (held.deref() === undefined) state.byId.delete(each);
        state.pruneAt = Math.max(${PRUNE_IDS_AT}, state.byId.size * 2);
      }
    }
    return id;
  };
  const roleOf = (el) => {
    const explicit = el.getAttribute("role");
    if (explicit) {
      const first = explicit.trim().split(/\\s+/)[0];
      if (first === "presentation" || first === "none") return "none";
      if (first) return first === "img" ? "image" : first;
    }
    const tag = el.tagName;
    switch (tag) {
      case "A": case "AREA": return el.hasAttribute("href") ? "link" : "generic";
      case "IMG": return el.getAttribute("alt") === "" ? "none" : "image";
      case "INPUT": {
        if (el.type === "hidden") return null;
        if (el.type === "text" || el.type === "email" || el.type === "tel" || el.type === "url" || el.type === "search") {
          if (el.hasAttribute("list")) return "combobox";
        }
        return INPUT_ROLES[el.type] ?? "textbox";
      }
      case "SELECT": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "TD": return el.closest("table")?.getAttribute("role") === "grid" ? "gridcell" : "cell";
      case "TH": return el.scope === "row" ? "rowheader" : "columnheader";
      case "HEADER": return el.parentElement?.closest(LANDMARK_PARENTS) ? "generic" : "banner";
      case "FOOTER": return el.parentElement?.closest(LANDMARK_PARENTS) ? "generic" : "contentinfo";
      case "SECTION": return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "generic";
      case "svg": return "image";
      default: return TAG_ROLES[tag] ?? (el.isContentEditable && !el.parentElement?.isContentEditable ? "textbox" : "generic");
    }
  };
  const isHidden = (el, inSelect) => {
    if (el.hidden || el.getAttribute("aria-hidden") === "true") return true;
    if (inSelect || el.checkVisibility({ visibilityProperty: true })) return false;
    return getComputedStyle(el).display !== "contents";
  };
  // The text a user sees of an element's content, for a name from content: text, alt of images, values of fields
  // (the field being named, \`except\`, left out).
  const contentText = (el, depth, except) => {
    let text = "";
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) text += child.data;
      else if (child.nodeType === 1 && child !== except && depth < 20 && !SKIPPED.has(child.tagName) && !isHidden(child, false)) {
        const label = child.getAttribute("aria-label");
        if (label) text += " " + label + " ";
        else if (child.tagName === "IMG") text += " " + (child.getAttribute("alt") ?? "") + " ";
        else if (child.tagName === "INPUT" || child.tagName === "TEXTAREA") text += " " + child.value + " ";
        else if (child.tagName === "SELECT") text += " " + (child.selectedOptions[0]?.text ?? "") + " ";
        else {
          const display = getComputedStyle(child).display;
          const block = display !== "inline" && display !== "contents";
          text += (block ? " " : "") + contentText(child.shadowRoot ?? child, depth + 1, except) + (block ? " " : "");
        }
      }
    }
    return text;
  };
  const byIds = (el, attribute) => {
    const ids = el.getAttribute(attribute);
    if (!ids) return null;
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.trim().split(/\\s+/)) {
      const target = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
      if (target) parts.push(target.getAttribute("aria-label") || squash(contentText(target, 0)));
    }
    return squash(parts.join(" "));
  };
  // A control's labels, in tree order, from one pass over the labels of its tree (the document or a shadow root) per
  // read: \`el.labels\` walks the whole tree for each control the first time after any change to the page (the 240
  // controls of the bench's 5,000-element page: 24 ms, most of a first read's extra time).
  const labelsByRoot = new Map();
  const labelsOf = (el) => {
    const root = el.getRootNode();
    let byControl = labelsByRoot.get(root);
    if (!byControl) {
      labelsByRoot.set(root, (byControl = new Map()));
      for (const label of root.querySelectorAll("label")) {
        const control = label.control;
        if (!control) continue;
        const list = byControl.get(control);
        if (list) list.push(label);
        else byControl.set(control, [label]);
      }
    }
    return byControl.get(el) ?? [];
  };
  const nameOf = (el, role) => {
    const labelled = byIds(el, "aria-labelledby");
    if (labelled) return labelled;
    const label = el.getAttribute("aria-label");
    if (label && label.trim()) return squash(label);
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || tag === "METER" || tag === "PROGRESS" || tag === "OUTPUT") {
      if (tag === "INPUT" && (el.type === "button" || el.type === "submit" || el.type === "reset")) {
        return el.value || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : "");
      }
      if (tag === "INPUT" && el.type === "image") return el.alt || el.value || "Submit";
      if (tag === "INPUT" && el.type === "file" && labelsOf(el).length === 0) return el.multiple ? "Choose Files" : "Choose File";
      const labels = labelsOf(el).map((each) => squash(contentText(each, 0, el))).filter(Boolean);
      if (labels.length) return labels.join(" ");
      return squash(el.title || el.getAttribute("placeholder") || "");
    }
    if (tag === "IMG" || tag === "AREA") return squash(el.getAttribute("alt") ?? el.title ?? "");
    if (tag === "FIELDSET") {
      const legend = el.querySelector(":scope > legend");
      if (legend) return squash(contentText(legend, 0));
    }
    if (tag === "TABLE" && el.caption) return squash(contentText(el.caption, 0));
    if (tag === "FIGURE") {
      const caption = el.querySelector(":scope > figcaption");
      if (caption) return squash(contentText(caption, 0));
    }
    if (tag === "IFRAME" || tag === "FRAME") return squash(el.title || "");
    if (tag === "svg") return squash(el.querySelector(":scope > title")?.textContent ?? "");
    if (FROM_CONTENT.has(role)) {
      const text = squash(contentText(el.shadowRoot ?? el, 0));
      if (text) return text;
    }
    return squash(el.title || "");
  };
  const valueOf = (el, role) => {
    const tag = el.tagName;
    if (tag === "INPUT") {
      if (el.type === "file") return el.files.length === 0 ? "No file chosen" : el.files.length === 1 ? el.files[0].name : el.files.length + " files";
      if (role === "checkbox" || role === "radio" || role === "button") return null;
      if (role === "slider" || role === "spinbutton") return el.value === "" ? null : Number(el.value);
      return el.type === "password" ? (el.value ? "•".repeat(el.value.length) : null) : el.value || null;
    }
    if (tag === "TEXTAREA") return el.value || null;
    if (tag === "SELECT") return el.selectedOptions[0] ? squash(el.selectedOptions[0].text) : null;
    if (tag === "PROGRESS" || tag === "METER") return el.value;
    if (role === "textbox" && el.isContentEditable) return squash(el.innerText) || null;
    return null;
  };
  const frameOrigin = (doc) => {
    let x = 0, y = 0;
    for (let frame = doc.defaultView.frameElement; frame; frame = frame.ownerDocument.defaultView.frameElement) {
      const box = frame.getBoundingClientRect(), style = getComputedStyle(frame);
      x += box.left + frame.clientLeft + parseFloat(style.paddingLeft);
      y += box.top + frame.clientTop + parseFloat(style.paddingTop);
    }
    return { x, y };
  };
  const push = (parent, role, name, value, node) => {
    const index = nodes.length / 5;
    nodes.push(parent, role, name, value, idOf(node));
    if (onPush) onPush(node, role + "\\u0001" + name + "\\u0001" + (value ?? ""), index);
    if (wantBoxes) {
      if (node.nodeType === 1) {
        const box = node.getBoundingClientRect(), origin = frameOrigin(node.ownerDocument);
        boxes.push(box.left + origin.x, box.top + origin.y, box.width, box.height);
      } else boxes.push(0, 0, 0, 0);
    }
    return index;
  };
  const walkChildren = (parent, container, inSelect) => {
    for (let child = container.firstChild; child; child = child.nextSibling) walk(parent, child, inSelect);
  };
  const walkDocument = (parent, doc) => {
    if (doc !== document) state.roots.add(doc);
    const root = push(parent, "RootWebArea", squash(doc.title), null, doc);
    if (doc.body) walkChildren(root, doc.body, false);
  };
  let truncated = false;
  const walk = (parent, node, inSelect) => {
    // Past the cap the rest of the page is left out: a page of a million elements answers a bounded read.
    if (nodes.length >= maxNodes * 5) {
      truncated = true;
      return;
    }
    if (node.nodeType === 3) {
      const text = squash(node.data);
      if (text) push(parent, "StaticText", text, null, node);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    if (el.tagName === "SLOT") {
      const assigned = el.assignedNodes({ flatten: true });
      if (assigned.length) for (const each of assigned) walk(parent, each, inSelect);
      else walkChildren(parent, el, inSelect);
      return;
    }
    if (SKIPPED.has(el.tagName) || isHidden(el, inSelect)) return;
    // A label around its own checkbox or radio only repeats the control's name: the control alone stands, as in Chrome's tree.
    if (el.tagName === "LABEL" && el.control && el.contains(el.control) && (el.control.type === "checkbox" || el.control.type === "radio")) {
      walk(parent, el.control, inSelect);
      return;
    }
    const role = roleOf(el);
    if (role === null) return;
    const here = role === "none" ? parent : push(parent, role, nameOf(el, role), valueOf(el, role), el);
    if (role === "Iframe") {
      let doc = null;
      try { doc = el.contentDocument; } catch {}
      if (doc && doc.documentElement) walkDocument(here, doc);
      else frames.push(nodes[here * 5 + 4]);
      return;
    }
    if (el.tagName === "TEXTAREA" || el.tagName === "INPUT") return;
    if (el.shadowRoot) state.roots.add(el.shadowRoot);
    walkChildren(here, el.shadowRoot ?? el, inSelect || el.tagName === "SELECT");
  };
  return { walk, walkDocument, roleOf, answer: () => ({ nodes, boxes, frames, truncated }) };
}`;

/**
 * Reads the world's document whole: `(READ_WHOLE)(state, wantBoxes, maxNodes)` answers what the reader read, and keeps
 * each node's line as of this read and the shadow roots and documents it went into. The reader is the world's
 * (`state.scripts.reader`, see world-scripts.ts).
 */
export const READ_WHOLE = `function (state, wantBoxes, maxNodes) {
  const generation = (state.readGeneration = ++state.generation);
  state.roots = new Set();
  const onPush = (node, key) => state.lines.set(node, [generation, key]);
  const reader = state.scripts.reader(state, { wantBoxes, maxNodes, onPush });
  reader.walkDocument(-1, document);
  return reader.answer();
}`;

/**
 * The page script of `snapshot` with `source: "dom"`: reads one document whole, in an isolated world of the hub's (page
 * scripts cannot see or change it). Called as `(READ_DOM_AX)(boxes, maxNodes)`, it answers `{nodes, boxes, frames,
 * truncated}` as JSON text: `nodes` flat, five entries per node (parent index or -1, role, name, value or null, node
 * id), parents before children; `boxes` four numbers per node when asked (its border box in the viewport of the
 * world's top document, zeros for text); `frames` the node ids of the iframes whose document it could not reach
 * (another origin: the hub reads them on their own). As text, because Chrome hands on one string in a fraction of the
 * time it takes to copy 40,000 values one by one (the bench's 5,000-element page: 26 against 33 ms a read).
 */
export const READ_DOM_AX = `function (wantBoxes, maxNodes) {
  return JSON.stringify((${READ_WHOLE})(${DOM_AX_STATE}, wantBoxes, maxNodes));
}`;

/** Runs in the same world: the node of a read's id, or undefined when the page let it go. */
export const NODE_OF_ID = "(id) => globalThis.__tabwire?.byId.get(id)?.deref()";
