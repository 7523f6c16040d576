import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A scripted answer: a status, or a status with its body and headers (Slack's `channel_not_found`, a Retry-After). */
export type ScriptedAnswer = number | { status: number; body?: string; headers?: Record<string, string> };

/** A real HTTP server on loopback that records requests, with the time each came; `answers` scripts the answers. */
export async function startHttpReceiver(answers: ScriptedAnswer[] = []) {
  const received: Array<ReceivedRequest & { at: number }> = [];
  const script = [...answers];
  let connections = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ method: request.method!, path: request.url!, headers: request.headers, body, at: Date.now() });
      const next = script.shift() ?? 200;
      const answer = typeof next === 'number' ? { status: next } : next;
      response.statusCode = answer.status;
      for (const [name, value] of Object.entries(answer.headers ?? {})) response.setHeader(name, value);
      response.end(answer.body ?? '{}');
    });
  });
  // Counted apart from requests: a refused address must not even be connected to.
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    received,
    /** TCP connections accepted so far. */
    connections: () => connections,
    /** Answers these next, then 200. */
    answer: (...next: ScriptedAnswer[]) => script.push(...next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A real SMTP server (npm smtp-server) on loopback that keeps every message, parsed. */
export async function startSmtpReceiver() {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          callback();
        },
        (error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
