/**
 * The archiver alone, in a process of its own, for bench/archive: opens a stopped server's data
 * directory (its configuration database, secret key and embedded store), waits for the engine's
 * background merges to finish (an hour is archived an hour after it closes, long after its parts
 * merged), then runs one archiver round (plan the files, write them to the bucket) and prints the
 * CPU it took: the process's user + system time over every thread, so the engine's reading (chDB
 * runs in this process) and the upload are counted. `--build DIR` runs another built checkout's
 * archiver (a before/after comparison on the same data). Usage:
 *   node dist/bench/archive/archive-once.js --data-dir DIR [--build DIR]
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: options } = parseArgs({ options: { 'data-dir': { type: 'string' }, build: { type: 'string' } } });
const dataDir = options['data-dir'];
if (!dataDir) throw new Error('--data-dir is required');
const build = path.resolve(options.build ?? fileURLToPath(new URL('../../../', import.meta.url)));
const load = (module: string) => import(pathToFileURL(path.join(build, 'dist/src', module)).href);
/** A module that moved: where today's build has it, or where an older build (--build) had it. */
const loadMoved = (now: string, before: string) => load(now).catch(() => load(before));

const quiet = { error() {}, warn() {}, info() {}, debug() {}, trace() {}, fatal() {}, child: () => quiet, level: 'silent' };

async function main() {
  const [{ loadSettings }, { startRepository }, { openSecretBox }, { startStore }, { ArchiveConfigs }, { ArchiveFiles }, { Archiver }] = await Promise.all([
    load('settings.js'),
    load('repository/start.js'),
    loadMoved('repository/secret-box.js', 'lib/secret-box.js'),
    load('store/start.js'),
    load('archive/archive-config.js'),
    load('archive/archive-files.js'),
    load('archive/archiver.js'),
  ]);
  const settings = loadSettings({ ...process.env, LOGSTEAD_DATA_DIR: dataDir });
  const repository = await startRepository(settings);
  const box = await openSecretBox(repository.db, settings);
  const { store, close } = await startStore({ settings, keptFrom: () => 0, log: quiet });
  for (let idle = 0; idle < 3; ) {
    idle = (await store.stats()).merges === 0 ? idle + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // A server loads the S3 client once, at its first archive; every later hour finds it loaded.
  await import('@aws-sdk/client-s3');
  const files = new ArchiveFiles(repository.db, repository.nodeSlot);
  let lines = 0;
  let bytes = 0;
  let failures = 0;
  const archiver = new Archiver(
    new ArchiveConfigs(repository.db, box),
    files,
    store,
    {
      delayMs: 0,
      intervalMs: 3_600_000,
      settleMs: 0,
      allowPrivate: true,
      recorded: (outcome: { lines: number; bytes: number } | { failed: true }) => {
        if ('failed' in outcome) failures++;
        else ((lines += outcome.lines), (bytes += outcome.bytes));
      },
    },
    quiet,
  );
  // One round, run here rather than on the archiver's timer (start() would also schedule more).
  (archiver as unknown as { stopped: boolean }).stopped = false;
  const cpuBefore = process.cpuUsage();
  const began = performance.now();
  await archiver.runOnce();
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (performance.now() - began) / 1000;
  await close();
  await repository.close();
  console.log(JSON.stringify({ lines, bytes, failures, cpuSeconds: (cpu.user + cpu.system) / 1e6, seconds }));
}

await main();
