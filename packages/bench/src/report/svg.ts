/**
 * A tiny dependency-free SVG chart writer (line and grouped bar charts) for the benchmark report.
 * Output is standalone, well-formed XML with escaped text.
 */

export interface Series {
  name: string;
  /** y values aligned with the chart's x categories / values; null = no point. */
  values: ReadonlyArray<number | null>;
}

export interface ChartOptions {
  title: string;
  xLabel?: string;
  yLabel?: string;
  width?: number;
  height?: number;
  /** Logarithmic y axis (line charts). */
  logY?: boolean;
  /** Fixed y range; default from the data (bars and linear lines start at 0). */
  yMin?: number;
  yMax?: number;
}

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif"';

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function fmt(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`;
  if (a >= 1) return `${+v.toPrecision(3)}`;
  return `${+v.toPrecision(2)}`;
}

function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

interface Frame {
  w: number;
  h: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

function frame(options: ChartOptions, legendRows: number): Frame {
  const w = options.width ?? 640;
  const h = options.height ?? 360;
  return { w, h, left: 64, right: w - 16, top: 36, bottom: h - 48 - legendRows * 16 };
}

function header(f: Frame, options: ChartOptions): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f.w}" height="${f.h}" viewBox="0 0 ${f.w} ${f.h}" role="img">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<rect x="0" y="0" width="${f.w}" height="${f.h}" fill="#ffffff"/>`,
    `<text x="${f.w / 2}" y="20" text-anchor="middle" font-size="14" font-weight="600" ${FONT}>${escapeXml(options.title)}</text>`,
  ];
}

function axes(
  f: Frame,
  options: ChartOptions,
  yTicks: number[],
  yPos: (v: number) => number,
  xTicks: Array<{ x: number; label: string }>,
): string[] {
  const out: string[] = [];
  for (const t of yTicks) {
    const y = yPos(t);
    out.push(
      `<line x1="${f.left}" y1="${y.toFixed(1)}" x2="${f.right}" y2="${y.toFixed(1)}" stroke="#e5e5e5"/>`,
    );
    out.push(
      `<text x="${f.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" font-size="11" ${FONT}>${escapeXml(fmt(t))}</text>`,
    );
  }
  out.push(`<line x1="${f.left}" y1="${f.bottom}" x2="${f.right}" y2="${f.bottom}" stroke="#333"/>`);
  out.push(`<line x1="${f.left}" y1="${f.top}" x2="${f.left}" y2="${f.bottom}" stroke="#333"/>`);
  for (const t of xTicks) {
    out.push(
      `<text x="${t.x.toFixed(1)}" y="${f.bottom + 16}" text-anchor="middle" font-size="11" ${FONT}>${escapeXml(t.label)}</text>`,
    );
  }
  if (options.xLabel) {
    out.push(
      `<text x="${(f.left + f.right) / 2}" y="${f.bottom + 32}" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(options.xLabel)}</text>`,
    );
  }
  if (options.yLabel) {
    const cy = (f.top + f.bottom) / 2;
    out.push(
      `<text x="14" y="${cy}" text-anchor="middle" font-size="12" transform="rotate(-90 14 ${cy})" ${FONT}>${escapeXml(options.yLabel)}</text>`,
    );
  }
  return out;
}

function legend(f: Frame, series: readonly Series[]): string[] {
  const out: string[] = [];
  const perRow = 3;
  series.forEach((s, i) => {
    const row = Math.floor(i / perRow);
    const col = i % perRow;
    const x = f.left + col * ((f.right - f.left) / perRow);
    const y = f.h - 12 - (Math.ceil(series.length / perRow) - 1 - row) * 16;
    out.push(
      `<rect x="${x.toFixed(1)}" y="${y - 9}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/>`,
    );
    out.push(`<text x="${(x + 14).toFixed(1)}" y="${y}" font-size="11" ${FONT}>${escapeXml(s.name)}</text>`);
  });
  return out;
}

/** Ticks and pixel position of the y axis: decades on a log axis, else nice ticks from yMin. */
function yScale(
  f: Frame,
  options: ChartOptions,
  values: readonly number[],
  logY: boolean,
  clampToMax: boolean,
): { yTicks: number[]; yPos: (v: number) => number } {
  if (logY) {
    const lo = Math.floor(Math.log10(Math.min(...values)));
    const hi = Math.ceil(Math.log10(Math.max(...values)));
    const top = hi === lo ? hi + 1 : hi;
    const yTicks: number[] = [];
    for (let e = lo; e <= top; e++) yTicks.push(10 ** e);
    return { yTicks, yPos: (v) => f.bottom - ((Math.log10(v) - lo) / (top - lo)) * (f.bottom - f.top) };
  }
  const yMin = options.yMin ?? 0;
  const yMax = options.yMax ?? (values.length ? Math.max(...values) * 1.1 || 1 : 1);
  // Bars taller than an explicit yMax are drawn to the top of the frame, not past it.
  const cap = (v: number) => (clampToMax ? Math.min(v, yMax) : v);
  return {
    yTicks: niceTicks(yMin, yMax),
    yPos: (v) => f.bottom - ((cap(v) - yMin) / (yMax - yMin)) * (f.bottom - f.top),
  };
}

function finiteValues(series: readonly Series[]): number[] {
  return series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
}

/** A line chart over numeric x values (e.g. store sizes). */
export function lineChart(xs: readonly number[], series: readonly Series[], options: ChartOptions): string {
  const f = frame(options, Math.ceil(series.length / 3));
  const values = finiteValues(series);
  const logY = options.logY === true && values.every((v) => v > 0) && values.length > 0;
  const logX = xs.length > 1 && xs.every((x) => x > 0) && Math.max(...xs) / Math.min(...xs) >= 100;
  const tx = (x: number) => (logX ? Math.log10(x) : x);
  const xMin = Math.min(...xs.map(tx));
  const xMax = Math.max(...xs.map(tx));
  const xPos = (x: number) =>
    xMax === xMin
      ? (f.left + f.right) / 2
      : f.left + 20 + ((tx(x) - xMin) / (xMax - xMin)) * (f.right - f.left - 40);

  const { yTicks, yPos } = yScale(f, options, values, logY, false);
  const out = header(f, options);
  out.push(
    ...axes(
      f,
      options,
      yTicks,
      yPos,
      xs.map((x) => ({ x: xPos(x), label: fmt(x) })),
    ),
  );
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts: string[] = [];
    s.values.forEach((v, j) => {
      const x = xs[j];
      if (v === null || !Number.isFinite(v) || x === undefined || (logY && v <= 0)) return;
      pts.push(`${xPos(x).toFixed(1)},${yPos(v).toFixed(1)}`);
    });
    if (pts.length > 1)
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(' ')}"/>`);
    for (const p of pts) {
      const [cx, cy] = p.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${color}"/>`);
    }
  });
  out.push(...legend(f, series), '</svg>');
  return `${out.join('\n')}\n`;
}

/** A grouped bar chart: one group per category, one bar per series (optionally on a log y axis). */
export function barChart(
  categories: readonly string[],
  series: readonly Series[],
  options: ChartOptions,
): string {
  const f = frame(options, Math.ceil(series.length / 3));
  const values = finiteValues(series);
  const logY = options.logY === true && values.length > 0 && values.every((v) => v > 0);
  const { yTicks, yPos } = yScale(f, options, values, logY, true);
  const groupW = (f.right - f.left) / Math.max(1, categories.length);
  const barW = (groupW * 0.8) / Math.max(1, series.length);
  const out = header(f, options);
  out.push(
    ...axes(
      f,
      options,
      yTicks,
      yPos,
      categories.map((c, i) => ({ x: f.left + groupW * (i + 0.5), label: c })),
    ),
  );
  series.forEach((s, si) => {
    s.values.forEach((v, ci) => {
      if (v === null || !Number.isFinite(v) || (logY && v <= 0)) return;
      const x = f.left + groupW * ci + groupW * 0.1 + barW * si;
      const y = yPos(v);
      out.push(
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, barW - 1).toFixed(1)}" height="${Math.max(0, f.bottom - y).toFixed(1)}" fill="${PALETTE[si % PALETTE.length]}"><title>${escapeXml(`${s.name} ${categories[ci]}: ${fmt(v)}`)}</title></rect>`,
      );
    });
  });
  out.push(...legend(f, series), '</svg>');
  return `${out.join('\n')}\n`;
}

/** One series of an x–y chart: points in drawing order, each optionally labelled. */
export interface XySeries {
  name: string;
  points: ReadonlyArray<{ x: number; y: number; label?: string }>;
}

/**
 * An x–y line chart where each series has its own x values (a precision–recall curve: one point
 * per threshold, labelled with it). Axes are linear over `[xMin, xMax]` × `[yMin, yMax]`.
 */
export function xyChart(
  series: readonly XySeries[],
  options: ChartOptions & { xMin?: number; xMax?: number },
): string {
  const f = frame(options, Math.ceil(series.length / 3));
  const xs = series.flatMap((s) => s.points.map((p) => p.x)).filter(Number.isFinite);
  const ys = series.flatMap((s) => s.points.map((p) => p.y)).filter(Number.isFinite);
  const xMin = options.xMin ?? Math.min(0, ...xs);
  const xMax = options.xMax ?? (xs.length ? Math.max(...xs) * 1.05 || 1 : 1);
  const xPos = (x: number) => f.left + 10 + ((x - xMin) / (xMax - xMin || 1)) * (f.right - f.left - 20);
  const { yTicks, yPos } = yScale(f, options, ys, false, false);
  const out = header(f, options);
  out.push(
    ...axes(
      f,
      options,
      yTicks,
      yPos,
      niceTicks(xMin, xMax).map((x) => ({ x: xPos(x), label: fmt(x) })),
    ),
  );
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    if (pts.length > 1)
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => `${xPos(p.x).toFixed(1)},${yPos(p.y).toFixed(1)}`).join(' ')}"/>`,
      );
    for (const p of pts) {
      const cx = xPos(p.x).toFixed(1);
      const cy = yPos(p.y).toFixed(1);
      out.push(
        `<circle cx="${cx}" cy="${cy}" r="3" fill="${color}"><title>${escapeXml(`${s.name} ${p.label ?? ''}`)}</title></circle>`,
      );
      if (p.label)
        out.push(
          `<text x="${(Number(cx) + 5).toFixed(1)}" y="${(Number(cy) - 5).toFixed(1)}" font-size="9" fill="${color}" ${FONT}>${escapeXml(p.label)}</text>`,
        );
    }
  });
  out.push(
    ...legend(
      f,
      series.map((s) => ({ name: s.name, values: [] })),
    ),
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}
