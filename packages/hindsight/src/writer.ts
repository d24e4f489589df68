/**
 * One writer per bank. Each provider drains its retains through its own ordered queue
 * (`SerialQueue`); this lock also serialises providers of the same process that write the same
 * bank (a gateway runs one provider per chat), so two retains to one bank never overlap.
 */
const tails = new Map<string, Promise<void>>();

/** Run `work` after every earlier `exclusive` call for `key` settled; the lock frees itself. */
export async function exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release = () => {};
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  try {
    await previous;
    return await work();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
