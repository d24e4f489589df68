import { describe, expect, it } from 'vitest';
import { barChart, escapeXml, lineChart, xyChart } from './svg';

/** A strict-enough XML well-formedness check: balanced tags, quoted attributes, escaped text. */
function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(xml); m !== null; m = tag.exec(xml)) {
    const text = xml.slice(last, m.index);
    expect(text).not.toMatch(/[<>]/);
    expect(text).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
    last = tag.lastIndex;
    const [, close, name, , selfClose] = m;
    if (close) expect(stack.pop()).toBe(name);
    else if (!selfClose) stack.push(name!);
  }
  expect(xml.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
}

describe('SVG writer', () => {
  it('writes a well-formed line chart with escaped labels and log axes', () => {
    const svg = lineChart(
      [1000, 10000, 100000],
      [
        { name: 'bm25 <fts5> & "quotes"', values: [0.2, 0.9, 4.1] },
        { name: 'builtin', values: [0.3, null, 9] },
      ],
      { title: 'search p50 (ms) at N', xLabel: 'facts', yLabel: 'ms', logY: true },
    );
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('bm25 &lt;fts5&gt; &amp; &quot;quotes&quot;');
    expect(svg).toContain('<polyline');
    assertWellFormed(svg);
  });

  it('writes a well-formed bar chart, including empty and non-finite data', () => {
    assertWellFormed(
      barChart(['cat1', 'cat2'], [{ name: 'a', values: [0.5, Number.NaN] }], { title: 'x', yMax: 1 }),
    );
    assertWellFormed(barChart([], [], { title: 'empty' }));
    assertWellFormed(lineChart([5], [{ name: 'one', values: [3] }], { title: 'single' }));
  });

  it('escapes all five XML specials', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
  });
});

describe('SVG writer, log-scale bars', () => {
  it('draws bars from the lowest decade and stays well-formed', () => {
    const svg = barChart(['1', '2', '3'], [{ name: 'p50', values: [0.0002, 0.5, 12] }], {
      title: 'log',
      logY: true,
    });
    assertWellFormed(svg);
    expect(svg).toContain('>0.0001<');
    expect(svg).toContain('>100<');
    expect(svg.match(/<rect [^>]*><title>/g)?.length).toBe(3);
  });

  it('writes a well-formed x-y chart with one labelled point per threshold', () => {
    const svg = xyChart(
      [
        {
          name: 'holo <lex>',
          points: [
            { x: 0.5, y: 0.4, label: '0' },
            { x: 0.4, y: 0.5, label: '0.45' },
          ],
        },
        { name: 'empty', points: [] },
      ],
      { title: 'precision & recall', xMin: 0, xMax: 1, yMin: 0, yMax: 1 },
    );
    assertWellFormed(svg);
    expect(svg).toContain('holo &lt;lex&gt;');
    expect(svg.match(/<circle/g)).toHaveLength(2);
    expect(svg).toContain('>0.45</text>');
  });
});
