/**
 * The organisation being left, read through Mezmo's own configuration API (compat reference §5):
 * GET only, authenticated by the `servicekey` header as Mezmo's clients do. Logstead answers the
 * same paths, so a Logstead server is a source too.
 */

export class ImportError extends Error {}

/** A path the source could not answer; its kind is reported as not carried over, the rest goes on. */
export class SourceReadError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    detail: string,
  ) {
    super(`GET ${path} answered ${status}${detail ? `: ${detail}` : ''}`);
  }
}

const READ_TIMEOUT_MS = 30_000;

export class MezmoSource {
  readonly url: string;

  constructor(
    url: string,
    private readonly serviceKey: string,
  ) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ImportError(`--url must be an http(s) URL, not "${url}".`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ImportError(`--url must be an http(s) URL, not "${url}".`);
    this.url = parsed.toString().replace(/\/+$/, '');
  }

  /**
   * A JSON array from `path`. A refused key stops the import (nothing else would be readable);
   * any other failure is the caller's to report for that one kind.
   */
  async list(path: string): Promise<Array<Record<string, unknown>>> {
    const body = await this.get(path);
    if (!Array.isArray(body)) throw new SourceReadError(path, 200, 'the answer is not a JSON array');
    return body.filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object' && !Array.isArray(item));
  }

  /** A JSON object from `path`, for a singleton resource (the index-rate alert). */
  async one(path: string): Promise<Record<string, unknown>> {
    const body = await this.get(path);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new SourceReadError(path, 200, 'the answer is not a JSON object');
    return body as Record<string, unknown>;
  }

  private async get(path: string): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        headers: { servicekey: this.serviceKey, accept: 'application/json' },
        signal: AbortSignal.timeout(READ_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ImportError(`Could not reach ${this.url}${path}: ${(error as Error).message}`);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const detail = body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : text.slice(0, 200);
    if (response.status === 401 || response.status === 403) {
      throw new ImportError(`${this.url} refused the service key (GET ${path} answered ${response.status}${detail ? `: ${detail}` : ''}).`);
    }
    if (response.status !== 200) throw new SourceReadError(path, response.status, detail);
    return body;
  }
}
