import fs, { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { IoTrapError, collectLogs, primeIoTrap, startIoTrap, tempHermesHome } from '../src';
import { loopTurns } from '../src/conformance/runtime';

const home = tempHermesHome('hm-io-trap-');
afterAll(() => home.cleanup());

describe('startIoTrap', () => {
  it('forbid: records and blocks sync fs calls, including ESM named imports', () => {
    const trap = startIoTrap('forbid');
    try {
      expect(() => readFileSync(__filename)).toThrow(IoTrapError);
      expect(() => fs.existsSync('/nope')).toThrow(IoTrapError);
    } finally {
      trap.restore();
    }
    expect(trap.touches.map((t) => t.api)).toEqual(['fs.readFileSync', 'fs.existsSync']);
    expect(readFileSync(__filename, 'utf8').length).toBeGreaterThan(0);
  });

  it('forbid: rejects fetch and promise fs calls, throws on socket connects', async () => {
    const trap = startIoTrap('forbid');
    try {
      await expect(fetch('http://127.0.0.1:9/')).rejects.toThrow(IoTrapError);
      await expect(readFile(__filename)).rejects.toThrow(IoTrapError);
      expect(() => net.connect(9, '127.0.0.1')).toThrow(IoTrapError);
    } finally {
      trap.restore();
    }
    expect(trap.touches.map((t) => t.api)).toEqual(['fetch', 'fs.promises.readFile', 'net.Socket.connect']);
  });

  it('observe: records one touch per provider call (no nested internals) and passes through', () => {
    const file = `${home.path}/observe.txt`;
    const trap = startIoTrap('observe');
    try {
      fs.appendFileSync(file, 'x');
    } finally {
      trap.restore();
    }
    expect(trap.touches).toEqual([{ api: 'fs.appendFileSync', sync: true, target: file }]);
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });

  it('gate: holds async I/O until release, in order', async () => {
    await primeIoTrap();
    const file = `${home.path}/gate.txt`;
    const trap = startIoTrap('gate');
    let done = false;
    const write = fs.promises.writeFile(file, 'held').then(() => {
      done = true;
    });
    await loopTurns(20);
    expect(done).toBe(false);
    expect(trap.held).toBe(1);
    trap.restore();
    await write;
    expect(done).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('held');
  });

  it('refuses nested traps and restores idempotently', () => {
    const trap = startIoTrap('observe');
    expect(() => startIoTrap('observe')).toThrow(/already active/);
    trap.restore();
    trap.restore();
    startIoTrap('observe').restore();
  });
});

describe('helpers', () => {
  it('tempHermesHome creates a private folder and removes it', () => {
    const temp = tempHermesHome();
    expect(fs.statSync(temp.path).mode & 0o777).toBe(0o700);
    fs.writeFileSync(`${temp.path}/x`, 'y');
    temp.cleanup();
    temp.cleanup();
    expect(fs.existsSync(temp.path)).toBe(false);
  });

  it('collectLogs records redacted messages', () => {
    const logs = collectLogs();
    logs.logger.warn('calling with Bearer sk-abcdefghijklmnopqrstuvwxyz', {
      apiKey: 'sk-abcdefghijklmnopqrstuvwxyz',
    });
    logs.logger.info('hello');
    expect(logs.messages('warn')).toEqual(['calling with Bearer [redacted]']);
    expect(logs.contains('sk-abcdefghijklmnopqrstuvwxyz')).toBe(false);
    expect(logs.contains(/hello/)).toBe(true);
    logs.clear();
    expect(logs.records).toHaveLength(0);
  });
});
