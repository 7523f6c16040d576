import type { CompiledQuery, Kysely } from 'kysely';

/**
 * A query built once and run many times with other values: for the lookups every request makes
 * (its key, its session), where building and compiling the query each time would cost more than
 * running it. `build` is called once with stand-in values; each call then runs the compiled SQL
 * (the dialect's own) with the stand-ins replaced by the arguments.
 */
export function preparedQuery<Args extends string[], Row>(
  db: Kysely<any>,
  build: (...args: Args) => { compile(): CompiledQuery<Row> },
  arity: Args['length'],
): (...args: Args) => Promise<Row[]> {
  const standIns = Array.from({ length: arity }, (_, index) => `\u0000stand-in ${index}\u0000`) as Args;
  const compiled = build(...standIns).compile();
  const positions = standIns.map((standIn) => {
    const index = compiled.parameters.indexOf(standIn);
    if (index < 0 || compiled.parameters.indexOf(standIn, index + 1) >= 0) throw new Error('a prepared query uses each argument exactly once');
    return index;
  });
  return async (...args) => {
    const parameters = [...compiled.parameters];
    positions.forEach((position, index) => (parameters[position] = args[index]));
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  };
}
