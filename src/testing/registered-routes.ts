import type { FastifyInstance } from 'fastify';

/**
 * Every route a running Fastify app answers, as "METHOD /path" with the path as registered
 * (":id" parameters, "*" wildcards). Fastify keeps no public list of routes once it is ready, so
 * this reads `printRoutes`, whose tree nests a child under its parent as a path suffix:
 *   ├── /v1/export (GET, HEAD)
 *   │   └── /download/:id (GET, HEAD)
 * A route with constraints (the Elasticsearch API's `GET /` for its clients) ends in its
 * constraints as JSON, and another route on the same node follows on a line of its own, indented
 * as a child but with no branch:
 *   ├── / (GET, HEAD) {"elasticClient":"yes"}
 *   │   / (HEAD, GET)
 * Each route is listed once, whatever constraints it has.
 */
export function registeredRoutes(app: FastifyInstance): string[] {
  const routes = new Set<string>();
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)([├└]── )?(.*?)(?: \(([A-Z, ]+)\))?(?: \{.*\})?$/.exec(line);
    if (!match || (!match[2] && !match[4])) continue;
    // A line with no branch is another route of the node above it.
    const depth = match[1].length / 4 - (match[2] ? 0 : 1);
    const path = (parents[depth - 1] ?? '') + match[3];
    if (match[2]) {
      parents[depth] = path;
      parents.length = depth + 1;
    }
    for (const method of match[4]?.split(', ') ?? []) routes.add(`${method} ${path}`);
  }
  return [...routes];
}
