import { Session } from 'chdb';
import fs from 'node:fs';
import { createLogTables } from '../dist/src/store/schema.js';
import { execSync } from 'node:child_process';
const dir = '/tmp/chdb-probe-' + process.argv[2];
fs.rmSync(dir, { recursive: true, force: true });
const s = new Session(dir);
const extra = process.argv[3] ?? '';
for (const st of createLogTables({ stored: 'logs', reads: 'logs', parts: 'system.parts', merges: 'system.merges', onCluster: '' }, 'default')) s.query(st.replace('merge_selector_base = 10', 'merge_selector_base = 10' + extra));
console.log(s.query("SELECT engine_full FROM system.tables WHERE name='logs'", 'TSV').toString().slice(-300));
const t0 = Date.now();
for (let i = 0; i < 30; i++) {
  s.query(`INSERT INTO logs (account, ts, id, line, host, app, level) SELECT 'a', now64(3) - number/1000, number + ${i}*100000, concat('line ', toString(number), ' ', toString(rand())), 'h', 'app', 'INFO' FROM numbers(20000)`);
}
for (let k = 0; k < 16; k++) {
  const r = s.query("SELECT countIf(active), countIf(not active), sum(bytes_on_disk) FILTER (WHERE active), sum(bytes_on_disk) FILTER (WHERE not active) FROM system.parts WHERE table='logs'", 'TSV').toString().trim();
  const du = execSync(`du -sb ${dir}/store 2>/dev/null || du -sb ${dir}`).toString().split('\t')[0];
  console.log(((Date.now() - t0) / 1000).toFixed(0) + 's', r, 'du', du);
  await new Promise((res) => setTimeout(res, 5000));
}
s.close();
