import type http from "node:http";
import { serveOnLoopback, type LoopbackSite } from "./loopback-server.js";

/** The product the agent task looks for among the 40. */
export const WANTED_PRODUCT = "Blue Teapot";

const MENU = [
  "Home",
  "New in",
  "Kitchen",
  "Tea",
  "Coffee",
  "Tableware",
  "Glassware",
  "Cookware",
  "Bakeware",
  "Knives",
  "Storage",
  "Linen",
  "Lighting",
  "Furniture",
  "Garden",
  "Outdoor",
  "Bath",
  "Bedroom",
  "Office",
  "Kids",
  "Gifts",
  "Brands",
  "Offers",
  "Outlet",
  "Gift cards",
  "Journal",
  "Stores",
  "Help",
  "Delivery",
  "Returns",
];
const COLOURS = ["Blue", "Red", "Green", "Grey", "White", "Black", "Yellow", "Pink"];
const THINGS = ["Mug", "Bowl", "Jug", "Teapot", "Plate"];

/** The 40 products: a name, a price and a paragraph of a few sentences. */
function products(): { name: string; price: string; about: string }[] {
  return Array.from({ length: 40 }, (_, i) => {
    const name = `${COLOURS[i % COLOURS.length]} ${THINGS[Math.floor(i / COLOURS.length)]}`;
    const price = `$${12 + ((i * 7) % 30)}.00`;
    const about = `A ${name.toLowerCase()} made of glazed stoneware in a small workshop, fired twice and finished by hand. Safe in the dishwasher; each piece differs a little in its colour.`;
    return { name, price, about };
  });
}

function page(title: string, body: string, cart = 0): string {
  const menu = MENU.map((item, i) => `<li><a href="/c/${i}">${item}</a></li>`).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title} - Teahouse</title></head><body>
<header><a href="/products">Teahouse</a><nav aria-label="Shop"><ul>${menu}</ul></nav><a id="cart" href="/checkout">Cart (${cart})</a></header>
<main>${body}</main>
<footer><ul><li><a href="/about">About us</a></li><li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms</a></li><li><a href="/contact">Contact</a></li></ul>
<p>© 2026 Teahouse. Prices include tax.</p></footer></body></html>`;
}

function signInPage(): string {
  return page(
    "Sign in",
    `<h1>Sign in</h1><form method="post" action="/signin">
<label>Email <input type="email" name="email" required></label>
<label>Password <input type="password" name="password" required></label>
<button>Sign in</button></form><p>New here? <a href="/register">Create an account</a></p>`,
  );
}

function productsPage(): string {
  const items = products()
    .map(
      ({ name, price, about }) =>
        `<li><h2>${name}</h2><p>${about}</p><p>${price}</p><button type="button" data-name="${name}">Add to cart</button></li>`,
    )
    .join("");
  // Adding shows a note and a "Check out" link that were not there: the element that appears after the action.
  const script = `<script>
document.querySelectorAll("button[data-name]").forEach((button) => button.addEventListener("click", () => {
  document.cookie = "cart=" + encodeURIComponent(button.dataset.name) + "; path=/";
  document.getElementById("cart").textContent = "Cart (1)";
  const note = document.getElementById("added");
  note.innerHTML = 'Added ' + button.dataset.name + ' to your cart. <a href="/checkout">Check out</a>';
  note.hidden = false;
}));
</script>`;
  return page("Products", `<h1>Products</h1><p id="added" role="status" hidden></p><ul>${items}</ul>${script}`);
}

function checkoutPage(item: string): string {
  const price = products().find((product) => product.name === item)?.price ?? "$0.00";
  return page(
    "Check out",
    `<h1>Check out</h1><p>Your order: ${item}, ${price}, delivered in 3 days.</p>
<form method="post" action="/confirm"><button>Confirm order</button></form>`,
    1,
  );
}

function confirmedPage(): string {
  // Its title does not say it: the agent reads the page to see that the order went through.
  return page("Thank you", `<h1>Order confirmed</h1><p>Thank you. We will email you when it ships.</p>`);
}

function cookieOf(request: http.IncomingMessage, name: string): string | undefined {
  const pair = (request.headers.cookie ?? "").split("; ").find((each) => each.startsWith(`${name}=`));
  return pair === undefined ? undefined : decodeURIComponent(pair.slice(name.length + 1));
}

function route(request: http.IncomingMessage): { status: number; html?: string; headers?: Record<string, string> } {
  const path = new URL(request.url ?? "/", "http://shop").pathname;
  const signedIn = cookieOf(request, "session") === "1";
  if (request.method === "POST" && path === "/signin")
    return { status: 303, headers: { location: "/products", "set-cookie": "session=1; path=/" } };
  if (request.method === "POST" && path === "/confirm") return { status: 303, headers: { location: "/confirmed" } };
  if (path === "/") return { status: 200, html: signInPage() };
  if (!signedIn) return { status: 303, headers: { location: "/" } };
  if (path === "/products") return { status: 200, html: productsPage() };
  if (path === "/checkout") return { status: 200, html: checkoutPage(cookieOf(request, "cart") ?? "nothing") };
  if (path === "/confirmed") return { status: 200, html: confirmedPage() };
  return { status: 404, html: page("Not found", "<h1>Not found</h1>") };
}

/**
 * A small shop on a free loopback port: a sign-in form (any email and password), 40 products each with a paragraph
 * under a 30-link header, an "Add to cart" that shows a note with a "Check out" link, a check-out page and a confirmed
 * order. A visit starts signed out: each agent signs in on its own (its own browser context, or the cookie cleared).
 */
export function serveShop(): Promise<LoopbackSite> {
  return serveOnLoopback((request, response) => {
    request.resume();
    request.on("end", () => {
      const { status, html, headers = {} } = route(request);
      response.writeHead(status, { ...headers, ...(html === undefined ? {} : { "content-type": "text/html; charset=utf-8" }) });
      response.end(html);
    });
  });
}
