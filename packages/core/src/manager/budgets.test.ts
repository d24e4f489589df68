import { describe, expect, it } from 'vitest';
import { writeDrainBudget } from './budgets';

describe('writeDrainBudget', () => {
  it('keeps a fifth of a short shutdown deadline, at most 1 s of a long one, to wind down', () => {
    expect(writeDrainBudget(5000)).toBe(4000);
    expect(writeDrainBudget(10_000)).toBe(9000);
    expect(writeDrainBudget(1000)).toBe(800);
    expect(writeDrainBudget(100)).toBe(80);
  });
});
