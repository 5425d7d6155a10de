/** pino JSON logs; secrets are redacted by path as a second line of defence behind "never log them". */
import { pino, type DestinationStream, type Logger } from 'pino';

/** Longest a written line waits in the buffer before it reaches stdout. */
export const LOG_FLUSH_MS = 200;

let stdout: DestinationStream | undefined;

/**
 * One buffered stdout per process: a line per write(2) cost the gateway about 5 % of its CPU under
 * load (each write wakes whoever reads the pipe: the local supervisor, a container runtime).
 * Lines are written at 4 KiB or after LOG_FLUSH_MS, whichever comes first, and synchronously on
 * exit (pino registers that for asynchronous destinations), so an ordinary exit or crash loses
 * none; a SIGKILL loses at most the last LOG_FLUSH_MS.
 */
function bufferedStdout(): DestinationStream {
  if (stdout) return stdout;
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // Not open yet, or closed at exit: the next interval or pino's exit flush writes the lines.
    }
  }, LOG_FLUSH_MS).unref();
  stdout = destination;
  return destination;
}

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      redact: {
        paths: ['*.apiSecret', '*.value', '*.password', '*.authorization', '*.token', 'req.headers.authorization'],
        censor: '[redacted]',
      },
    },
    bufferedStdout(),
  );
}
