/** One sender's bars. */
export interface ChartSeries {
  readonly label: string;
  readonly unexplainedDuplicates: number;
  readonly resendAfterAmbiguity: number;
  readonly lost: number;
  readonly eventsPerSecond: number;
}

const COLORS = { unexplained: '#d62728', resend: '#ff7f0e', lost: '#7f7f7f', throughput: '#1f77b4' };

/**
 * Two bar panels as a standalone SVG string: duplicate provider calls and lost messages per
 * sender (left), throughput per busy second (right). Hand-written: a dozen rectangles do not
 * need a charting library, and the output must be a file the docs can embed.
 */
export function renderChart(series: readonly ChartSeries[], title: string): string {
  const width = 760;
  const height = 300;
  const panel = { top: 50, bottom: 240, left: [60, 440], width: 300 };
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts: string[] = [];
  const bars = (x0: number, max: number, values: { value: number; color: string }[][], caption: string) => {
    const slot = panel.width / series.length;
    const scale = max > 0 ? (panel.bottom - panel.top) / max : 0;
    parts.push(`<text x="${x0 + panel.width / 2}" y="${panel.top - 14}" text-anchor="middle" font-size="13" font-weight="bold">${esc(caption)}</text>`);
    parts.push(`<line x1="${x0}" y1="${panel.bottom}" x2="${x0 + panel.width}" y2="${panel.bottom}" stroke="#333"/>`);
    series.forEach((s, i) => {
      const group = values[i] ?? [];
      const w = (slot * 0.7) / Math.max(1, group.length);
      group.forEach((bar, j) => {
        const h = bar.value * scale;
        const x = x0 + i * slot + slot * 0.15 + j * w;
        parts.push(`<rect x="${x.toFixed(1)}" y="${(panel.bottom - h).toFixed(1)}" width="${(w - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${bar.color}"/>`);
        parts.push(`<text x="${(x + w / 2).toFixed(1)}" y="${(panel.bottom - h - 4).toFixed(1)}" text-anchor="middle" font-size="11">${bar.value}</text>`);
      });
      parts.push(`<text x="${(x0 + i * slot + slot / 2).toFixed(1)}" y="${panel.bottom + 16}" text-anchor="middle" font-size="12">${esc(s.label)}</text>`);
    });
  };
  const dupMax = Math.max(1, ...series.map((s) => Math.max(s.unexplainedDuplicates, s.resendAfterAmbiguity, s.lost)));
  bars(
    panel.left[0] ?? 60,
    dupMax,
    series.map((s) => [
      { value: s.unexplainedDuplicates, color: COLORS.unexplained },
      { value: s.resendAfterAmbiguity, color: COLORS.resend },
      { value: s.lost, color: COLORS.lost },
    ]),
    'Duplicate provider calls and lost messages',
  );
  bars(
    panel.left[1] ?? 440,
    Math.max(1, ...series.map((s) => s.eventsPerSecond)),
    series.map((s) => [{ value: s.eventsPerSecond, color: COLORS.throughput }]),
    'Throughput (events per busy second)',
  );
  const legend = [
    ['unexplained duplicates', COLORS.unexplained],
    ['resend after ambiguity (otp policy)', COLORS.resend],
    ['lost', COLORS.lost],
  ] as const;
  legend.forEach(([text, color], i) => {
    parts.push(`<rect x="${60 + i * 230}" y="${height - 28}" width="12" height="12" fill="${color}"/>`);
    parts.push(`<text x="${78 + i * 230}" y="${height - 18}" font-size="12">${esc(text)}</text>`);
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="18" text-anchor="middle" font-size="14">${esc(title)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
