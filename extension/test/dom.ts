// A real DOM for the webview's tests (jsdom), whose own document refuses markup: setting
// innerHTML, outerHTML or insertAdjacentHTML on any of its nodes throws, so a test fails if
// the renderer ever writes transcript text as HTML (DOMPurify parses in a document of its own).
import { JSDOM } from "jsdom";

export interface Page {
  dom: JSDOM;
  window: Window & typeof globalThis;
  document: Document;
  /** Elements scrollIntoView was called on, in order (jsdom has no layout). */
  scrolled: Element[];
}

export function page(body = ""): Page {
  const dom = new JSDOM(`<!DOCTYPE html><html><head></head><body>${body}</body></html>`, { pretendToBeVisual: true });
  const win = dom.window as unknown as Window & typeof globalThis;
  const doc = win.document;
  const scrolled: Element[] = [];
  const proto = win.Element.prototype as unknown as Record<string, unknown>;
  for (const name of ["innerHTML", "outerHTML"]) {
    const desc = Object.getOwnPropertyDescriptor(win.Element.prototype, name);
    Object.defineProperty(win.Element.prototype, name, {
      configurable: true,
      get(this: Element) {
        return desc?.get?.call(this) as unknown;
      },
      set(this: Element, v: string) {
        // (clearing is no markup: jsdom's window.close() empties the body so)
        if (this.ownerDocument === doc && v !== "") throw new Error(`${name} must never be set on the page`);
        desc?.set?.call(this, v);
      },
    });
  }
  const adjacent = proto.insertAdjacentHTML as (this: Element, ...a: unknown[]) => void;
  proto.insertAdjacentHTML = function (this: Element, ...a: unknown[]) {
    if (this.ownerDocument === doc) throw new Error("insertAdjacentHTML must never be used on the page");
    adjacent.apply(this, a);
  };
  proto.scrollIntoView = function (this: Element) {
    scrolled.push(this);
  };
  return { dom, window: win, document: doc, scrolled };
}

/** Every element under root (root included). */
export function all(root: Element): Element[] {
  return [root, ...Array.from(root.querySelectorAll("*"))];
}

/** The attributes the renderer may set: none that a browser acts on. */
export const SAFE_ATTRIBUTES = new Set([
  "class", "id", "title", "tabindex", "role", "aria-label", "aria-hidden", "type", "start",
  "data-number", "data-absorbed", "data-href", "data-file", "data-line", "data-tool", "data-session",
  "data-action", "data-part", "data-start", "data-range", "open",
]);
