import type { FastifyError } from 'fastify';
import { apiErrorForDomain } from '../../http/domain-errors.js';
import { ApiError, errors } from '../../http/errors.js';
import { ExportLogsServiceResponse, RpcStatus } from './proto.js';
import { OtlpInputError } from './mapping.js';

/** gRPC status codes (grpc/doc/statuscodes.md), which google.rpc.Status carries over HTTP too. */
export const GRPC = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/**
 * Anything thrown while taking an OTLP request, as the catalogue's answer (its HTTP status,
 * message and Retry-After): OTLP input errors are the catalogue's 400 saying what was wrong.
 */
export function otlpApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof OtlpInputError) return errors.otlpNotOtlp(error.message);
  const domain = apiErrorForDomain(error);
  if (domain) return domain;
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.statusCode === 413 || fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.payloadTooLarge();
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return errors.otlpUnsupportedMediaType();
  const clientFault =
    (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) ||
    (typeof fastifyError.code === 'string' && fastifyError.code.startsWith('Z_')); // a corrupt gzip body
  if (clientFault) return errors.badRequest();
  return errors.internal();
}

/**
 * The gRPC code for a catalogue answer. OTLP senders retry UNAVAILABLE (the 503s: overloaded, the
 * store, shutting down) and never INVALID_ARGUMENT, UNAUTHENTICATED or PERMISSION_DENIED.
 */
export function grpcCode(error: ApiError): number {
  switch (error.statusCode) {
    case 400:
    case 413:
    case 415:
      return GRPC.INVALID_ARGUMENT;
    case 401:
      return GRPC.UNAUTHENTICATED;
    case 403:
      return GRPC.PERMISSION_DENIED;
    case 429:
      return GRPC.RESOURCE_EXHAUSTED;
    case 502:
    case 503:
    case 504:
      return GRPC.UNAVAILABLE;
    default:
      return GRPC.INTERNAL;
  }
}

/** What an OTLP answer is encoded as: the request's own encoding (JSON when it named none we read). */
export type OtlpEncoding = 'protobuf' | 'json';

export function statusBody(error: ApiError, encoding: OtlpEncoding): { contentType: string; body: Buffer | string } {
  const status = { code: grpcCode(error), message: error.body.error };
  if (encoding === 'json') return { contentType: 'application/json', body: JSON.stringify(status) };
  return { contentType: 'application/x-protobuf', body: Buffer.from(RpcStatus.encode(RpcStatus.fromObject(status)).finish()) };
}

/** ExportLogsServiceResponse: empty on full success; a partial_success with 0 rejected carries a warning. */
export function successBody(warning: string | undefined, encoding: OtlpEncoding): { contentType: string; body: Buffer | string } {
  const partialSuccess = warning === undefined ? undefined : { rejectedLogRecords: 0, errorMessage: warning };
  if (encoding === 'json') return { contentType: 'application/json', body: JSON.stringify(partialSuccess ? { partialSuccess: { rejectedLogRecords: '0', errorMessage: warning } } : {}) };
  return { contentType: 'application/x-protobuf', body: encodeResponse(partialSuccess) };
}

export function encodeResponse(partialSuccess: { rejectedLogRecords: number; errorMessage: string } | undefined): Buffer {
  return Buffer.from(ExportLogsServiceResponse.encode(ExportLogsServiceResponse.fromObject(partialSuccess ? { partialSuccess } : {})).finish());
}
