// Message bodies built as they near the viewport: opening or scrolling into a page of 200
// messages builds the few a reader can see (and a screen either side), not all 200; the others
// hold their estimated height until they come near. Anything that needs a message's content
// (landing on it, find's marks) builds it first with `build`.

/** How far beyond the view, above and below, bodies are built: half a screen. */
const MARGIN = 0.5;

export class DeferredBodies {
  private readonly pending = new Map<Element, () => void>();
  /** None where the page has no IntersectionObserver (jsdom): every body is built at once. */
  private readonly seen: IntersectionObserver | undefined;

  /** onBuilt: after an entry's body is built. */
  constructor(private readonly onBuilt: (entry: HTMLElement) => void) {
    if (typeof IntersectionObserver === "undefined") return;
    this.seen = new IntersectionObserver(
      (changes) => {
        for (const c of changes) if (c.isIntersecting) this.build(c.target as HTMLElement);
      },
      // the page's own viewport as the root: with none, a webview (a cross-origin iframe in
      // VS Code) is measured against the window's, and the margin is ignored there
      { root: document, rootMargin: `${MARGIN * 100}% 0px` },
    );
  }

  /** Build now every body within the margin of the view: what the observer would find over
   * the next frames (each body built moves the ones after it), found in a few measured
   * rounds before the first frame paints. `ordered`: the entries top to bottom, so that the
   * first near one is found by bisection, not by measuring all of them (thousands, once a
   * reader has scrolled through a few pages). */
  settle(ordered: readonly HTMLElement[], rounds = 3): void {
    const view = window.innerHeight;
    const above = -MARGIN * view;
    const below = (1 + MARGIN) * view;
    for (let i = 0; i < rounds; i++) {
      let lo = 0;
      let hi = ordered.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((ordered[mid]?.getBoundingClientRect().bottom ?? 0) > above) hi = mid;
        else lo = mid + 1;
      }
      const near: HTMLElement[] = [];
      for (let k = lo; k < ordered.length; k++) {
        const e = ordered[k];
        if (!e) break;
        const r = e.getBoundingClientRect();
        if (r.top >= below) break;
        // a hidden entry (find's only-matching) measures 0 and can stop the bisection early
        if (r.bottom > above && this.pending.has(e)) near.push(e);
      }
      if (near.length === 0) return;
      for (const e of near) this.build(e);
    }
  }

  add(entry: HTMLElement, build: () => void): void {
    this.pending.set(entry, build);
    if (this.seen) this.seen.observe(entry);
    else this.build(entry);
  }

  /** Build the entry's body now, if it is not yet. */
  build(entry: HTMLElement): void {
    const build = this.pending.get(entry);
    if (!build) return;
    this.pending.delete(entry);
    this.seen?.unobserve(entry);
    build();
    this.onBuilt(entry);
  }

  /** An entry taken off the page: no longer built. */
  forget(entry: Element): void {
    if (this.pending.delete(entry)) this.seen?.unobserve(entry);
  }

  clear(): void {
    for (const entry of this.pending.keys()) this.seen?.unobserve(entry);
    this.pending.clear();
  }
}
