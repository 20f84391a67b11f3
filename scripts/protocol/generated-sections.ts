/**
 * The parts of a hand-written page that `npm run gen` writes: each between `<!-- generated: NAME -->` and
 * `<!-- /generated: NAME -->`, everything around them left as it is.
 */
const SECTION = /<!-- generated: ([^>]+?) -->[\s\S]*?<!-- \/generated: \1 -->/g;
const OPENING = /<!-- generated: ([^>]+?) -->/g;

/** The page `text` of `file` with each generated section's content replaced by `sections[name]`. */
export function withSections(file: string, text: string, sections: Readonly<Record<string, string>>): string {
  const opened = [...text.matchAll(OPENING)].map((match) => match[1] ?? "");
  const closed = new Set([...text.matchAll(SECTION)].map((match) => match[1] ?? ""));
  const unclosed = opened.filter((name) => !closed.has(name));
  if (unclosed.length > 0) throw new Error(`${file}: no <!-- /generated: NAME --> closes ${unclosed.join(", ")}`);
  const unknown = opened.filter((name) => sections[name] === undefined);
  if (unknown.length > 0) throw new Error(`${file}: npm run gen writes no section named ${unknown.join(", ")}`);
  const missing = Object.keys(sections).filter((name) => !closed.has(name));
  if (missing.length > 0)
    throw new Error(
      `${file} has no place for ${missing.map((name) => `<!-- generated: ${name} -->...<!-- /generated: ${name} -->`).join(", ")}`,
    );
  return text.replace(SECTION, (_, name: string) => `<!-- generated: ${name} -->${sections[name]}<!-- /generated: ${name} -->`);
}
