import { html } from "./html.js";
import type { Series } from "./types.js";

/**
 * The attempts chart, drawn as SVG: one point per attempt coloured by verdict (kept ones
 * larger), the running best of kept attempts as a step line, the baseline mean with its noise
 * band, and the threshold. The axis is oriented so that up is always better.
 */

const W = 640;
const H = 260;
const PAD = { left: 56, right: 16, top: 16, bottom: 36 };

const fmt = (v: number) =>
  Math.abs(v) >= 1000 || Number.isInteger(v) ? v.toLocaleString("en") : v.toPrecision(4);

export function AttemptsChart({ series, title }: { series: Series; title: string }) {
  const points = series.points.filter((p) => p.value !== null);
  const id = `chart-${series.evaluator.replace(/[^a-z0-9]/gi, "")}`;
  if (points.length === 0)
    return html`<p class="muted">No measured attempts yet for ${series.evaluator}.</p>`;
  const values = points.map((p) => p.value as number);
  const extra: number[] = [];
  if (series.baseline)
    extra.push(series.baseline.mean - series.baseline.noise, series.baseline.mean + series.baseline.noise);
  if (series.threshold !== null) extra.push(series.threshold);
  let low = Math.min(...values, ...extra);
  let high = Math.max(...values, ...extra);
  if (low === high) {
    low -= 1;
    high += 1;
  }
  const span = high - low;
  low -= span * 0.08;
  high += span * 0.08;
  const up = series.direction === "higher";
  const x = (i: number) =>
    PAD.left +
    (points.length === 1
      ? (W - PAD.left - PAD.right) / 2
      : (i * (W - PAD.left - PAD.right)) / (points.length - 1));
  // Better is up: for "lower is better" the axis is flipped.
  const y = (v: number) => {
    const t = (v - low) / (high - low);
    return PAD.top + (up ? 1 - t : t) * (H - PAD.top - PAD.bottom);
  };
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => low + t * (high - low));
  let step = "";
  points.forEach((p, i) => {
    if (p.best === null) return;
    const px = x(i);
    const py = y(p.best);
    step += step === "" ? `M${px},${py}` : ` H${px} V${py}`;
  });
  if (step) step += ` H${x(points.length - 1)}`;
  const band = series.baseline;
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-labelledby=${`${id}-t ${id}-d`} class="attempts-chart">
      <title id=${`${id}-t`}>${title}</title>
      <desc id=${`${id}-d`}>
        ${points.length} attempts; ${up ? "higher" : "lower"} is better, drawn upward.${band ? ` Baseline ${fmt(band.mean)} ± ${fmt(band.noise)}.` : ""}
      </desc>
      ${ticks.map(
        (t) => html`<g class="tick">
          <line x1=${PAD.left} x2=${W - PAD.right} y1=${y(t)} y2=${y(t)} />
          <text x=${PAD.left - 6} y=${y(t) + 4} text-anchor="end">${fmt(t)}</text>
        </g>`,
      )}
      ${
        band
          ? html`<rect class="band" x=${PAD.left} width=${W - PAD.left - PAD.right}
              y=${Math.min(y(band.mean - band.noise), y(band.mean + band.noise))}
              height=${Math.max(1, Math.abs(y(band.mean - band.noise) - y(band.mean + band.noise)))} />
            <line class="baseline" x1=${PAD.left} x2=${W - PAD.right} y1=${y(band.mean)} y2=${y(band.mean)} />`
          : null
      }
      ${
        series.threshold !== null
          ? html`<line class="threshold" x1=${PAD.left} x2=${W - PAD.right} y1=${y(series.threshold)} y2=${y(series.threshold)} />`
          : null
      }
      ${step ? html`<path class="best" d=${step} />` : null}
      ${points.map((p, i) => {
        const verdict = p.reverted ? "revert" : (p.verdict ?? "open");
        const kept = verdict === "keep";
        return html`<circle class=${`pt verdict-${verdict}`} data-verdict=${verdict} cx=${x(i)} cy=${y(p.value as number)} r=${kept ? 7 : 5}>
          <title>${p.attempt}: ${fmt(p.value as number)} (${verdict})${p.gain !== null ? `, ${p.gain >= 0 ? "+" : ""}${fmt(p.gain)} vs baseline` : ""}${p.gain_in_noise !== null ? ` (${p.gain_in_noise.toFixed(1)}× noise)` : ""}, ${p.repeats} repeats</title>
        </circle>`;
      })}
      <text class="axis" x=${PAD.left} y=${H - 10}>attempts in order →</text>
      <text class="axis" x=${W - PAD.right} y=${H - 10} text-anchor="end">${up ? "higher" : "lower"} is better ↑</text>
    </svg>
    <figcaption class="legend">
      <span class="key verdict-keep">kept</span> <span class="key verdict-revert">reverted</span>
      <span class="key verdict-review">review</span> <span class="key verdict-open">undecided</span>
      <span class="key best">running best kept</span> <span class="key band">baseline ± noise</span>
      ${series.threshold !== null ? html`<span class="key threshold">threshold ${fmt(series.threshold)}</span>` : null}
    </figcaption>
  </figure>`;
}
