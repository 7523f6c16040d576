import fs from 'node:fs';

/**
 * Lines, keys and configuration are nobody else's business on a shared machine: what Logstead
 * writes under its data directory is readable by its owner only, as `secret.key` (0600) is.
 */

/**
 * From now on, files and folders this process creates have no group or other permissions: the log
 * engine (chDB) creates its parts as it writes, on threads of its own, so only the process's umask
 * reaches them. Called once by the command line (every command, `serve` too), before anything opens;
 * not by the composition root, so that a process embedding Logstead keeps its own umask.
 */
export function ownerOnlyFromNowOn(): void {
  process.umask(process.umask() | 0o077);
}

/**
 * Takes group and other permissions away from a file or folder that exists, as one created by an
 * older version may; one owned by someone else (a read-only copy) is left as it is.
 */
export function keepToOwner(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return;
  }
  if ((stat.mode & 0o077) === 0) return;
  try {
    fs.chmodSync(file, stat.mode & 0o700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EROFS' && code !== 'EACCES') throw error;
  }
}
