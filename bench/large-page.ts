import { serveOnLoopback, type LoopbackSite } from "./loopback-server.js";

/** A generated page of about 5,000 elements: a navigation, 60 forms (label, input, select, checkbox, button) and 40 tables. */
export function largePageHtml(): string {
  const links = Array.from({ length: 100 }, (_, i) => `<li><a href="#s${i}">Section ${i}</a></li>`).join("");
  const forms = Array.from(
    { length: 60 },
    (_, i) => `<form id="f${i}"><h2>Form ${i}</h2><label>Name ${i} <input name="n${i}"></label>
<label>Plan <select name="p${i}"><option>Free</option><option>Pro</option><option>Team</option></select></label>
<label><input type="checkbox" name="c${i}"> Agree ${i}</label><p>Some help text for form ${i}, long enough to be a sentence.</p>
<button type="button">Save ${i}</button></form>`,
  ).join("");
  const tables = Array.from({ length: 40 }, (_, t) => {
    const rows = Array.from(
      { length: 10 },
      (_, r) =>
        `<tr>${Array.from({ length: 5 }, (_, c) => `<td>Cell ${t}.${r}.${c}</td>`).join("")}<td><a href="#r${t}-${r}">Open</a></td></tr>`,
    ).join("");
    return `<h2 id="s${t}">Table ${t}</h2><table><thead><tr><th>A</th><th>B</th><th>C</th><th>D</th><th>E</th><th>Link</th></tr></thead><tbody>${rows}</tbody></table>`;
  }).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>Large page</title></head><body><nav><ul>${links}</ul></nav><main>${forms}${tables}</main>
<button id="target">Click target</button><p id="clicks">0</p>
<script>let n = 0; document.getElementById("target").addEventListener("click", () => { document.getElementById("clicks").textContent = String(++n); });</script>
</body></html>`;
}

/**
 * A generated page of about 2,900 elements as sites of text are made: a header with a logo link, a menu of 8 x 6
 * links and a search form, a side list of 60 links, 85 articles (a heading that is a link, a byline, a paragraph with
 * a link and strong words, a list, two buttons and a link, each in a few wrapping divs and spans) and a footer.
 */
export function articlePageHtml(): string {
  const menu = Array.from(
    { length: 8 },
    (_, i) =>
      `<li><a href="/m${i}"><span class="icon"></span><span>Menu ${i}</span></a><ul>${Array.from({ length: 6 }, (_, j) => `<li><a href="/m${i}/${j}">Sub item ${i}.${j}</a></li>`).join("")}</ul></li>`,
  ).join("");
  const side = Array.from({ length: 60 }, (_, i) => `<li><div><a href="#a${i}"><span>Article ${i}</span></a></div></li>`).join("");
  const articles = Array.from(
    { length: 85 },
    (
      _,
      a,
    ) => `<article id="a${a}"><div class="card"><div class="card-head"><h2><a href="#a${a}">Article ${a}: <em>how</em> things work</a></h2>
<div class="meta"><span>By <a href="/u${a}">Author ${a}</a></span> <time>2026-01-${(a % 28) + 1}</time></div></div>
<div class="card-body"><p>This is the first paragraph of article ${a}, with a <a href="/l${a}">link inside</a> and some <strong>strong words</strong> to read.</p>
<p>Second paragraph ${a} goes on about the topic at some length so that it reads like prose.</p>
<ul><li>Point one of ${a}</li><li>Point two with <code>code()</code></li><li><a href="/p${a}">Point three link</a></li></ul></div>
<div class="card-foot"><button type="button"><span class="icon"></span><span>Like</span></button><button type="button" aria-label="Share article ${a}"><span class="icon"></span></button><a class="btn" href="/r${a}"><span>Read more</span></a></div></div></article>`,
  ).join("");
  const footer = Array.from(
    { length: 4 },
    (_, i) =>
      `<div><h3>Footer ${i}</h3><ul>${Array.from({ length: 8 }, (_, j) => `<li><a href="/f${i}/${j}">Footer link ${i}.${j}</a></li>`).join("")}</ul></div>`,
  ).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>Articles</title></head><body>
<header><a href="/"><img src="data:," alt="Acme"> <span>Acme Docs</span></a><nav aria-label="Main"><ul>${menu}</ul></nav>
<form role="search"><input type="search" aria-label="Search"><button><svg width="10" height="10"></svg><span>Search</span></button></form></header>
<div class="layout"><aside><div><div><ul>${side}</ul></div></div></aside><main>${articles}</main></div>
<footer><div><div>${footer}</div><p>© 2026 Acme</p></div></footer></body></html>`;
}

/** Serves the large page on a free loopback port. */
export function serveLargePage(): Promise<LoopbackSite> {
  return servePage(largePageHtml(), "large.html");
}

/** Serves the article page on a free loopback port. */
export function serveArticlePage(): Promise<LoopbackSite> {
  return servePage(articlePageHtml(), "articles.html");
}

function servePage(html: string, name: string): Promise<LoopbackSite> {
  return serveOnLoopback((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  }, name);
}
