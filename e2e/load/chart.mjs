// Draws the bench table as an SVG bar chart: each scenario's throughput as a share of the bare
// route measured beside it, with its goal marked. Plain SVG text: any browser or viewer shows it.
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const plain = (s) => s.replace(/`/g, "");

export function drawChart(rows, caption) {
  const left = 460;
  const width = 1000;
  const barArea = width - left - 90;
  const rowHeight = 34;
  const top = 56;
  const height = top + rows.length * rowHeight + 40;
  const x = (share) => left + Math.min(share, 1.2) * (barArea / 1.2);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="16" y="22" font-size="15" font-weight="600">Throughput as a share of a bare Next route handler (same run)</text>`,
    `<text x="16" y="42" fill="#555" font-size="11">${esc(caption)} — dashed line: the goal; orange: below it</text>`,
  ];
  for (const pct of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${x(pct)}" y1="${top - 6}" x2="${x(pct)}" y2="${height - 30}" stroke="#e3e3e3"/>`);
    parts.push(`<text x="${x(pct)}" y="${height - 14}" text-anchor="middle" fill="#555" font-size="11">${pct * 100} %</text>`);
  }
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    const met = r.goal === null || r.ratio >= r.goal;
    parts.push(`<text x="${left - 10}" y="${y + 17}" text-anchor="end">${esc(plain(r.title).slice(0, 56))}</text>`);
    parts.push(`<rect x="${left}" y="${y + 4}" width="${x(r.ratio) - left}" height="20" fill="${met ? "#3b82f6" : "#f59e0b"}"/>`);
    parts.push(`<text x="${x(r.ratio) + 6}" y="${y + 18}" font-size="12">${(r.ratio * 100).toFixed(0)} % · ${r.rps.toFixed(0)}/s</text>`);
    if (r.goal !== null) {
      parts.push(
        `<line x1="${x(r.goal)}" y1="${y + 1}" x2="${x(r.goal)}" y2="${y + 27}" stroke="#111" stroke-width="2" stroke-dasharray="3 2"/>`,
      );
    }
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
