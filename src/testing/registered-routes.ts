import type { FastifyInstance } from 'fastify';

/**
 * Every route a running Fastify app answers, as "METHOD /path" with the path as registered
 * (":id" parameters, "*" wildcards). Fastify keeps no public list of routes once it is ready, so
 * this reads `printRoutes`, whose tree nests a child under its parent as a path suffix:
 *   ├── /v1/export (GET, HEAD)
 *   │   └── /download/:id (GET, HEAD)
 */
export function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const path = (parents[depth - 1] ?? '') + match[2];
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.push(`${method} ${path}`);
  }
  return routes;
}
