import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MemoryError, SettingsError, UnsupportedFeatureError } from '@hermes-memory/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundledAssets } from '../../test/paths';
import { WordPieceTokenizer } from './wordpiece-tokenizer';

const tokenizerJson = JSON.parse(readFileSync(path.join(bundledAssets, 'tokenizer.json'), 'utf8')) as {
  model: { vocab: Record<string, number> };
};
const vocab = tokenizerJson.model.vocab;
const bert = WordPieceTokenizer.fromTokenizerJson(tokenizerJson);

describe('WordPiece mechanics on a hand-made vocabulary', () => {
  const tiny = new WordPieceTokenizer({
    vocab: [
      '[PAD]',
      '[UNK]',
      '[CLS]',
      '[SEP]',
      'un',
      '##aff',
      '##able',
      'runn',
      '##ing',
      'run',
      '##n',
      'a',
      '.',
      'hello',
    ],
    maxInputCharsPerWord: 10,
    specialTokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]'],
  });

  it('splits greedily, longest match first, with ## continuations', () => {
    expect(tiny.tokenize('unaffable')).toEqual(['un', '##aff', '##able']);
    expect(tiny.tokenize('running')).toEqual(['runn', '##ing']);
    expect(tiny.encode('unaffable')).toEqual([4, 5, 6]);
  });

  it('turns a word that cannot be fully covered into a single [UNK]', () => {
    expect(tiny.tokenize('unx')).toEqual(['[UNK]']);
    expect(tiny.tokenize('hello unx a')).toEqual(['hello', '[UNK]', 'a']);
  });

  it('splits punctuation off words and drops whitespace', () => {
    expect(tiny.tokenize('  hello.a\t\nrun  ')).toEqual(['hello', '.', 'a', 'run']);
  });

  it('maps words longer than max_input_chars_per_word to [UNK]', () => {
    expect(tiny.tokenize('aaaaaaaaaa')).toEqual(['[UNK]']); // 10 chars, not coverable ('a' has no ##a)
    expect(tiny.tokenize('unaffablex')).toEqual(['[UNK]']);
    expect(tiny.tokenize('unaffableun')).toEqual(['[UNK]']); // 11 chars > 10
  });

  it('returns nothing for empty or blank text', () => {
    expect(tiny.encode('')).toEqual([]);
    expect(tiny.encode(' \t\n ')).toEqual([]);
  });
});

describe('BERT tokenization with the bundled potion-base-2M vocabulary', () => {
  const ids = (tokens: string[]) => tokens.map((t) => vocab[t]);

  it('encodes "hello world" to the documented ids without special tokens', () => {
    expect(bert.encode('hello world')).toEqual([6598, 1094]);
    expect(ids(['hello', 'world'])).toEqual([6598, 1094]);
  });

  it('lowercases and strips accents', () => {
    expect(bert.tokenize('Café NAÏVE Résumé')).toEqual(['cafe', 'naive', 'resume']);
    expect(bert.encode('Ångström')).toEqual(bert.encode('angstrom'));
    expect(bert.encode('Đà Nẵng')).toEqual(bert.encode('đa nang'));
  });

  it('isolates every punctuation character, including ASCII symbols', () => {
    expect(bert.tokenize("Don't stop-believing... it's $3.14")).toEqual([
      'don',
      "'",
      't',
      'stop',
      '-',
      'believing',
      '.',
      '.',
      '.',
      'it',
      "'",
      's',
      '$',
      '3',
      '.',
      '14',
    ]);
    expect(bert.tokenize('«quoted»')).toEqual(['«', 'quoted', '»']);
  });

  it('makes each CJK ideograph a word of its own', () => {
    expect(bert.tokenize('北京天安')).toEqual(['北', '京', '天', '安']);
    expect(bert.tokenize('hello北京')).toEqual(['hello', '北', '京']);
  });

  it('splits unknown long words into subwords', () => {
    expect(bert.tokenize('unbelievably')).toEqual(['un', '##bel', '##ie', '##va', '##bly']);
    expect(bert.encode('unbelievably')).toEqual(ids(['un', '##bel', '##ie', '##va', '##bly']));
  });

  it('maps words over 100 characters to [UNK]', () => {
    expect(bert.tokenize(`${'x'.repeat(101)} ok`)).toEqual(['[UNK]', 'ok']);
    const hundred = bert.tokenize('x'.repeat(100));
    expect(hundred.length).toBeGreaterThan(1);
    expect(hundred).not.toContain('[UNK]');
  });

  it('cleans control and format characters and maps Unicode spaces to spaces', () => {
    expect(bert.encode('hel\u0001lo')).toEqual(bert.encode('hello'));
    expect(bert.encode('hel\u200blo wor\u00adld')).toEqual(bert.encode('hello world'));
    expect(bert.encode('hello\u00a0world\u3000again\u2028x\r\ny')).toEqual(
      bert.encode('hello world again x y'),
    );
    expect(bert.encode('\ufeffhello\ufffd')).toEqual(bert.encode('hello'));
  });

  it('recognises special tokens verbatim, before normalisation', () => {
    expect(bert.tokenize('a [CLS] b[SEP]')).toEqual(['a', '[CLS]', 'b', '[SEP]']);
    expect(bert.tokenize('[cls]')).toEqual(['[', 'cl', '##s', ']']);
  });

  it('lowercases character by character (no final sigma) like the Rust reference', () => {
    expect(bert.tokenize('ΟΔΟΣ')).toEqual(bert.tokenize('οδοσ'));
  });

  it('strips every non-spacing mark, not only the combining diacritics block', () => {
    // デ = テ + U+3099 (a non-spacing mark outside U+0300–U+036F).
    expect(bert.encode('デ')).toEqual(bert.encode('テ'));
    expect(bert.encode('combining e\u0301')).toEqual(bert.encode('combining e'));
  });

  it('handles astral characters and lone surrogates without throwing', () => {
    expect(bert.tokenize('hi 😀 there')).toEqual(['hi', '[UNK]', 'there']);
    expect(bert.tokenize('a\ud800b')).toEqual(bert.tokenize('ab'));
  });

  it('normalize() exposes the BertNormalizer output', () => {
    expect(bert.normalize('Héllo\tWORLD')).toBe('hello world');
    expect(bert.normalize('中文')).toBe(' 中  文 ');
  });
});

describe('fromTokenizerJson validation', () => {
  const base = () => JSON.parse(JSON.stringify(tokenizerJson)) as Record<string, Record<string, unknown>>;

  it('rejects non-WordPiece models, other normalizers and pre-tokenizers', () => {
    const bpe = base();
    bpe['model']!['type'] = 'BPE';
    expect(() => WordPieceTokenizer.fromTokenizerJson(bpe)).toThrow(UnsupportedFeatureError);
    const nfkc = base();
    nfkc['normalizer'] = { type: 'NFKC' };
    expect(() => WordPieceTokenizer.fromTokenizerJson(nfkc)).toThrow(/BertNormalizer/);
    const meta = base();
    meta['pre_tokenizer'] = { type: 'Metaspace' };
    expect(() => WordPieceTokenizer.fromTokenizerJson(meta)).toThrow(/BertPreTokenizer/);
  });

  it('rejects non-contiguous vocab ids and a missing unknown token', () => {
    const gap = base();
    gap['model']!['vocab'] = { '[UNK]': 0, a: 5 };
    expect(() => WordPieceTokenizer.fromTokenizerJson(gap)).toThrow(SettingsError);
    const noUnk = base();
    noUnk['model']!['vocab'] = { a: 0 };
    expect(() => WordPieceTokenizer.fromTokenizerJson(noUnk)).toThrow(/Unknown token/);
    expect(() => WordPieceTokenizer.fromTokenizerJson('nope')).toThrow(MemoryError);
  });

  it('honours lowercase=false and strip_accents=false', () => {
    const cased = base();
    cased['normalizer'] = { ...cased['normalizer'], lowercase: false, strip_accents: false };
    const t = WordPieceTokenizer.fromTokenizerJson(cased);
    expect(t.normalize('Héllo')).toBe('Héllo');
  });
});

describe('agreement with transformers.js BertTokenizer (an independent implementation)', () => {
  let reference: (text: string) => number[];

  beforeAll(async () => {
    const tf = await import('@xenova/transformers');
    const saved = { local: tf.env.localModelPath, remote: tf.env.allowRemoteModels };
    tf.env.localModelPath = `${path.dirname(bundledAssets)}/`;
    tf.env.allowRemoteModels = false;
    try {
      const tok = await tf.AutoTokenizer.from_pretrained(path.basename(bundledAssets));
      reference = (text) => Array.from(tok.encode(text, null, { add_special_tokens: false }) as number[]);
    } finally {
      tf.env.localModelPath = saved.local;
      tf.env.allowRemoteModels = saved.remote;
    }
  }, 30_000);

  it('produces identical ids on 2,000 seeded mixed-script texts', () => {
    // transformers.js strips only U+0300–U+036F and lowercases with String#toLowerCase (final
    // sigma); the Rust reference strips every Mn and lowercases per character. The corpus avoids
    // those two known divergences (tested explicitly above) and covers everything else.
    const words = [
      'memory',
      'Remember',
      'user',
      'prefers',
      'coffee',
      'Berlin',
      'unbelievable',
      'tokenization',
      'café',
      'naïve',
      'Ærøskøbing',
      'Zürich',
      'façade',
      'jalapeño',
      '東京',
      '北京大学',
      'Москва',
      'Ελλάδα',
      '2024',
      '3.14',
      '$100',
      'e-mail',
      "don't",
      'C++',
      'x'.repeat(120),
      'hello',
      'WORLD',
      'résumé',
      'Ōsaka',
      'Đà Nẵng',
      'İzmir',
      'straße',
      'ﬁsh',
      '①',
      '²',
      '😀',
      '🚀',
      '—',
      '…',
      '«',
      '»',
      '“',
      '”',
      '¿',
      '¡',
      'antidisestablishmentarianism',
      'ok[CLS]',
      '[SEP]',
      'tab\there',
      'zero\u200bwidth',
      'ctrl\u0007',
    ];
    const seps = [
      ' ',
      '  ',
      ', ',
      '. ',
      '!',
      '?',
      '\t',
      '\n',
      '-',
      '/',
      '(',
      ')',
      '"',
      "'",
      '\u00a0',
      '\u3000',
      '',
      '#',
      '@',
      '_',
      '~',
      '^',
      '|',
    ];
    let seed = 20240607;
    const rnd = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)]!;
    const mismatches: string[] = [];
    for (let k = 0; k < 2000; k++) {
      let text = '';
      const n = 1 + Math.floor(rnd() * 12);
      for (let i = 0; i < n; i++) text += pick(words) + pick(seps);
      if (JSON.stringify(reference(text)) !== JSON.stringify(bert.encode(text))) mismatches.push(text);
    }
    expect(mismatches).toEqual([]);
  });
});
