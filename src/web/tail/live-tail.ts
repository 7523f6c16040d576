import { useEffect, useRef, useState } from 'react';
import { type Filters, type LogLine, TAIL_PROTOCOL, announceSignedOut, tailSocketUrl } from '../api-client/client.js';
import { readTailMessage } from './tail-messages.js';

export type TailStatus = 'off' | 'connecting' | 'live' | 'reconnecting';

/**
 * Streams new matching lines from the server's tail socket while `enabled`, reconnecting on its
 * own (after 1 s, then backing off to 10 s) when the connection drops, for example when the server restarts.
 */
export function useLiveTail(enabled: boolean, filters: Filters, onLines: (lines: LogLine[]) => void) {
  const [status, setStatus] = useState<TailStatus>('off');
  /** Lines the server skipped while this tail was sampled, and whether it is sampling now. */
  const [sampling, setSampling] = useState({ skipped: 0, active: false });
  const handler = useRef(onLines);
  handler.current = onLines;
  const key = JSON.stringify([filters.q, filters.hosts, filters.apps, filters.levels, filters.tags]);

  useEffect(() => {
    if (!enabled) {
      setStatus('off');
      return;
    }
    let socket: WebSocket | undefined;
    let stopped = false;
    let delay = 1000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The server reports skipped lines each second it samples; the notice lasts until the reports stop.
    let samplingEnds: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      socket = new WebSocket(tailSocketUrl(filters, window.location), TAIL_PROTOCOL);
      socket.onopen = () => {
        delay = 1000;
        setStatus('live');
      };
      socket.onmessage = (event) => {
        const message = readTailMessage(String(event.data));
        if (message.kind === 'sampled') {
          setSampling((current) => ({ skipped: current.skipped + message.dropped, active: true }));
          clearTimeout(samplingEnds);
          samplingEnds = setTimeout(() => setSampling((current) => ({ ...current, active: false })), 3000);
        } else if (message.kind === 'lines') {
          handler.current(message.lines);
        }
      };
      socket.onclose = (event) => {
        if (stopped) return;
        if (event.code === 4401) {
          // The session ended: reconnecting cannot help.
          setStatus('off');
          announceSignedOut();
          return;
        }
        setStatus('reconnecting');
        timer = setTimeout(connect, delay);
        delay = Math.min(10_000, delay * 2);
      };
    };
    setStatus('connecting');
    setSampling({ skipped: 0, active: false });
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(samplingEnds);
      socket?.close();
    };
  }, [enabled, key]);

  return { status, sampling };
}
