/** Import cycles between files, for scripts/check-architecture.ts. */

/** One import between two project files (the part of an import edge cycles need). */
export interface FileEdge {
  from: string;
  to: string;
}

/**
 * Import cycles between files. For each strongly connected component, every import inside it
 * closes one shortest cycle; the distinct cycles are returned, each rotated to start at its
 * smallest file and written back to that file (`a → b → a`).
 */
export function findCycles(edges: FileEdge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!graph.has(from)) graph.set(from, new Set());
    if (!graph.has(to)) graph.set(to, new Set());
    graph.get(from)?.add(to);
  }
  const cycles = new Map<string, string[]>();
  for (const component of stronglyConnected(graph)) {
    const members = new Set(component);
    const single = component[0];
    if (component.length === 1 && single !== undefined && !graph.get(single)?.has(single)) continue;
    for (const from of component) {
      for (const to of graph.get(from) ?? []) {
        if (!members.has(to)) continue;
        const back = shortestPath(graph, members, to, from);
        if (back === null) continue;
        const loop = [from, ...back.slice(0, -1)];
        const start = loop.indexOf([...loop].sort()[0] ?? from);
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        const key = rotated.join("\u0000");
        if (!cycles.has(key)) cycles.set(key, [...rotated, rotated[0] ?? from]);
      }
    }
  }
  return [...cycles.values()].sort((a, b) => a.join(" ").localeCompare(b.join(" ")));
}

function stronglyConnected(graph: Map<string, Set<string>>): string[][] {
  // Tarjan's algorithm, iterative so deep import chains cannot overflow the stack.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result: string[][] = [];
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { node: string; next: Iterator<string> }[] = [];
    const enter = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: [...(graph.get(node) ?? [])].sort()[Symbol.iterator]() });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame === undefined) break;
      const step = frame.next.next();
      if (!step.done) {
        const child = step.value;
        if (!index.has(child)) enter(child);
        else if (onStack.has(child)) low.set(frame.node, Math.min(low.get(frame.node) ?? 0, index.get(child) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(frame.node) ?? 0));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop();
          if (member === undefined) break;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        result.push(component.sort());
      }
    }
  }
  return result;
}

/** Breadth-first path from `start` to `goal` inside `members`, both ends included. */
function shortestPath(graph: Map<string, Set<string>>, members: Set<string>, start: string, goal: string): string[] | null {
  const previous = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i += 1) {
    const node = queue[i];
    if (node === undefined) break;
    if (node === goal) {
      const route: string[] = [];
      for (let at: string | null | undefined = goal; at != null; at = previous.get(at)) route.unshift(at);
      return route;
    }
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (members.has(next) && !previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return null;
}
