/** Prefix of every chunk after the first, so Honcho can stitch a long message back together. */
export const CONTINUED_PREFIX = '[continued] ';

/**
 * Split a message into chunks of at most `limit` characters (Honcho cloud refuses messages over
 * 25 000). A cut prefers a paragraph break, then ". ", then a space, each only when it falls past
 * 30 % of the window; otherwise it is a hard cut. Chunks after the first start with
 * "[continued] " (counted in the limit).
 */
export function chunkMessage(content: string, limit: number): string[] {
  if (content.length <= limit) return [content];
  const chunks: string[] = [];
  let remaining = content;
  let first = true;
  while (remaining) {
    const window = first ? limit : limit - CONTINUED_PREFIX.length;
    if (remaining.length <= window) {
      chunks.push(first ? remaining : CONTINUED_PREFIX + remaining);
      break;
    }
    const segment = remaining.slice(0, window);
    const floor = window * 0.3;
    let cut = segment.lastIndexOf('\n\n');
    if (cut < floor) {
      cut = segment.lastIndexOf('. ');
      if (cut >= 0) cut += 2;
    }
    if (cut < floor) cut = segment.lastIndexOf(' ');
    if (cut < floor) cut = window;
    const chunk = remaining.slice(0, cut).trimEnd();
    remaining = remaining.slice(cut).trimStart();
    chunks.push(first ? chunk : CONTINUED_PREFIX + chunk);
    first = false;
  }
  return chunks;
}
