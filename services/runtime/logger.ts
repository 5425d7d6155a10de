/** pino JSON logs; secrets are redacted by path as a second line of defence behind "never log them". */
import { pino, type Logger } from 'pino';

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: {
      paths: ['*.apiSecret', '*.value', '*.password', '*.authorization', '*.token', 'req.headers.authorization'],
      censor: '[redacted]',
    },
  });
}
