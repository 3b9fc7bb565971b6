/// <reference lib="dom" />
// The share page's script (page.ts), the picture's part: the server's SVG parsed and made inert,
// cropped to its stage drawing once it is in the page, and the hint when it is wider than its box.
//
// page.ts inlines `pagePicture` by its source text (`(${pagePicture})()`) and hands what it
// returns to `pageMain` (page-script.ts): its body may use only the browser's globals and its own
// locals, never an import or anything else of this module.

/** What `pagePicture` gives the page's script. */
export type PagePicture = ReturnType<typeof pagePicture>;

/** The picture's helpers; self-contained (inlined in the page by its source text). */
export function pagePicture() {
  // Strips anything active from the server's SVG (it has none; a page must not trust that).
  // Only what a drawing needs survives: SVG elements, no link, script or foreign content (an API
  // named by viewer.html's ?api= may be anyone's), no event or reference attribute.
  const SVG_NS = "http://www.w3.org/2000/svg";
  const DRAWING =
    /^(svg|g|rect|line|path|polyline|polygon|circle|ellipse|text|tspan|title|desc|defs|style|lineargradient|stop|clippath|use)$/i;
  function inert(root: Element): void {
    root.querySelectorAll("a").forEach((el) => el.replaceWith(...Array.from(el.childNodes)));
    Array.from(root.querySelectorAll("*")).forEach((el) => {
      if (el.namespaceURI !== SVG_NS || !DRAWING.test(el.localName)) el.remove();
    });
    [root].concat(Array.from(root.querySelectorAll("*"))).forEach((el) => {
      Array.from(el.attributes).forEach((a) => {
        const name = a.name.toLowerCase();
        if (name.indexOf("on") === 0 || ((name === "href" || name === "xlink:href" || name === "src") && a.value.charAt(0) !== "#")) {
          el.removeAttribute(a.name);
        }
      });
    });
    root.querySelectorAll("style").forEach((s) => {
      s.textContent = (s.textContent || "").replace(/@import[^;]*;?/gi, "").replace(/url\(\s*(?!['"]?#)[^)]*\)/gi, "none");
    });
  }

  // The picture's own header repeats what the page's header says: drop it and crop the picture
  // to its stage drawing (the PNG for chat apps keeps it).
  function cropHeader(svg: SVGSVGElement): void {
    const header = svg.querySelector(":scope > g.header"), body = svg.querySelector<SVGGElement>(":scope > g.stage");
    if (!header || !body || header.querySelector(".clipped")) return;
    const size = svg.viewBox.baseVal, box = body.getBBox();
    if (!size || !size.width || !(box.width > 0)) return;
    header.remove();
    const top = Math.max(0, Math.floor(box.y) - 12);
    const width = Math.min(size.width, Math.ceil(box.x + box.width) + Math.max(0, Math.floor(box.x)));
    const height = size.height - top;
    svg.setAttribute("viewBox", [size.x, top, width, height].join(" "));
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(height));
  }

  /** The SVG `text` as a node of this document, inert and without its tooltip; null when it is no SVG. */
  function parse(text: string): SVGSVGElement | null {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = doc.documentElement;
    if (root.localName !== "svg" || doc.getElementsByTagName("parsererror").length) return null;
    inert(root);
    const node = document.importNode(root, true) as Element as SVGSVGElement;
    const title = node.querySelector(":scope > title");
    if (title) title.remove(); // a tooltip over the whole picture; the label below says it
    return node;
  }

  function overflowHint(): void {
    const box = document.getElementById("p-bracket") as HTMLElement;
    const wide = !!box.querySelector("svg") && box.scrollWidth > box.clientWidth + 1;
    (document.getElementById("p-hint") as HTMLElement).hidden = !wide;
    const frame = document.getElementById("p-frame") as HTMLElement;
    if (wide && box.scrollLeft + box.clientWidth < box.scrollWidth - 1) frame.setAttribute("data-more", "");
    else frame.removeAttribute("data-more");
  }

  return { parse, cropHeader, overflowHint };
}
