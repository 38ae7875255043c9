// How tokens and cost read (shared by the Builders tree, the transcript header and the Usage
// page), the same figures `lazy show` and `lazy usage` print. Cost is in millionths of a
// dollar; a response whose model has no known price makes the cost "unknown" (or "+?" after
// the known part), never $0.
import type { Tokens, UsageInfo } from "../protocol";

/** 72.4k, 1.2M. */
export function tokensShort(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(1)}k`;
  return String(n);
}

/** $1.45; "unknown" when no response had a price; "+?" when some had none. */
export function money(t: Tokens): string {
  const cost = t.cost_micros ?? null;
  if (cost === null) return (t.responses ?? 0) > 0 ? "unknown" : "-";
  const dollars = cost / 1_000_000;
  const text = dollars >= 0.01 || dollars === 0 ? `$${dollars.toFixed(2)}` : `$${dollars.toFixed(4)}`;
  return text + ((t.unpriced ?? 0) > 0 ? "+?" : "");
}

/** The whole input a response (or a sum) was sent: cache reads and writes included. */
export function inputOf(t: Tokens): number {
  return (t.input ?? 0) + (t.cache_read ?? 0) + (t.cache_write ?? 0);
}

/** "12.1k in (10.9k cached) / 182 out": one message's tokens. */
export function tokensLine(t: Tokens): string {
  const cached = (t.cache_read ?? 0) > 0 ? ` (${tokensShort(t.cache_read ?? 0)} cached)` : "";
  return `${tokensShort(inputOf(t))} in${cached} / ${tokensShort(t.output ?? 0)} out`;
}

/** "72.4k ctx / 20.7k out · 36 turns · $1.45": a transcript's header, as AgentsView has it. */
export function usageSummary(u: UsageInfo): string {
  const t = u.total ?? {};
  const parts: string[] = [];
  const ctx = u.context ?? null;
  parts.push(`${ctx !== null ? `${tokensShort(ctx)} ctx / ` : ""}${tokensShort(t.output ?? 0)} out`);
  parts.push(`${t.responses ?? 0} turn${t.responses === 1 ? "" : "s"}`);
  parts.push(money(t));
  return parts.join(" · ");
}

/** The lines the Builders tree's tooltip adds (plain text). */
export function usageTooltip(u: UsageInfo | null | undefined): string[] {
  const t = u?.total;
  if (!u || !t || !(t.responses ?? 0)) return [];
  const lines = [
    `Tokens: ${tokensShort(inputOf(t))} in (${tokensShort(t.cache_read ?? 0)} cached), ${tokensShort(t.output ?? 0)} out, ${t.responses ?? 0} responses`,
    `Cost: ${money(t)}`,
  ];
  const subs = u.subagents;
  if (subs && (subs.responses ?? 0) > 0) lines.push(`Of it subagents: ${money(subs)}, ${tokensShort(subs.output ?? 0)} out`);
  if (u.prices) lines.push(`(${u.prices})`);
  return lines;
}
