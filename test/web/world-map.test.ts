// The offline map drawn from Natural Earth (world-atlas): the projection the
// page shares, every country but Antarctica, no shape smeared across the map
// by the antimeridian, and compact path data.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escape } from '../../src/web/html.js';
import { MAP_SCALE, MAP_VIEW_BOX, project } from '../../src/web/projection.js';
import { loadWorldTopology, renderWorldMap } from '../../src/web/world-map.js';

/** The x extent of every subpath (M…z) of the relative path data `d`. */
function subpathWidths(d: string): number[] {
  const widths: number[] = [];
  let x = 0;
  let min = 0;
  let max = 0;
  for (const [, command, args] of d.matchAll(/([Mlz])([^Mlz]*)/g)) {
    const [dx = 0] = (args ?? '').match(/-?\d+/g)?.map(Number) ?? [];
    if (command === 'M') {
      x = dx;
      min = max = x;
    } else if (command === 'l') {
      x += dx;
      min = Math.min(min, x);
      max = Math.max(max, x);
    } else {
      widths.push(max - min);
    }
  }
  return widths;
}

describe('the world map', () => {
  const svg = renderWorldMap(loadWorldTopology());

  it('projects plate carrée, as the page script does', () => {
    const cases = [
      { lon: -180, lat: 90, want: { x: 0, y: 0 } },
      { lon: 0, lat: 0, want: { x: 180 * MAP_SCALE, y: 90 * MAP_SCALE } },
      { lon: -122.085, lat: 37.422, want: { x: 231.7, y: 210.3 } }, // Mountain View
    ];
    for (const { lon, lat, want } of cases) assert.deepEqual(project(lon, lat), want);
    assert.equal(MAP_VIEW_BOX, '0 24 1440 568');
  });

  it('draws 176 countries (Antarctica left out) in one <g id="land">', () => {
    assert.match(
      svg,
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 24 1440 568"><g id="land">/,
    );
    assert.equal(svg.split('<path ').length - 1, 176);
    // three disputed areas have no ISO 3166 code, hence no id
    const ids = [...svg.matchAll(/<path id="n(\d+)"/g)].map((m) => m[1]);
    assert.equal(ids.length, 173);
    assert.equal(new Set(ids).size, 173);
    assert.ok(ids.includes('840') && ids.includes('250') && ids.includes('643'));
    assert.ok(!ids.includes('010'));
  });

  it('cuts Russia and Fiji at the antimeridian: no ring spans half the world', () => {
    for (const [, id, d] of svg.matchAll(/<path (?:id="n(\d+)" )?d="([^"]+)"/g)) {
      for (const width of subpathWidths(d!)) assert.ok(width < 180 * MAP_SCALE, `n${id}: ${width}`);
    }
  });

  it('is small: relative integer moves', () => {
    assert.ok(svg.length < 60_000, `${svg.length} bytes`);
    assert.doesNotMatch(svg, /\d\.\d/);
  });
});

describe('HTML text', () => {
  it('escapes the five characters that matter', () => {
    assert.equal(
      escape(`<a href="x">'&'</a>`),
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
  });
});
