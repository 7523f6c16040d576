import * as grpc from '@grpc/grpc-js';
import type { FastifyBaseLogger } from 'fastify';
import { LIMITS } from '../../wire/limits.js';
import { encodeResponse, grpcCode, otlpApiError } from './answers.js';
import { type OtlpDeps, authenticate, ingestOtlp, keysOf } from './intake.js';
import { linesOfProtobuf } from './protobuf-lines.js';
import { EXPORT_METHOD } from './proto.js';

/**
 * The LogsService of OTLP/gRPC. The request is kept as its bytes (decoded only once its key is
 * known, as over HTTP), and the response is encoded by the handler.
 */
const LOGS_SERVICE: grpc.ServiceDefinition = {
  Export: {
    path: EXPORT_METHOD,
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (bytes: Buffer) => bytes,
  },
};

/** gRPC metadata as the headers presentedKeys reads (each entry's text values, joined). */
function headersOf(metadata: grpc.Metadata): Record<string, string | undefined> {
  const text = (name: string) => {
    const values = metadata.get(name).filter((value): value is string => typeof value === 'string');
    return values.length > 0 ? values.join(', ') : undefined;
  };
  return { authorization: text('authorization'), apikey: text('apikey') };
}

export interface OtlpGrpcServer {
  port: number;
  close(): Promise<void>;
}

/**
 * OTLP/gRPC on `host:port`: each Export is answered after the durable write; bad input is
 * INVALID_ARGUMENT, a wrong key UNAUTHENTICATED or PERMISSION_DENIED, overload and store failures
 * UNAVAILABLE (which senders retry). Messages over the 10 MB ingest limit (after decompression)
 * are refused by grpc-js with RESOURCE_EXHAUSTED.
 */
export async function startOtlpGrpc(deps: OtlpDeps & { log: FastifyBaseLogger; host: string; port: number }): Promise<OtlpGrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': LIMITS.bodyBytes,
    'grpc.max_send_message_length': 64 * 1024,
  });
  const log = deps.log.child({ protocol: 'otlp-grpc' });
  server.addService(LOGS_SERVICE, {
    Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      const receivedAt = Date.now();
      void (async () => {
        const ticket = await deps.admission.admit(call.request.length);
        try {
          const account = await authenticate(deps.accounts, keysOf(headersOf(call.metadata)));
          const warning = await ingestOtlp(deps, {
            protocol: 'otlp-grpc',
            account,
            lines: () => linesOfProtobuf(call.request),
            receivedAt,
            sentBytes: call.request.length,
            log,
            queued: () => ticket.release(),
          });
          callback(null, encodeResponse(warning === undefined ? undefined : { rejectedLogRecords: 0, errorMessage: warning }));
        } finally {
          ticket.release();
        }
      })().catch((error: unknown) => {
        const apiError = otlpApiError(error);
        if (apiError.statusCode === 500) log.error({ err: error }, 'OTLP gRPC export failed');
        else if (apiError.statusCode === 503) log.warn(apiError.body.error);
        const metadata = new grpc.Metadata();
        callback({ code: grpcCode(apiError), details: apiError.body.error, metadata }, null);
      });
    },
  });
  const host = deps.host.includes(':') && !deps.host.startsWith('[') ? `[${deps.host}]` : deps.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${deps.port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        // Exports under way finish (their writes are durable before they answer); past 10 s they are cut.
        const timer = setTimeout(() => server.forceShutdown(), 10_000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
