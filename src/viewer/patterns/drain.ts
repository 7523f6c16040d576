/**
 * Drain (He, Zhu, Zheng and Lyu, "Drain: An Online Log Parsing Approach with Fixed Depth Tree",
 * ICWS 2017), as Drain3 refines it: a line's tokens go down a tree of fixed depth (first their
 * number, then their first tokens), and in the leaf they reach they join the most similar cluster
 * of the same length, or start one. Joining a cluster turns the tokens where the two differ into
 * the placeholder `<*>`, so a cluster's template only ever widens.
 *
 * Here it runs over texts that the engine has already masked (numbers, ids, addresses, quoted
 * values and durations are `<*>`, store/line-patterns.ts) and grouped, each with its number of
 * lines: Drain sees each distinct masked text once, so the work grows with the distinct texts, not
 * with the lines, and every line's count goes whole to the one cluster its text joined.
 *
 * Limits (docs/patterns.md):
 * - Tokens are split at single spaces only, so the template keeps the lines' spacing (a search
 *   for its constant text must meet it exactly). Lines that differ only in the number of spaces
 *   have different lengths and never share a template, nor do lines of different token counts
 *   (`user bob logged in` and `user bob smith logged in`).
 * - Only the first token (DrainOptions.prefixDepth) routes a text through the tree: two texts
 *   whose first token differs (and holds no digit or placeholder) are never compared, so
 *   `GET /a 200` and `PUT /a 200` stay two templates.
 * - Similarity counts only a template's constant tokens: a text joins a cluster when at least
 *   40% of the template's tokens equal its own. Two messages that share many words but differ in
 *   a few may merge (`connection to db1 lost` and `connection to db2 open`), and a short message
 *   with one variable word in three may not.
 * - Online and greedy: which cluster a text joins depends on the texts before it. The caller
 *   hands the texts in a fixed order (most lines first, then by text), so the same lines always
 *   give the same templates, whatever order they arrived in; another set of lines (another range)
 *   may give another grouping.
 */

export const WILDCARD = '<*>';

export interface DrainOptions {
  /** Drain3's sim_th: the share of a cluster's constant tokens a text must equal to join it. */
  similarity: number;
  /** Tokens after the length that route a text through the tree (Drain's depth less 3; never a text's last). */
  prefixDepth: number;
  /** Children a tree node may hold; past it, new tokens share the `<*>` child. */
  maxChildren: number;
}

/** Drain3's defaults: depth 4 (the length, then the first token), sim_th 0.4, max_children 100. */
export const DRAIN_DEFAULTS: DrainOptions = { similarity: 0.4, prefixDepth: 1, maxChildren: 100 };

export interface DrainCluster {
  /** The template's tokens; `<*>` marks a variable one. */
  tokens: string[];
  /** Indices of the input texts that joined this cluster, in input order. */
  members: number[];
}

interface TreeNode {
  children: Map<string, TreeNode>;
  clusters: DrainCluster[];
}

const newNode = (): TreeNode => ({ children: new Map(), clusters: [] });

/** A token that is probably a value (it holds a digit or a placeholder) routes through `<*>`. */
const routesAsWildcard = (token: string) => token.includes(WILDCARD) || /\d/.test(token);

/**
 * Two differing tokens widened to one: `key=<*>` when both give the same key before `=` or `:`
 * (`user=bob` and `user=eve`; a token that is already `key=<*>` keeps it), else `<*>`. Drain3
 * would make both `<*>`, losing the key that a search for the template needs.
 */
export function widen(template: string, token: string): string {
  if (template === token) return template;
  const key = /^[^=:]*[=:]/.exec(template)?.[0];
  if (key !== undefined && key.length > 0 && token.startsWith(key) && key !== WILDCARD) return `${key}${WILDCARD}`;
  return WILDCARD;
}

/** Whether a template token stands for `token`: equal, `<*>`, or `key=<*>` over a token with that key. */
function covers(template: string, token: string): boolean {
  if (template === token || template === WILDCARD) return true;
  return template.endsWith(WILDCARD) && /^[^=:]*[=:]<\*>$/.test(template) && token.startsWith(template.slice(0, -WILDCARD.length));
}

/** Drain3's seq_dist: the share of the template's tokens that cover the text's (placeholders not counted), and how many are placeholders. */
function similarity(template: string[], tokens: string[]): { share: number; wildcards: number } {
  let equal = 0;
  let wildcards = 0;
  for (let at = 0; at < template.length; at++) {
    if (template[at] === WILDCARD) wildcards++;
    else if (covers(template[at], tokens[at])) equal++;
  }
  return { share: equal / template.length, wildcards };
}

/**
 * Clusters texts, each once, in the order given. A text is split into tokens at single spaces;
 * an empty text is one empty token.
 */
export function drain(texts: readonly string[], options: DrainOptions = DRAIN_DEFAULTS): DrainCluster[] {
  const root = newNode();
  const clusters: DrainCluster[] = [];
  texts.forEach((text, index) => {
    const tokens = text.split(' ');
    const leaf = leafFor(root, tokens, options);
    const found = bestCluster(leaf.clusters, tokens, options.similarity);
    if (found) {
      found.tokens = found.tokens.map((token, at) => (covers(token, tokens[at]) ? token : widen(token, tokens[at])));
      found.members.push(index);
    } else {
      const cluster: DrainCluster = { tokens: [...tokens], members: [index] };
      leaf.clusters.push(cluster);
      clusters.push(cluster);
    }
  });
  return clusters;
}

/** The leaf for a text's length and first tokens, made on the way where missing. */
function leafFor(root: TreeNode, tokens: string[], options: DrainOptions): TreeNode {
  const child = (node: TreeNode, key: string): TreeNode => {
    let found = node.children.get(key);
    if (!found) node.children.set(key, (found = newNode()));
    return found;
  };
  let node = child(root, String(tokens.length));
  // As in Drain3, a text's last token never routes: a one-token text goes by its length alone.
  const depth = Math.min(options.prefixDepth, tokens.length - 1);
  for (let at = 0; at < depth; at++) {
    const token = tokens[at];
    const known = node.children.get(token);
    node = known ?? child(node, routesAsWildcard(token) || node.children.size >= options.maxChildren ? WILDCARD : token);
  }
  return node;
}

/** The most similar cluster (ties: more placeholders, then the older), if similar enough. */
function bestCluster(candidates: DrainCluster[], tokens: string[], threshold: number): DrainCluster | undefined {
  let best: DrainCluster | undefined;
  let bestShare = -1;
  let bestWildcards = -1;
  for (const cluster of candidates) {
    const { share, wildcards } = similarity(cluster.tokens, tokens);
    if (share > bestShare || (share === bestShare && wildcards > bestWildcards)) {
      best = cluster;
      bestShare = share;
      bestWildcards = wildcards;
    }
  }
  // As in Drain3, a template of placeholders only (share 0) takes no more texts: one more `<*>`
  // text of its length starts a cluster of the same template, and the caller merges the two.
  return best && bestShare >= threshold ? best : undefined;
}
