/**
 * The Node side of an acknowledged line, run as the ingest route runs it (src/ingest/intake.ts and src/ingest/mezmo/ingest-routes.ts)
 * on the same bodies, with the CPU of each stage counted separately: JSON.parse of the body;
 * normaliseLine; the organisation's meta type rule (MetaTypeRegistry.admitAll, on a real SQLite
 * config database); encodeRow into the TabSeparated payload handed to the engine.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openConfigDatabase } from '../../src/repository/open.js';
import { MetaFieldTypes } from '../../src/meta-fields/meta-field-types.js';
import { MetaTypeRegistry } from '../../src/meta-fields/meta-types.js';
import { type BatchContext, normaliseLine } from '../../src/ingest/normalise.js';
import { parseSourceParams } from '../../src/ingest/mezmo/params.js';
import { LineIds } from '../../src/ingest/line-ids.js';
import { encodeRow } from '../../src/store/row-encoding.js';
import { ownCpuMicros } from './common.js';

export interface NodeStageMicros {
  parse: number;
  normalise: number;
  metaTypes: number;
  encode: number;
  lines: number;
}

export interface NodePipeline {
  /** Runs every body through the stages; `payload` receives each body's encoded rows. */
  run(bodies: Buffer[], hostnames: string[], payload?: (rows: Buffer, lines: number) => void): Promise<NodeStageMicros>;
  close(): Promise<void>;
}

export async function nodePipeline(): Promise<NodePipeline> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-cost-config-'));
  const { database } = await openConfigDatabase({ dataDir: dir });
  const metaTypes = new MetaTypeRegistry(new MetaFieldTypes(database.db), { maxNewFieldsPerDay: 500 });
  const lineIds = new LineIds();
  return {
    async run(bodies, hostnames, payload) {
      const total: NodeStageMicros = { parse: 0, normalise: 0, metaTypes: 0, encode: 0, lines: 0 };
      for (let b = 0; b < bodies.length; b++) {
        const t0 = ownCpuMicros();
        const body = JSON.parse(bodies[b].toString('utf8')) as { lines: unknown[] };
        const t1 = ownCpuMicros();
        const source = parseSourceParams({ hostname: hostnames[b] }, body as unknown as Record<string, unknown>);
        const context: BatchContext = { account: 'bench', batchId: randomUUID(), source, receivedAt: Date.now(), driftMs: 0 };
        const firstId = lineIds.reserve(body.lines.length);
        const pending = body.lines.map((raw, index) => normaliseLine(raw, context, lineIds.format(firstId + index)));
        const t2 = ownCpuMicros();
        const verdicts = await metaTypes.admitAll('bench', pending.map((line) => line.metaObject));
        for (const [index, line] of pending.entries()) line.row.meta_indexed = verdicts[index] === 'indexed';
        const t3 = ownCpuMicros();
        let text = '';
        for (const { row } of pending) text += encodeRow(row);
        const rows = Buffer.from(text, 'utf8');
        const t4 = ownCpuMicros();
        total.parse += t1 - t0;
        total.normalise += t2 - t1;
        total.metaTypes += t3 - t2;
        total.encode += t4 - t3;
        total.lines += pending.length;
        payload?.(rows, pending.length);
      }
      return total;
    },
    async close() {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
