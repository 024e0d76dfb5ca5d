import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@app/config';

const REFUSED: Record<string, string> = { EADDRINUSE: 'address in use', EACCES: 'permission denied' };

/**
 * Listens on the configured address. When it cannot be had (taken, or a privileged port) the app is
 * closed first, so its workers stop and the embedded store's folder lock is released, and the process
 * exits with one line naming the address and the setting, not a stack trace.
 */
export async function listenOrExit(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const { host, port } = config.http;
  try {
    await app.listen(port, host);
  } catch (err) {
    const why = REFUSED[(err as NodeJS.ErrnoException).code ?? ''];
    if (!why) throw err;
    await app.close().catch(() => undefined);
    process.stderr.write(`muninn: cannot listen on ${host}:${port} (${why}); stop the other server or set PORT\n`);
    process.exit(1);
  }
}
