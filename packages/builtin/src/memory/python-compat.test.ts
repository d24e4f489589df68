/**
 * An existing Python Hermes home, read and written by both programs: the same entries, the same
 * character counts. `test/python/memory_file.py` follows the reference's protocol.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { py, requirePython } from '../../test/helpers/python';
import { tempHome } from '../../test/helpers/temp';
import { readRawChecked } from './atomic-file';
import { charCount, parseEntries } from './entries';
import { MemoryStore } from './memory-store';

function memoryFile(home: string, content?: string | Buffer): string {
  const dir = path.join(home, 'memories');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'MEMORY.md');
  if (content !== undefined) fs.writeFileSync(file, content);
  return file;
}

describe('Python compatibility: text', { timeout: 30_000 }, () => {
  it('python3 is available (the suite fails, never skips, without it)', () => {
    expect(requirePython).not.toThrow();
  });

  it('§4 limits count code points as Python does: an emoji is one character', async () => {
    const home = tempHome();
    const file = memoryFile(home);
    const entry = `${'🙂'.repeat(40)} likes emoji`; // 52 code points, 92 UTF-16 units
    const limit = 52;
    const theirs = await py<{ success: boolean; usage: number }>('add-text', file, String(limit), entry);
    expect(theirs).toMatchObject({ success: true, usage: 52 });
    fs.rmSync(file);
    const store = new MemoryStore({ hermesHome: home, memoryCharLimit: limit }).load();
    const ours = await store.add('memory', entry);
    expect(ours.success).toBe(true);
    expect(ours.usage).toBe('100% — 52/52 chars');
    // The file both wrote: same count on reload, no OVER BUDGET, replace and remove still work.
    const reloaded = new MemoryStore({ hermesHome: home, memoryCharLimit: limit }).load();
    expect(reloaded.formatForSystemPrompt('memory')).not.toContain('OVER BUDGET');
    expect((await reloaded.replace('memory', 'likes emoji', '🙂 short')).success).toBe(true);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.includes('.bak.'))).toEqual([]);
    expect((await reloaded.remove('memory', 'short')).success).toBe(true);
  });

  it('§4 a file the Python agent fills to its limit with emoji is in budget here, and adds are judged alike', async () => {
    const home = tempHome();
    const file = memoryFile(home);
    const limit = 130;
    for (let i = 0; i < 3; i++)
      expect((await py('add-text', file, String(limit), `${'🎉'.repeat(30)} note ${i}`)).success).toBe(true);
    const theirs = await py<{ chars: number }>('parse', file);
    const store = new MemoryStore({ hermesHome: home, memoryCharLimit: limit }).load();
    expect(store.usage('memory').current).toBe(theirs.chars);
    // One more character than fits is refused by both; the one that fits is accepted by both.
    const room = limit - theirs.chars - 3;
    const tooLong = '🦀'.repeat(room + 1);
    expect((await py('add-text', file, String(limit), tooLong)).success).toBe(false);
    expect((await store.add('memory', tooLong)).success).toBe(false);
    expect((await store.add('memory', '🦀'.repeat(room))).success).toBe(true);
    expect((await py<{ chars: number }>('parse', file)).chars).toBe(limit);
  });

  const shapes: Array<[string, string | Buffer]> = [
    ['a UTF-8 BOM', '\uFEFFfirst fact\n§\nsecond fact'],
    ['CRLF line ends', 'first fact\r\n§\r\nsecond\r\nline two'],
    ['lone CR line ends', 'first fact\r§\rsecond fact'],
    ['U+0085 and U+001F at entry edges', '\u0085first fact\u001f\n§\n\u001csecond fact\u0085'],
    ['U+FEFF after a delimiter (content, not a BOM)', 'first fact\n§\n\uFEFFsecond fact'],
    ['U+2028 inside and at the edge', 'first\u2028fact\u2028\n§\nsecond fact'],
    ['NBSP and ideographic space at edges', '\u00a0first fact\u3000\n§\nsecond fact'],
    ['whitespace-only entries', 'first fact\n§\n \t\n§\nsecond fact\n§\n\u001f'],
  ];
  for (const [name, content] of shapes) {
    it(`§4 reads ${name} exactly as the Python agent does`, async () => {
      const home = tempHome();
      const file = memoryFile(home, content);
      const theirs = await py<{ entries: string[]; chars: number }>('parse', file);
      const read = readRawChecked(file);
      expect(read.ok).toBe(true);
      const ours = [...new Set(parseEntries(read.raw))];
      expect(ours).toEqual(theirs.entries);
      expect(charCount(ours)).toBe(theirs.chars);
    });
  }

  it('§4 a CRLF file written on Windows round-trips: replace works without a drift backup', async () => {
    const home = tempHome();
    const file = memoryFile(home, 'alpha fact\r\n§\r\nbeta\r\nsecond line');
    const store = new MemoryStore({ hermesHome: home }).load();
    const r = await store.replace('memory', 'alpha', 'alpha fact, revised');
    expect(r.success).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha fact, revised\n§\nbeta\nsecond line');
    expect((await py<{ entries: string[] }>('parse', file)).entries).toEqual([
      'alpha fact, revised',
      'beta\nsecond line',
    ]);
  });

  it('§4 tool input is stripped as Python strips it (U+001F trimmed, U+FEFF kept)', async () => {
    const home = tempHome();
    const file = memoryFile(home);
    const store = new MemoryStore({ hermesHome: home }).load();
    expect((await store.add('memory', '\u001fedge fact\u0085')).success).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('edge fact');
    // A duplicate as Python sees it is a duplicate here too.
    expect((await py<{ message?: string }>('add-text', file, '2200', ' edge fact\u001c')).message).toBe(
      'duplicate',
    );
  });
});
