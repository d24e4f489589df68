import { spawn } from 'node:child_process';

/**
 * Open `url` in the system browser, without a shell (the URL is one argument). Best effort: a
 * machine without a desktop opener only means the caller's printed URL is opened by hand.
 */
export function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is printed; opening it is a convenience.
  }
}
