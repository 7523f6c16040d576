import Fastify, { type FastifyError, type FastifyInstance, LogController } from 'fastify';
import { ApiError, errors } from './errors.js';

/** Maps anything thrown while serving a request to a body from the error catalogue. */
function toApiError(error: FastifyError, isIngest: boolean): ApiError {
  if (error instanceof ApiError) return error;
  if (error.statusCode === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.payloadTooLarge();
  const clientFault =
    (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) ||
    (typeof error.code === 'string' && error.code.startsWith('Z_')); // a corrupt gzip body
  if (clientFault) return isIngest ? errors.badRequest() : errors.invalidParameter(error.message);
  return errors.internal();
}

/** The HTTP server shell: logging, the error catalogue and 404s. Routes are added by the caller. */
export function createHttpServer(logLevel: string): FastifyInstance {
  const app = Fastify({
    logger: { level: logLevel },
    // Per-request logs would cost more than ingesting the lines they describe.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request.url.startsWith('/logs/'));
    if (apiError.statusCode === 500) request.log.error({ err: error }, 'request failed');
    else if (apiError.statusCode === 503) request.log.warn(apiError.body.error);
    reply.code(apiError.statusCode).send(apiError.body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errors.notFound(`No route for ${request.method} ${request.url.split('?')[0]}`).body);
  });
  return app;
}
