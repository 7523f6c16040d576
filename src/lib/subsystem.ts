import type { FastifyInstance } from 'fastify';

/** The HTTP routes a subsystem serves, as a fastify plugin that the web server registers. */
export type Routes = (app: FastifyInstance) => Promise<void>;

/**
 * A part of Logstead that runs something: what its `start(deps)` returns. Each is started once, in
 * order, by the composition root (src/app.ts), and closed in the reverse order.
 */
export interface Subsystem {
  routes?: Routes;
  /** Stops what it runs and waits for work under way; called once, after every later subsystem closed. */
  close(): Promise<void>;
}

/** The subsystems started so far, to close in reverse, also when a later one fails to start. */
export class StartedSubsystems {
  private readonly started: Subsystem[] = [];

  /** Records a started subsystem and hands it back, typed as its start returned it. */
  async add<T extends Subsystem>(starting: Promise<T> | T): Promise<T> {
    const subsystem = await starting;
    this.started.push(subsystem);
    return subsystem;
  }

  /** Every route of the subsystems started, in their start order. */
  routes(): Routes[] {
    return this.started.flatMap((subsystem) => (subsystem.routes ? [subsystem.routes] : []));
  }

  /** Closes every subsystem, the last started first; one that fails to close does not keep the rest open. */
  async closeAll(onError: (error: unknown) => void): Promise<void> {
    while (this.started.length > 0) {
      const subsystem = this.started.pop()!;
      try {
        await subsystem.close();
      } catch (error) {
        onError(error);
      }
    }
  }
}
