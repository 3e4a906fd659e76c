import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, errorShapeOfPath } from './error-renderer.ts';

/**
 * Requests Node's HTTP parser refuses before the app sees them (headers beyond the 16 KB limit,
 * a malformed request line, a request that times out) are answered in JSON, in the error shape of the
 * path they were sent to, as the app answers everything else. Node's default is a bare status line
 * (431 with no body, 400 "Bad Request" in plain text).
 */
const STATUS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request headers are too large (at most 16 KB in all)'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Content Too Large', 'The chunk extensions are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time'],
  ERR_HTTP_HEADERS_TIMEOUT: [408, 'Request Timeout', 'The request headers were not received in time'],
};
const BAD_REQUEST: [number, string, string] = [400, 'Bad Request', 'Malformed HTTP request'];

/** The path of the request line in the bytes the parser saw, if it got that far. */
function requestPath(raw: unknown): string {
  if (!Buffer.isBuffer(raw)) return '';
  const line = raw.subarray(0, 2048).toString('latin1').split('\r\n', 1)[0];
  return /^[A-Z]+ (\/\S*) HTTP\/1\.[01]$/.exec(line)?.[1]?.split('?')[0] ?? '';
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) => {
    // A reset or a closed connection has nobody to answer; a request the app is answering (Node's
    // request timeout on one whose body never completed) is cut, never written over (Node's own rule).
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) return void socket.destroy();
    const [status, reason, message] = STATUS[err.code ?? ''] ?? BAD_REQUEST;
    const shape = errorShapeOfPath(requestPath(err.rawPacket));
    // the request never reached the app, but its answer has an id of its own as every other answer has
    const requestId = randomUUID();
    const code = status === 400 ? 'common.bad_request' : status === 408 ? 'common.request_timeout' : 'common.request_rejected';
    const body = JSON.stringify(errorBody({ status, code, message, headers: {}, issues: [], extensions: {} }, shape, requestId));
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n${shape === 'oauth' ? 'Cache-Control: no-store\r\n' : ''}\r\n${body}`,
    );
  });
}
