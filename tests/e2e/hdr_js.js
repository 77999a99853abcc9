// shb's exported histograms read by HdrHistogram's JavaScript library
// (hdr-histogram-js from npm, an independent decoder), checked against
// shb's own JSON figures; and shb's hgrm report against the library's
// outputPercentileDistribution of the same histogram.
// Usage: node hdr_js.js MODULE_DIR REPORT.json REPORT.hgrm
// With 1 ns resolution below 2048 ns and 3 significant digits above,
// the two agree exactly on the bucket level: the decoded count is shb's,
// the decoded min and max are the lowest and highest equivalent values of
// shb's, and each percentile is HdrHistogram's, capped at shb's max (shb
// never reports above the largest value seen).
'use strict';
const hdr = require(process.argv[2] + '/hdr-histogram-js');
const doc = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));
const ns = (s) => Math.round(s * 1e9);
let bad = 0;
const same = (what, got, want) => {
	console.log(`${what}: ${got} (want ${want})`);
	if (got !== want) bad++;
};

const h = hdr.decodeFromCompressedBase64(doc.latencyHistogram, 64);
const lat = doc.latencySeconds;
same('lowest discernible', h.lowestDiscernibleValue, 1);
same('highest trackable', h.highestTrackableValue, 3600000000000);
same('significant digits', h.numberOfSignificantValueDigits, 3);
same('count', h.totalCount, doc.requests.ok);
same('min', h.minNonZeroValue, h.lowestEquivalentValue(ns(lat.min)));
same('max', h.maxValue, h.highestEquivalentValue(ns(lat.max)));
// The percentiles the run asked for give whole ranks at its count, where
// HdrHistogram's rounding and shb's ceiling agree.
const labels = Object.keys(lat.percentiles);
same('percentiles', labels.length, 5);
for (const label of labels) {
	const p = Number(label.slice(1));
	const want = Math.min(h.getValueAtPercentile(p), ns(lat.max));
	same(label, ns(lat.percentiles[label]), want);
}
// The set-up histograms: their counts and max.
for (const [key, enc] of Object.entries(doc.setupHistograms)) {
	const t = doc.setupTimings[key];
	if (enc === null) {
		same(`${key} empty`, t, null);
		continue;
	}
	const s = hdr.decodeFromCompressedBase64(enc, 64);
	same(`${key} count`, s.totalCount, t.count);
	same(`${key} max`, s.maxValue, s.highestEquivalentValue(ns(t.max)));
}
// The hgrm spectrum (milliseconds): every line up to the "#[" summary is
// HdrHistogram's; the summary's Max and Total count too (its mean and
// standard deviation come from bucket values, shb's are exact).
const hgrm = require('fs').readFileSync(process.argv[4], 'utf8').split('\n');
const want = h.outputPercentileDistribution(5, 1e6).split('\n');
const table = (lines) => lines.slice(0, lines.findIndex((l) => l.startsWith('#[')));
const got = table(hgrm), exp = table(want);
same('hgrm lines', got.length, exp.length);
let first = -1;
for (let i = 0; i < Math.max(got.length, exp.length) && first < 0; i++)
	if (got[i] !== exp[i]) first = i;
if (first >= 0)
	console.log(`hgrm line ${first}: "${got[first]}", HdrHistogram: "${exp[first]}"`);
same('hgrm table equal', first, -1);
same('hgrm total count', Number(/Total count += +(\d+)\]/.exec(
	hgrm.find((l) => l.startsWith('#[Max')))[1]), h.totalCount);
same('hgrm buckets', hgrm.find((l) => l.startsWith('#[Buckets')),
     want.find((l) => l.startsWith('#[Buckets')));
process.exit(bad ? 1 : 0);
