// The import graph of a TypeScript source tree and its cycles: what the
// one-way-imports test reads. Relative specifiers only (packages cannot import
// back into the tree); `./x.js` names `./x.ts` (or `./x/index.ts`).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** the imported file, relative to the tree's root */
  to: string;
  /** erased at compile time (`import type`, `export type … from`, or every name `type`) */
  typeOnly: boolean;
  /** an `import()` expression: evaluated when called, not when the importer loads */
  dynamic: boolean;
}

export type ImportGraph = Map<string, ImportEdge[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

function everyNameTypeOnly(clause: ts.ImportClause): boolean {
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return (
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** The specifiers a file imports, with how. */
export function importsOf(
  text: string,
): { specifier: string; typeOnly: boolean; dynamic: boolean }[] {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const found: { specifier: string; typeOnly: boolean; dynamic: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.importClause !== undefined && everyNameTypeOnly(node.importClause);
      found.push({ specifier: node.moduleSpecifier.text, typeOnly, dynamic: false });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({
        specifier: node.moduleSpecifier.text,
        typeOnly: node.isTypeOnly,
        dynamic: false,
      });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false, dynamic: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every .ts file under `root` with the files of the tree it imports. */
export function importGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const path of sourceFiles(root)) {
    const edges: ImportEdge[] = [];
    for (const { specifier, typeOnly, dynamic } of importsOf(readFileSync(path, 'utf8'))) {
      const target = resolveSpecifier(path, specifier);
      if (target !== null) edges.push({ to: relative(root, target), typeOnly, dynamic });
    }
    graph.set(relative(root, path), edges);
  }
  return graph;
}

/**
 * The cycles of the graph over the edges `follow` keeps, one per strongly
 * connected group of files, each as the path of files around it (first file
 * repeated at the end). Empty when the imports run one way.
 */
export function importCycles(
  graph: ImportGraph,
  follow: (edge: ImportEdge) => boolean = () => true,
): string[][] {
  const next = (file: string): string[] =>
    (graph.get(file) ?? []).filter(follow).map((edge) => edge.to);
  // Tarjan's strongly connected components, iteratively deep enough for a tree of files
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of next(file)) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== file);
      if (group.length > 1 || next(file).includes(file)) groups.push(group);
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return groups.map((group) => cycleThrough(group, next));
}

/** One cycle through the group's first file (by name), found by a breadth-first walk inside the group. */
function cycleThrough(group: string[], next: (file: string) => string[]): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const to of next(file)) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** The top folder of a file under the tree (or the file's own name without `.ts`, for a file at the top). */
export function topFolder(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file.replace(/\.ts$/, '') : file.slice(0, slash);
}

/**
 * The imports that run against `layers` (bottom first; each layer a list of
 * top folders): a file may import from its own top folder and from the
 * layers below its own, never from a layer above nor from a sibling of its
 * layer, nor from outside the tree. A top folder no layer names is an error
 * of its own, so a new folder is placed on purpose. Each violation reads
 * `from → to (why)`.
 */
export function layerViolations(
  graph: ImportGraph,
  layers: readonly (readonly string[])[],
): string[] {
  const layerOf = new Map<string, number>();
  layers.forEach((names, level) => names.forEach((name) => layerOf.set(name, level)));
  const found: string[] = [];
  const unplaced = new Set<string>();
  for (const [from, edges] of graph) {
    const own = topFolder(from);
    if (!layerOf.has(own)) unplaced.add(own);
    for (const { to } of edges) {
      const target = topFolder(to);
      if (target === own) continue;
      if (to.startsWith('..')) {
        found.push(`${from} → ${to} (outside the tree)`);
        continue;
      }
      const [a, b] = [layerOf.get(own), layerOf.get(target)];
      if (a === undefined || b === undefined) continue;
      if (b > a) found.push(`${from} → ${to} (${target} is above ${own})`);
      else if (b === a) found.push(`${from} → ${to} (${target} and ${own} are one layer)`);
    }
  }
  for (const name of [...unplaced].sort()) found.push(`${name} is in no layer`);
  return found.sort();
}

/** The files of the graph that no chain of imports (dynamic ones included) reaches from `entries`, sorted. */
export function unreachable(graph: ImportGraph, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const edge of graph.get(file) ?? []) stack.push(edge.to);
  }
  return [...graph.keys()].filter((file) => !seen.has(file)).sort();
}
