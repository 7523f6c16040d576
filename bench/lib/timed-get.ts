/**
 * One GET through the API, timed to its last byte (the JSON parsed after the clock stops). A
 * status other than 200 throws, with the start of the body.
 */
export async function timedGet(url: string, headers: Record<string, string>): Promise<{ ms: number; json: any }> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${text.slice(0, 300)}`);
  return { ms, json: JSON.parse(text) };
}
