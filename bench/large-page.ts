import http from "node:http";
import type { AddressInfo } from "node:net";

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

/** Serves the large page on a free loopback port. */
export async function serveLargePage(): Promise<{ url: string; close: () => Promise<void> }> {
  const html = largePageHtml();
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  // A socket Chrome opened ahead of a request it never sent (a preconnect) is not idle to Node, so close() would wait on it.
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${port}/large.html`, close };
}
