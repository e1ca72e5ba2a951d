import { normalizeFactKey } from "../../memory/facts.js";

/**
 * One fact a rule found. `rank` orders rival values of one single-valued key within a message
 * (the higher wins: "I live in Chennai" outranks "I am from Kolkata"); list keys (`likes.*`,
 * `dislikes.*`) keep every value.
 */
export interface Found {
  key: string;
  value: string;
  rank?: number;
}

/** A fact for one liked or disliked item; the key carries the item so that several coexist. */
export function itemFact(kind: "likes" | "dislikes", item: string): Found | undefined {
  const value = item.trim();
  const slug = normalizeFactKey(value);
  return slug ? { key: `${kind}.${slug}`, value } : undefined;
}

/**
 * The facts to keep from everything the rules found: one value per single-valued key (highest
 * rank, then first found), every liked and disliked item once, an item both liked and disliked
 * kept as the later statement. Order of first appearance is kept.
 */
export function mergeFound(found: readonly Found[]): { key: string; value: string }[] {
  const best = new Map<string, Found>();
  for (const fact of found) {
    const value = fact.value.trim();
    if (!value) continue;
    const current = best.get(fact.key);
    if (!current || (fact.rank ?? 0) > (current.rank ?? 0)) best.set(fact.key, { ...fact, value });
  }
  const items = new Map<string, string>();
  for (const key of best.keys()) {
    const match = /^(likes|dislikes)\.(.+)$/.exec(key);
    if (match?.[2]) items.set(match[2], key);
  }
  return [...best.values()]
    .filter((fact) => {
      const match = /^(likes|dislikes)\.(.+)$/.exec(fact.key);
      return !match?.[2] || items.get(match[2]) === fact.key;
    })
    .map((fact) => ({ key: fact.key, value: fact.value }));
}
