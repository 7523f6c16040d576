import type { FastifyBaseLogger } from 'fastify';
import type { Subsystem } from '../../lib/subsystem.js';
import type { Settings } from '../../settings.js';
import type { OtlpGrpcServer } from './grpc-server.js';
import { otlpHttpRoutes } from './http-routes.js';
import type { OtlpDeps } from './intake.js';

/**
 * OpenTelemetry logs (OTLP): POST /v1/logs on the main port (protobuf or JSON), and the gRPC
 * LogsService on LOGSTEAD_OTLP_GRPC_PORT when it is set.
 */
export async function startOtlpIngest(deps: OtlpDeps & { settings: Settings; log: FastifyBaseLogger }): Promise<Subsystem & { grpc?: OtlpGrpcServer }> {
  const { settings, log, ...otlp } = deps;
  // gRPC's library is loaded only when its listener is configured: unused, it would only add to
  // the heap every garbage collection walks.
  const grpc =
    settings.otlpGrpcPort === undefined
      ? undefined
      : await (await import('./grpc-server.js')).startOtlpGrpc({ ...otlp, log, host: settings.host, port: settings.otlpGrpcPort });
  if (grpc) log.info(`OTLP/gRPC listening on ${settings.host}:${grpc.port}`);
  return {
    grpc,
    routes: async (app) => {
      await app.register(otlpHttpRoutes, otlp);
    },
    close: async () => {
      await grpc?.close();
    },
  };
}
