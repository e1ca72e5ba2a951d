import { recordIndexText } from "../../memory/ranking/document-text.js";

/**
 * Which text of a value is indexed (for full-text search and for its embedding). With `fields`,
 * the strings at those paths ("a.b", "list[*].c", "list[0]"; numbers and booleans as text);
 * without, when the value has a string `text` field, `recordIndexText` (the text with its
 * `speaker` and the date of its `createdAt`), else every string inside the value.
 * Parts are joined by newlines; the result may be empty.
 */
export function indexTextOf(value: Record<string, unknown>, fields: readonly string[] | undefined): string {
  if (fields && fields.length > 0) return fields.flatMap((path) => textsAt(value, path)).join("\n");
  return recordIndexText(value) ?? allStrings(value).join("\n");
}

function allStrings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(allStrings);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(allStrings);
  return [];
}

function textsAt(root: unknown, path: string): string[] {
  let current: unknown[] = [root];
  for (const segment of path.split(".")) {
    const match = /^([^[\]]*)((?:\[(?:\*|-?\d+)\])*)$/.exec(segment);
    if (!match) return [];
    const name = match[1] ?? "";
    const indexes = [...(match[2] ?? "").matchAll(/\[(\*|-?\d+)\]/g)].map((m) => m[1] ?? "*");
    current = current.flatMap((node) => (name === "" ? [node] : childOf(node, name)));
    for (const index of indexes) current = current.flatMap((node) => elementsOf(node, index));
  }
  return current.flatMap((node) => {
    if (typeof node === "string") return [node];
    if (typeof node === "number" || typeof node === "boolean") return [String(node)];
    return node === null || node === undefined ? [] : allStrings(node);
  });
}

function childOf(node: unknown, name: string): unknown[] {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return [];
  const child = (node as Record<string, unknown>)[name];
  return child === undefined ? [] : [child];
}

function elementsOf(node: unknown, index: string): unknown[] {
  if (!Array.isArray(node)) return [];
  if (index === "*") return node;
  const i = Number(index);
  const element: unknown = node[i < 0 ? node.length + i : i];
  return element === undefined ? [] : [element];
}
